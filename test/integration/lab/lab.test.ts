// `kcluster lab`: real hosts come up (distinct identities, isolated files, working systemd,
// strict host keys) and `lab down` leaves nothing behind. Runs before the shared test lab, on
// its own subnet.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { kcluster } from '../support/test-lab.js';

const NAME = 'kclab';
const SUBNET = '10.231.1.0/24';
const home = join(homedir(), '.kcluster', 'labs', NAME);
const runDir = `/var/lib/kcluster/labs/${NAME}`;

function ssh(host: string, command: string): string {
  return execFileSync('ssh', ['-F', join(home, 'ssh_config'), '-o', 'StrictHostKeyChecking=yes', host, command], { encoding: 'utf8' });
}

/** Everything a lab could leave behind, as a list of findings (empty = clean). */
function leftovers(): string[] {
  const found: string[] = [];
  const ps = execFileSync('ps', ['-eo', 'pid,args'], { encoding: 'utf8' });
  for (const line of ps.split('\n')) if (line.includes(`--machine=${NAME}`) || line.includes(`${runDir}/`)) found.push(`process: ${line.trim()}`);
  for (const line of readFileSync('/proc/mounts', 'utf8').split('\n')) if (line.includes(runDir)) found.push(`mount: ${line}`);
  const links = execFileSync('ip', ['-o', 'link', 'show'], { encoding: 'utf8' });
  if (links.includes(`kc-${NAME}`)) found.push('bridge kc-kclab');
  if (/vb-kclab/.test(links)) found.push('veth vb-kclab*');
  for (const c of readdirSync('/sys/fs/cgroup')) {
    const dir = join('/sys/fs/cgroup', c, 'kcluster-lab');
    if (existsSync(dir)) for (const h of readdirSync(dir)) if (h.startsWith(NAME)) found.push(`cgroup ${dir}/${h}`);
  }
  if (existsSync('/run/systemd/nspawn/propagate'))
    for (const p of readdirSync('/run/systemd/nspawn/propagate')) if (p.startsWith(NAME)) found.push(`propagate dir ${p}`);
  if (existsSync(runDir)) found.push(`runtime dir ${runDir}`);
  if (existsSync(join(home, 'inventory.yaml'))) found.push('inventory file');
  if (existsSync(join(home, 'state'))) found.push('cluster state folder');
  return found;
}

describe('kcluster lab (3 real hosts)', () => {
  afterAll(async () => {
    await kcluster(['lab', 'down', '--name', NAME]);
  });

  it('brings up hosts reachable over ssh with strict host key checking, each its own machine', async () => {
    const up = await kcluster(['lab', 'up', '--name', NAME, '--hosts', '3', '--subnet', SUBNET]);
    expect(up.stderr).toBe('');
    expect(up.code).toBe(0);
    expect(up.stdout).toContain(join(home, 'inventory.yaml'));
    const hosts = ['kclab1', 'kclab2', 'kclab3'];
    expect(hosts.map((h) => ssh(h, 'hostname').trim())).toEqual(hosts);
    const ids = hosts.map((h) => ssh(h, 'cat /etc/machine-id').trim());
    expect(new Set(ids).size).toBe(3);
    ssh('kclab1', 'echo only-here > /root/isolation-probe');
    expect(ssh('kclab1', 'cat /root/isolation-probe')).toBe('only-here\n');
    for (const h of ['kclab2', 'kclab3']) expect(ssh(h, 'test -e /root/isolation-probe && echo present || echo absent').trim()).toBe('absent');
    for (const h of hosts) expect(['running', 'degraded']).toContain(ssh(h, 'systemctl is-system-running || true').trim());
    const inventory = parse(readFileSync(join(home, 'inventory.yaml'), 'utf8')) as { hosts: { name: string; address: string; roles: string[] }[] };
    expect(inventory.hosts).toEqual([
      { name: 'kclab1', address: '10.231.1.11', roles: ['control-plane'] },
      { name: 'kclab2', address: '10.231.1.12', roles: ['worker'] },
      { name: 'kclab3', address: '10.231.1.13', roles: ['worker'] },
    ]);
    // Without --bundle the lab's inventory takes release images, which need a source apply
    // checks (and validate with it): the inventory itself is valid when that is all it lacks.
    const validated = await kcluster(['validate', '-i', join(home, 'inventory.yaml')]);
    if (validated.code !== 0) expect(validated.stderr).toMatch(/^kcluster: \S+: \d+ artifact problems? \(release downloads\)/);
    const again = await kcluster(['lab', 'up', '--name', NAME, '--hosts', '3', '--subnet', SUBNET]);
    expect(again.stdout).toContain('already up');
    const other = await kcluster(['lab', 'up', '--name', NAME, '--hosts', '2', '--subnet', SUBNET]);
    expect(other.code).toBe(2);
    expect(other.stderr).toContain('lab down --name kclab');
    const clash = await kcluster(['lab', 'up', '--name', 'kcother', '--hosts', '1', '--subnet', SUBNET]);
    expect(clash.code).toBe(2);
    expect(clash.stderr).toContain('the subnet 10.231.1.0/24 is already in use on this machine');
  });

  it('boots a host killed whole again on `lab up`, with the disk it had, and leaves the others running', async () => {
    ssh('kclab2', 'echo kept > /root/disk-probe');
    const otherPid = readFileSync(join(runDir, 'hosts', 'kclab3', 'pid'), 'utf8');
    const pidFile = join(runDir, 'hosts', 'kclab2', 'pid');
    const pid = Number(readFileSync(pidFile, 'utf8'));
    execFileSync('sh', ['-c', `echo 1 > /sys/fs/cgroup/unified/kcluster-lab/kclab2/cgroup.kill`]);
    for (let i = 0; i < 100 && existsSync(`/proc/${pid}`) && !readFileSync(`/proc/${pid}/stat`, 'utf8').split(' ')[2]!.startsWith('Z'); i++)
      await new Promise((r) => setTimeout(r, 100));
    const status = JSON.parse((await kcluster(['lab', 'status', '--name', NAME, '--output', 'json'])).stdout) as { hosts: { running: boolean }[] }[];
    expect(status[0]!.hosts.map((h) => h.running)).toEqual([true, false, true]);
    // A group the dead boot left behind (the kubelet's pods leave many): gone when the host boots
    // again, as on a machine, or its kubelet spends minutes on them.
    const stale = '/sys/fs/cgroup/unified/kcluster-lab/kclab2/left-by-the-last-boot';
    execFileSync('mkdir', ['-p', stale]);
    const up = await kcluster(['lab', 'up', '--name', NAME, '--hosts', '3', '--subnet', SUBNET]);
    expect(up.code, up.stderr).toBe(0);
    expect(up.stdout).toContain('started again: kclab2');
    expect(existsSync(stale)).toBe(false);
    expect(ssh('kclab2', 'cat /root/disk-probe')).toBe('kept\n');
    expect(Number(readFileSync(pidFile, 'utf8'))).not.toBe(pid);
    // The host that kept running was not started again.
    expect(readFileSync(join(runDir, 'hosts', 'kclab3', 'pid'), 'utf8')).toBe(otherPid);
    expect(ssh('kclab3', 'hostname').trim()).toBe('kclab3');
  });

  it('reports status, then `lab down` leaves no process, mount, bridge, veth, cgroup or directory', async () => {
    const status = await kcluster(['lab', 'status', '--name', NAME, '--output', 'json']);
    const labs = JSON.parse(status.stdout) as { hosts: { running: boolean }[] }[];
    expect(labs[0]!.hosts.map((h) => h.running)).toEqual([true, true, true]);
    // A run writes the lab cluster's state (its debug log) beside the lab, never in ~/.kcluster/kclab.
    const run = await kcluster(['run', 'demo', '-i', join(home, 'inventory.yaml'), '--limit', 'kclab1', '--check']);
    expect([0, 3], run.stderr).toContain(run.code);
    expect(readdirSync(join(home, 'state', 'logs')).length).toBeGreaterThan(0);
    expect(existsSync(join(homedir(), '.kcluster', NAME))).toBe(false);
    expect(leftovers().length).toBeGreaterThan(0);
    const down = await kcluster(['lab', 'down', '--name', NAME]);
    expect(down.code).toBe(0);
    expect(leftovers()).toEqual([]);
  });

  it('refuses bad input with a clear message', async () => {
    expect((await kcluster(['lab', 'up', '--name', 'Bad_Name'])).stderr).toContain('must be 1-10 lowercase letters and digits');
    expect((await kcluster(['lab', 'up', '--name', NAME, '--subnet', '10.231.1.0/16'])).stderr).toContain('--subnet must be an IPv4 /24');
  });
});
