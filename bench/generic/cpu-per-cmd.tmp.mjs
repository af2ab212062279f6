import { readFileSync } from 'node:fs';
import ssh2 from 'ssh2';
import { parse } from 'yaml';
const inventory = parse(readFileSync(process.argv[2], 'utf8'));
const h = inventory.hosts[0];
const usage = () => Number(/usage_usec (\d+)/.exec(readFileSync(`/sys/fs/cgroup/unified/kcluster-lab/${h.name}/cpu.stat`, 'utf8'))[1]);
const client = new ssh2.Client();
await new Promise((r, j) => client.on('ready', () => { if (process.env.NODELAY) client.setNoDelay(true); r(); }).on('error', j).connect({ host: h.address, username: 'root', privateKey: readFileSync(inventory.ssh.keyFile) }));
const run = (cmd) => new Promise((r, j) => client.exec(cmd, (e, s) => { if (e) return j(e); let out=''; s.on('data', d => out += d).on('close', () => r(out)).stderr.resume(); }));
const cmds = JSON.parse(readFileSync(process.argv[3], 'utf8'));
const N = +(process.env.N ?? 40);
for (const [name, cmd] of Object.entries(cmds)) {
  await run(cmd);
  const u0 = usage(), t0 = performance.now();
  for (let i = 0; i < N; i++) await run(cmd);
  console.log(name.padEnd(20), ((usage() - u0) / N / 1000).toFixed(2), 'ms cpu', ((performance.now() - t0) / N).toFixed(2), 'ms wall');
}
client.end();
