// The physical floor: ssh2 connects to every host of an inventory in parallel and runs `true`.
// Same key exchange as kcluster (ssh2 defaults) and, like kcluster, Nagle's algorithm off
// (TCP_NODELAY). Prints one JSON line with the wall time.
import { readFileSync } from 'node:fs';
import ssh2 from 'ssh2';
import { parse } from 'yaml';

const inventory = parse(readFileSync(process.argv[2], 'utf8'));
const key = readFileSync(inventory.ssh.keyFile);
const started = performance.now();
await Promise.all(
  inventory.hosts.map(
    (h) =>
      new Promise((resolve, reject) => {
        const client = new ssh2.Client();
        client
          .on('ready', () =>
            client.exec('true', (error, stream) => {
              if (error) return reject(error);
              stream.on('close', () => (client.end(), resolve())).resume();
            }),
          )
          .on('error', reject)
          .connect({ host: h.address, port: 22, username: 'root', privateKey: key });
        client.setNoDelay(true);
      }),
  ),
);
console.log(JSON.stringify({ hosts: inventory.hosts.length, seconds: (performance.now() - started) / 1000 }));
