// What each of the workload's reads costs a lab host: over one ssh2 connection to the first
// host of the inventory, every command runs N times; the host's CPU time is read from its
// cgroup (the whole container: sshd, the shell, the command, and systemd answering D-Bus)
// before and after. Prints CPU ms and wall ms per command. Run as root on the lab's machine.
// Usage: node bench/generic/host-cpu.mjs INVENTORY [N=40]
import { existsSync, readFileSync } from 'node:fs';
import ssh2 from 'ssh2';
import { parse } from 'yaml';
import { readCommands, readsScript } from './reads.mjs';

const [inventoryFile, runs = '40'] = process.argv.slice(2);
const N = Number(runs);
const inventory = parse(readFileSync(inventoryFile, 'utf8'));
const host = inventory.hosts[0];
const statFile = [`/sys/fs/cgroup/unified/kcluster-lab/${host.name}/cpu.stat`, `/sys/fs/cgroup/kcluster-lab/${host.name}/cpu.stat`].find(existsSync);
if (!statFile) {
  process.stderr.write(`no cgroup cpu.stat for ${host.name}: is it a kcluster lab host on this machine?\n`);
  process.exit(2);
}
const usageMs = () => Number(/usage_usec (\d+)/.exec(readFileSync(statFile, 'utf8'))[1]) / 1000;

const client = new ssh2.Client();
await new Promise((resolve, reject) => {
  client
    .on('ready', resolve)
    .on('error', reject)
    .connect({ host: host.address, username: 'root', privateKey: readFileSync(inventory.ssh.keyFile) });
  client.setNoDelay(true);
});
const run = (command) =>
  new Promise((resolve, reject) =>
    client.exec(command, (error, stream) => {
      if (error) return reject(error);
      stream.on('close', resolve).resume();
      stream.stderr.resume();
    }),
  );
const commands = { 'true (the session alone)': 'true', ...readCommands, 'all of them (the reads by hand)': readsScript };
console.log(`${host.name}, ${N} runs each: host CPU ms / wall ms per command`);
for (const [name, command] of Object.entries(commands)) {
  await run(command);
  const cpu = usageMs();
  const started = performance.now();
  for (let i = 0; i < N; i++) await run(command);
  console.log(`${((usageMs() - cpu) / N).toFixed(1).padStart(6)} ${((performance.now() - started) / N).toFixed(1).padStart(6)}  ${name}`);
}
client.end();
