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
import { workload } from './workload.mjs';

function readsScript() {
  const files = [...workload.files, ...workload.units, ...workload.sysctls.map((s) => ({ path: s.file }))].map((f) => f.path).join(' ');
  const proc = workload.sysctls.map((s) => `/proc/sys/${s.key.replaceAll('.', '/')}`).join(' ');
  return [
    `stat -c '%F|%a|%U|%G|%s|%n' -- ${files}`,
    `cat -- ${files} | base64 -w0`,
    `dpkg-query -W -f='\${Package}\\t\${db:Status-Status} \${Version}\\n' -- ${workload.packages.join(' ')}`,
    `systemctl show --no-pager -p LoadState -p ActiveState -p SubState -p UnitFileState -p FragmentPath -p NeedDaemonReload -- ${workload.units.map((u) => u.name).join(' ')}`,
    `grep -H '' -- ${proc}`,
  ].join('\n');
}

const [inventoryFile, mode] = process.argv.slice(2);
const command = mode === '--reads' ? readsScript() : 'true';
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
