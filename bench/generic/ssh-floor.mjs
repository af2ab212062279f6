// The physical floor: ssh2 connects to every host of an inventory in parallel and runs `true`.
// Same key exchange as kcluster (ssh2 defaults) and, like kcluster, Nagle's algorithm off
// (TCP_NODELAY). Prints one JSON line with the wall time.
//
// With --reads it runs instead the smallest hand-written script that reads what the generic
// workload checks (stat and contents of its files, its packages, its units, its sysctls): the
// cost of the reads themselves, without any engine, to tell them apart from kcluster's own.
import { readFileSync } from 'node:fs';
import ssh2 from 'ssh2';
import { parse } from 'yaml';
import { readsScript } from './reads.mjs';

const [inventoryFile, mode] = process.argv.slice(2);
const command = mode === '--reads' ? readsScript : 'true';
const inventory = parse(readFileSync(inventoryFile, 'utf8'));
const key = readFileSync(inventory.ssh.keyFile);
const started = performance.now();
await Promise.all(
  inventory.hosts.map(
    (h) =>
      new Promise((resolve, reject) => {
        const client = new ssh2.Client();
        client
          .on('ready', () =>
            client.exec(command, (error, stream) => {
              if (error) return reject(error);
              stream.on('close', () => (client.end(), resolve())).resume();
              stream.stderr.resume();
            }),
          )
          .on('error', reject)
          .connect({ host: h.address, port: 22, username: 'root', privateKey: key });
        client.setNoDelay(true);
      }),
  ),
);
console.log(JSON.stringify({ hosts: inventory.hosts.length, mode: mode === '--reads' ? 'reads' : 'true', seconds: (performance.now() - started) / 1000 }));
