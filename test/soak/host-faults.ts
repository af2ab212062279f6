// What the soak does to a lab host, from this machine (never through the host's own sshd, which
// one fault kills): its link cut for a while, every sshd process on it killed, the host killed
// whole and booted again by `kcluster lab up` (a power cycle), or (operations, not faults) a
// clean reboot, a host destroyed (killed, kept down) and its disk wiped. Each returns once
// the fault is done to the host; `healed` settles when the host answers over SSH again, which
// the soak awaits before it resumes.
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { kcluster } from '../integration/support/test-lab.js';
import { sshTo, until } from '../e2e/support/e2e-support.js';
import { hostName, labDir, labUpArgs, LAB_NAME } from './soak-lab.js';
import type { Topology } from './cluster-model.js';

const run = promisify(execFile);
const HEAL_LIMIT_MS = 300_000;

export interface HostFaultDone {
  /** What was done, for the results. */
  readonly what: string;
  /** Settles when the host answers over SSH again (rejects after 5 minutes). */
  readonly healed: Promise<void>;
}

const labCgroup = (host: number): string => `/sys/fs/cgroup/unified/kcluster-lab/${hostName(host)}`;
const vethOf = (host: number): string => `vb-${hostName(host)}`.slice(0, 15);

const ssh = sshTo(labDir);

async function answersSsh(host: number): Promise<void> {
  await until(`${hostName(host)} answers over SSH again`, HEAL_LIMIT_MS, async () =>
    (await ssh(hostName(host), 'true').then(
      () => true,
      () => false,
    ))
      ? true
      : undefined,
  );
}

export async function cutLink(host: number, seconds: number): Promise<HostFaultDone> {
  const veth = vethOf(host);
  await run('ip', ['link', 'set', veth, 'down']);
  const healed = (async () => {
    await new Promise((r) => setTimeout(r, seconds * 1000));
    await run('ip', ['link', 'set', veth, 'up']);
    await answersSsh(host);
  })();
  return { what: `${veth} down for ${seconds} s`, healed };
}

/** Every process under a cgroup directory, at any depth. */
function pidsUnder(dir: string): number[] {
  const pids: number[] = [];
  const walk = (d: string): void => {
    const procs = join(d, 'cgroup.procs');
    if (existsSync(procs)) for (const line of readFileSync(procs, 'utf8').split('\n')) if (line.trim() !== '') pids.push(Number(line));
    for (const entry of readdirSync(d)) {
      const child = join(d, entry);
      if (statSync(child).isDirectory()) walk(child);
    }
  };
  walk(dir);
  return pids;
}

const commOf = (pid: number): string => {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return '';
  }
};

/** The listener and every connection's sshd: systemd starts the listener again (Restart=on-failure). */
export async function killSshd(host: number): Promise<HostFaultDone> {
  const sshds = pidsUnder(labCgroup(host)).filter((pid) => commOf(pid) === 'sshd');
  for (const pid of sshds) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Gone between the listing and the kill: nothing to do.
    }
  }
  return { what: `${sshds.length} sshd process(es) killed`, healed: answersSsh(host) };
}

/** Once the host's last process is gone: booted again by `kcluster lab up`, answering over SSH. */
async function bootAgain(host: number, topology: Topology, stopLimitMs: number): Promise<void> {
  await until(`${hostName(host)}'s processes gone`, stopLimitMs, async () => (pidsUnder(labCgroup(host)).length === 0 ? true : undefined));
  const up = await kcluster(labUpArgs(topology));
  if (up.code !== 0 || !up.stdout.includes(`started again: ${hostName(host)}`))
    throw new Error(`lab up did not boot ${hostName(host)} again (exit ${up.code}): ${up.stderr}${up.stdout}`);
  await answersSsh(host);
}

/** Every process of the host killed at once (its network with it), then the host booted again with its disk. */
export async function powerCycle(host: number, topology: Topology): Promise<HostFaultDone> {
  await run('sh', ['-c', `echo 1 > ${labCgroup(host)}/cgroup.kill`]);
  return { what: `${hostName(host)} killed whole, booted again`, healed: bootAgain(host, topology, 60_000) };
}

/**
 * A clean reboot: systemd inside stops every unit (the kubelet, containerd, etcd) and the
 * container exits, as `systemctl reboot` leaves an nspawn host; then it boots again. Resolves
 * when it answers over SSH.
 */
export async function reboot(host: number, topology: Topology): Promise<void> {
  // The connection ends with the host: its exit status is not the reboot's.
  await ssh(hostName(host), 'systemctl reboot').catch(() => undefined);
  await bootAgain(host, topology, 180_000);
}

/** Every process of the host killed at once, and the host left down: a machine lost for good. */
export async function destroy(host: number): Promise<void> {
  await run('sh', ['-c', `echo 1 > ${labCgroup(host)}/cgroup.kill`]);
  await until(`${hostName(host)}'s processes gone`, 60_000, async () => (pidsUnder(labCgroup(host)).length === 0 ? true : undefined));
}

/** Where the lab keeps a host: its overlay's upper and work layers, its data folders, the mounted root. */
const hostRunDir = (host: number): string => join('/var/lib/kcluster/labs', LAB_NAME, 'hosts', hostName(host));

/**
 * A destroyed host's disk wiped (everything it wrote since the base image: what an operator's
 * reinstall leaves), then booted again: a clean spare. Its SSH host keys are kept, as a
 * reinstall that restores them does, so the pinned key still matches.
 */
export async function wipeAndBoot(host: number, topology: Topology): Promise<void> {
  const dir = hostRunDir(host);
  const keys = join(dir, 'kept-ssh-keys');
  rmSync(keys, { recursive: true, force: true });
  cpSync(join(dir, 'upper', 'etc', 'ssh'), keys, { recursive: true });
  await run('umount', [join(dir, 'root')]).catch(() => undefined);
  for (const layer of ['upper', 'work', 'data']) rmSync(join(dir, layer), { recursive: true, force: true });
  mkdirSync(join(dir, 'upper', 'etc'), { recursive: true });
  cpSync(keys, join(dir, 'upper', 'etc', 'ssh'), { recursive: true });
  rmSync(keys, { recursive: true, force: true });
  await bootAgain(host, topology, 60_000);
}
