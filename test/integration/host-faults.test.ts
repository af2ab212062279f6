// Host faults over real SSH on the lab, while a task of a user playbook runs a slow command on
// one host (a `sleep` that neither reads nor writes): its sshd killed (listener and sessions), or
// the whole host frozen (every process of it stopped with SIGSTOP: it stops answering like a
// host that hangs or lost power, without taking the lab down). Each asserts the exit code (5),
// the time to notice, the recap (the others finish), nothing left running on the host once it
// answers again, and a rerun that converges, then changes nothing.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { inventoryVariant, kcluster, parseEvents, repoRoot, sshHost, testLab, type TestLab } from './support/test-lab.js';

/** Unique enough to find with ps on a host. */
const SLOW = 'sleep 1309';
const DONE = '/var/tmp/kc-fault-done';
/** A command that prints nothing, for the idle timeout. */
const IDLE = 'sleep 1511';

/** A converging playbook: a file, then a slow step that runs once (until DONE exists). */
function writePlaybook(dir: string): string {
  const file = join(dir, 'faults.mjs');
  const library = pathToFileURL(join(repoRoot, 'dist/src/index.js')).href;
  writeFileSync(
    file,
    `import { managedFile, sh } from ${JSON.stringify(library)};
const victim = process.env.KC_FAULT_HOST;
const slow = {
  name: 'slow step',
  facts: () => ({ done: { key: 'kc-fault-done', script: sh\`[ -e ${DONE} ] && echo yes || echo no\`, parse: (out) => out.trim() === 'yes' } }),
  plan: (facts) => (facts.done ? { kind: 'none', reason: 'done' } : { kind: 'run', summary: 'the slow step', payload: undefined }),
  async apply(_change, ctx) {
    const r = await ctx.connection.exec(ctx.host.name === victim ? sh\`${SLOW} && touch ${DONE}\` : sh\`sleep 1 && touch ${DONE}\`, { timeoutMs: 600_000 });
    if (r.code !== 0) throw new Error('exit ' + r.code);
  },
};
export default {
  name: 'faults',
  description: 'a file and a slow step on every host (host fault tests)',
  plays: [{ name: 'faults', hosts: 'all', roles: [{ name: 'faults', tasks: [managedFile({ path: '/var/tmp/kc-fault-file', mode: 0o644, content: () => 'fault test\\n' }), slow] }] }],
};
`,
  );
  return file;
}

/** One host runs a silent command, another one that prints every second: for ssh.commandIdleTimeout. */
function writeIdlePlaybook(dir: string): string {
  const file = join(dir, 'idle.mjs');
  const library = pathToFileURL(join(repoRoot, 'dist/src/index.js')).href;
  writeFileSync(
    file,
    `import { sh } from ${JSON.stringify(library)};
const quiet = {
  name: 'quiet or chatty',
  facts: () => ({}),
  plan: () => ({ kind: 'run', summary: 'a long command', payload: undefined }),
  verify: false,
  async apply(_change, ctx) {
    const command = ctx.host.name === process.env.KC_QUIET_HOST ? sh\`${IDLE}\` : sh\`for i in 1 2 3 4 5; do echo $i; sleep 1; done\`;
    const r = await ctx.connection.exec(command);
    if (r.code !== 0) throw new Error('exit ' + r.code);
  },
};
export default { name: 'idle', description: 'ssh.commandIdleTimeout test', plays: [{ name: 'idle', hosts: 'all', roles: [{ name: 'idle', tasks: [quiet] }] }] };
`,
  );
  return file;
}

/** The victim's pid 1 as this machine sees it (lab hosts are systemd-nspawn containers). */
function initPid(lab: TestLab, host: string): number {
  const runDir = (JSON.parse(readFileSync(join(lab.dir, 'lab.json'), 'utf8')) as { runDir: string }).runDir;
  const nspawn = readFileSync(join(runDir, 'hosts', host, 'pid'), 'utf8').trim();
  const children = spawnSync('pgrep', ['-P', nspawn], { encoding: 'utf8' });
  const init = Number(children.stdout.trim().split('\n')[0]);
  if (!Number.isInteger(init) || init <= 0) {
    throw new Error(`${host}: no child of its systemd-nspawn (pid ${nspawn}, pgrep exit ${children.status}): is the lab host running? (${lab.dir})`);
  }
  return init;
}

/** Every process of a lab host (its cgroups), for SIGSTOP and SIGCONT. */
function hostPids(lab: TestLab, host: string): number[] {
  const runDir = (JSON.parse(readFileSync(join(lab.dir, 'lab.json'), 'utf8')) as { runDir: string }).runDir;
  const root = readFileSync(join(runDir, 'hosts', host, 'cgroups'), 'utf8')
    .trim()
    .split(' ')[0]!;
  const pids = new Set<number>();
  if (!existsSync(join(root, 'cgroup.procs')))
    throw new Error(`${host}: its cgroup ${root} has no cgroup.procs (from ${join(runDir, 'hosts', host, 'cgroups')})`);
  const walk = (dir: string): void => {
    for (const pid of readFileSync(join(dir, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean)) pids.add(Number(pid));
    for (const entry of readdirSync(dir)) if (statSync(join(dir, entry)).isDirectory()) walk(join(dir, entry));
  };
  walk(root);
  return [...pids];
}

async function slowLeft(lab: TestLab, host: string): Promise<string[]> {
  const r = await sshHost(lab, host, 'ps -eo pid,args');
  expect(r.code, r.stderr).toBe(0);
  return r.stdout.split('\n').filter((l) => l.includes(SLOW) && !l.includes('ps -eo'));
}

describe('host faults over real SSH', () => {
  let lab: TestLab;
  let playbook: string;
  beforeAll(() => {
    lab = testLab();
    playbook = writePlaybook(mkdtempSync(join(tmpdir(), 'kc-faults-')));
  });

  async function faultDuringSlowStep(victim: string, fault: () => void, recover: () => void, noticeWithinMs: number): Promise<void> {
    for (const h of lab.hosts) await sshHost(lab, h.name, `rm -f ${DONE} /var/tmp/kc-fault-file`);
    const child = spawn(process.execPath, [join(repoRoot, 'bin/kcluster.js'), 'run', playbook, '-i', lab.inventoryFile, '--output', 'json'], {
      env: { ...process.env, CI: 'true', NO_COLOR: '1', KC_FAULT_HOST: victim },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let faultAt = 0;
    let noticedAt = 0;
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (
        faultAt &&
        !noticedAt &&
        parseEvents(stdout.slice(0, stdout.lastIndexOf('\n') + 1)).some((e) => e['type'] === 'host-unreachable' && e['host'] === victim)
      )
        noticedAt = Date.now();
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const done = new Promise<number | null>((r) => child.on('close', (code) => r(code)));
    const deadline = Date.now() + 20_000;
    while ((await slowLeft(lab, victim)).length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    expect((await slowLeft(lab, victim)).length, `${SLOW} never started on ${victim}`).toBeGreaterThan(0);

    let code: number | null;
    try {
      fault();
      faultAt = Date.now();
      code = await done;
    } finally {
      // Whatever failed, the host runs again and no run of this test is left holding the lock.
      recover();
      if (child.exitCode === null) child.kill('SIGKILL');
    }
    const noticeMs = (noticedAt || Date.now()) - faultAt;
    console.log(`host fault on ${victim}: reported unreachable after ${noticeMs} ms`);
    expect(code, stderr).toBe(5);
    expect(noticedAt, 'no host-unreachable event for the victim').toBeGreaterThan(0);
    expect(noticeMs).toBeLessThan(noticeWithinMs);
    const end = parseEvents(stdout).find((e) => e['type'] === 'run-end') as {
      summary: { hosts: { host: string; unreachable: boolean; failed: number; changed: number }[] };
    };
    expect(end.summary.hosts.find((h) => h.host === victim)?.unreachable).toBe(true);
    for (const other of lab.hosts.filter((h) => h.name !== victim)) {
      expect(
        end.summary.hosts.find((h) => h.host === other.name),
        other.name,
      ).toMatchObject({ failed: 0, unreachable: false, changed: 2 });
    }

    // Once the host answers again, nothing of the run is left on it.
    const backAt = Date.now();
    let left: string[] = ['?'];
    while (Date.now() - backAt < 30_000) {
      const r = await sshHost(lab, victim, 'true');
      if (r.code === 0) {
        left = await slowLeft(lab, victim);
        if (left.length === 0) break;
      }
      await new Promise((r) => setTimeout(r, 500));
    }
    console.log(
      `host fault on ${victim}: ${left.length === 0 ? `nothing left ${Date.now() - backAt} ms after it answered again` : `still running: ${left.join(' | ')}`}`,
    );
    expect(left, `left running on ${victim}`).toEqual([]);

    // A rerun converges (the victim's slow step runs again), and the next one changes nothing.
    const rerun = await kcluster(['run', playbook, '-i', lab.inventoryFile, '--output', 'json'], { KC_FAULT_HOST: 'nobody' });
    expect(rerun.code, rerun.stderr).toBe(0);
    const again = await kcluster(['run', playbook, '-i', lab.inventoryFile, '--output', 'json'], { KC_FAULT_HOST: 'nobody' });
    expect(again.code, again.stderr).toBe(0);
    const recap = (parseEvents(again.stdout).find((e) => e['type'] === 'run-end') as { summary: { hosts: { host: string; changed: number }[] } }).summary.hosts;
    expect(recap.map((h) => h.changed)).toEqual(lab.hosts.map(() => 0));
    for (const h of lab.hosts) await sshHost(lab, h.name, `rm -f ${DONE} /var/tmp/kc-fault-file`);
  }

  it('sshd killed on a host mid-command: unreachable within 5 s, the others finish, nothing left once sshd is back', async () => {
    const victim = lab.hosts[2]!.name;
    const init = initPid(lab, victim);
    const inHost = (...args: string[]) => execFileSync('nsenter', ['-t', String(init), '-m', '-u', '-i', '-n', '-p', '--', ...args], { encoding: 'utf8' });
    await faultDuringSlowStep(
      victim,
      () => {
        // Stop the unit first so systemd does not restart the listener at once, then kill every sshd.
        inHost('systemctl', 'kill', '--signal=KILL', 'ssh.service');
        inHost('sh', '-c', 'pkill -KILL -x sshd; true');
      },
      () => inHost('systemctl', 'restart', 'ssh.service'),
      5_000,
    );
  }, 180_000);

  it('a host that stops answering (every process frozen) mid-command: unreachable within 20 s by default, nothing left once it runs again', async () => {
    const victim = lab.hosts[1]!.name;
    let frozen: number[] = [];
    await faultDuringSlowStep(
      victim,
      () => {
        frozen = hostPids(lab, victim);
        for (const pid of frozen) {
          try {
            process.kill(pid, 'SIGSTOP');
          } catch {
            // gone meanwhile
          }
        }
      },
      () => {
        for (const pid of frozen) {
          try {
            process.kill(pid, 'SIGCONT');
          } catch {
            // gone meanwhile
          }
        }
      },
      20_000,
    );
  }, 180_000);

  it('a command silent for ssh.commandIdleTimeout is stopped: its host fails with the reason, a chatty one goes on, nothing is left', async () => {
    const victim = lab.hosts[0]!.name;
    const inventory = inventoryVariant(lab, (doc) => {
      doc['ssh'] = { ...(doc['ssh'] as object), commandIdleTimeout: '2s' };
    });
    const playbookFile = writeIdlePlaybook(mkdtempSync(join(tmpdir(), 'kc-idle-')));
    const started = Date.now();
    const run = await kcluster(['run', playbookFile, '-i', inventory, '--output', 'json'], { KC_QUIET_HOST: victim });
    const took = Date.now() - started;
    console.log(`idle timeout: run ended after ${took} ms`);
    expect(run.code).toBe(4);
    const failed = parseEvents(run.stdout).find((e) => e['type'] === 'host-failed' && e['host'] === victim) as { error: string } | undefined;
    expect(failed?.error).toContain('printed nothing and read nothing for 2 s and was stopped (ssh.commandIdleTimeout)');
    const end = parseEvents(run.stdout).find((e) => e['type'] === 'run-end') as { summary: { hosts: { host: string; failed: number; changed: number }[] } };
    for (const other of lab.hosts.filter((h) => h.name !== victim))
      expect(
        end.summary.hosts.find((h) => h.host === other.name),
        other.name,
      ).toMatchObject({ failed: 0, changed: 1 });
    let left: string[] = ['?'];
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      const r = await sshHost(lab, victim, 'ps -eo pid,args');
      left = r.stdout.split('\n').filter((l) => l.includes(IDLE) && !l.includes('ps -eo'));
      if (left.length === 0) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(left, `left running on ${victim}`).toEqual([]);
  }, 60_000);
});
