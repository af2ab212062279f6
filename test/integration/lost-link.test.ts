// A lost link over real SSH on the lab: one host's link is set down while a task of a user
// playbook runs a long command on it (a `sleep` that neither reads nor writes, so it would
// never notice its session is gone). With the default keepalive settings, the run reports that
// host unreachable within 20 s, naming the command and the task; the other hosts finish; the
// exit code is 5. Once the link is back, the session guard ends the orphaned command within
// 30 s (sshd sends no SIGHUP to a session without a terminal), no guard shell stays behind on
// any host, and a rerun of the demo playbook works.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { kcluster, parseEvents, repoRoot, sshHost, sudoDeployUser, testLab, type TestLab } from './support/test-lab.js';

/** Unique enough to find on a host with ps: the victim's command and its sh. */
const LONG = 'sleep 1207';

function writePlaybook(dir: string): string {
  const file = join(dir, 'lost-link.mjs');
  const library = pathToFileURL(join(repoRoot, 'dist/src/index.js')).href;
  writeFileSync(
    file,
    `import { sh } from ${JSON.stringify(library)};
const victim = process.env.KC_LOST_LINK_HOST;
const hold = {
  name: 'hold the line',
  facts: () => ({}),
  plan: () => ({ kind: 'run', summary: 'run a long command', payload: undefined }),
  verify: false,
  async apply(_change, ctx) {
    if (ctx.host.name !== victim) {
      const r = await ctx.connection.exec(sh\`sleep 2\`);
      if (r.code !== 0) throw new Error('exit ' + r.code);
      return;
    }
    // With KC_LOST_LINK_BOTH, the same command as root through sudo and as the login user.
    const runs = [ctx.connection.exec(sh\`${LONG}\`, { become: true })];
    if (process.env.KC_LOST_LINK_BOTH) runs.push(ctx.connection.exec(sh\`${LONG}\`));
    for (const r of await Promise.all(runs)) if (r.code !== 0) throw new Error('exit ' + r.code);
  },
};
export default {
  name: 'lost-link',
  description: 'a long command on every host (lost-link test)',
  plays: [{ name: 'hold', hosts: 'all', roles: [{ name: 'hold', tasks: [hold] }] }],
};
`,
  );
  return file;
}

/** Lines of `ps` on a host that belong to the long command or to a session guard. */
async function leftovers(lab: TestLab, host: string): Promise<{ command: string[]; guards: string[] }> {
  const r = await sshHost(lab, host, 'ps -eo pid,ppid,pgid,args');
  expect(r.code, r.stderr).toBe(0);
  const lines = r.stdout.split('\n').filter((l) => !l.includes('ps -eo'));
  return { command: lines.filter((l) => l.includes(LONG)), guards: lines.filter((l) => l.includes('kc_line')) };
}

describe('a lost link over real SSH', () => {
  let lab: TestLab;
  let playbook: string;
  beforeAll(() => {
    lab = testLab();
    playbook = writePlaybook(mkdtempSync(join(tmpdir(), 'kc-lost-link-')));
  });

  /** Cuts the victim's link while it runs the long command; checks the report and that nothing stays. */
  async function cutDuringLongCommand(victim: { name: string }, inventory: string, env: NodeJS.ProcessEnv = {}): Promise<void> {
    const veth = `vb-${victim.name}`.slice(0, 15);
    execFileSync('ip', ['link', 'show', veth]);
    expect((await leftovers(lab, victim.name)).command, 'a leftover of an earlier run').toEqual([]);

    const child = spawn(process.execPath, [join(repoRoot, 'bin/kcluster.js'), 'run', playbook, '-i', inventory, '--output', 'json'], {
      env: { ...process.env, CI: 'true', NO_COLOR: '1', KC_LOST_LINK_HOST: victim.name, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let cutAt = 0;
    let noticedAt = 0;
    let onStarted: () => void = () => undefined;
    const started = new Promise<void>((r) => (onStarted = r));
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const events = parseEvents(stdout.slice(0, stdout.lastIndexOf('\n') + 1));
      if (events.some((e) => e['type'] === 'task-start' && e['host'] === victim.name)) onStarted();
      if (cutAt && !noticedAt && events.some((e) => e['type'] === 'host-unreachable' && e['host'] === victim.name)) noticedAt = Date.now();
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const done = new Promise<number | null>((r) => child.on('close', (code) => r(code)));

    await started;
    // The long command is running on the victim before its link goes down.
    const deadline = Date.now() + 10_000;
    while ((await leftovers(lab, victim.name)).command.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    expect((await leftovers(lab, victim.name)).command.length, `${LONG} never started on ${victim.name}`).toBeGreaterThan(0);

    execFileSync('ip', ['link', 'set', veth, 'down']);
    cutAt = Date.now();
    let code: number | null;
    try {
      code = await done;
    } finally {
      execFileSync('ip', ['link', 'set', veth, 'up']);
    }
    const upAt = Date.now();
    const noticeMs = (noticedAt || upAt) - cutAt;
    console.log(`lost link: ${victim.name} reported unreachable ${noticeMs} ms after its link went down; the run ended after ${upAt - cutAt} ms`);
    expect(code, stderr).toBe(5);
    expect(noticedAt, 'no host-unreachable event for the victim').toBeGreaterThan(0);
    expect(noticeMs).toBeLessThan(20_000);

    const events = parseEvents(stdout);
    const unreachable = events.find((e) => e['type'] === 'host-unreachable' && e['host'] === victim.name) as { error: string };
    // What it was doing: the command, the task, and why it is unreachable.
    expect(unreachable.error).toContain(`the connection dropped while running \`${LONG}\``);
    expect(unreachable.error).toContain('hold / hold the line');
    expect(unreachable.error).toMatch(/no answer to 3 keepalives in 15 s/);
    const end = events.find((e) => e['type'] === 'run-end') as {
      summary: { hosts: { host: string; unreachable: boolean; failed: number; changed: number }[] };
    };
    expect(end.summary.hosts.find((h) => h.host === victim.name)?.unreachable).toBe(true);
    for (const other of lab.hosts.filter((h) => h.name !== victim.name)) {
      const h = end.summary.hosts.find((x) => x.host === other.name);
      expect(h?.failed, other.name).toBe(0);
      expect(h?.unreachable, other.name).toBe(false);
      expect(h?.changed, other.name).toBe(1);
    }

    // Once the link is back, sshd learns the session is gone and the guard ends the command.
    let left = await leftovers(lab, victim.name);
    while (left.command.length > 0 && Date.now() - upAt < 30_000) {
      await new Promise((r) => setTimeout(r, 500));
      left = await leftovers(lab, victim.name);
    }
    console.log(`lost link: guards on ${victim.name} when the command was gone: ${left.guards.length}`);
    console.log(
      `lost link: ${left.command.length === 0 ? `nothing left on ${victim.name} ${Date.now() - upAt} ms after the link came back` : `still running: ${left.command.join(' | ')}`}`,
    );
    expect(left.command, `left running on ${victim.name} 30 s after the link came back`).toEqual([]);

    // A normal run afterwards works, and no guard outlives its run on any host.
    const rerun = await kcluster(['run', 'demo', '-i', lab.inventoryFile, '--output', 'json']);
    expect(rerun.code, rerun.stderr).toBe(0);
    // (A guard exits once it read the goodbye, or a second after its TERM pass: allow it a moment.)
    const rerunEnd = Date.now();
    for (const h of lab.hosts) {
      let guards = (await leftovers(lab, h.name)).guards;
      while (guards.length > 0 && Date.now() - rerunEnd < 10_000) {
        await new Promise((r) => setTimeout(r, 250));
        guards = (await leftovers(lab, h.name)).guards;
      }
      if (Date.now() - rerunEnd > 1_000) console.log(`lost link: guards on ${h.name} gone ${Date.now() - rerunEnd} ms after the rerun`);
      expect(guards, `guard left on ${h.name}`).toEqual([]);
    }
  }

  it('is noticed within 20 s by default, names what the host was doing, and leaves nothing running on it once the link is back', async () => {
    await cutDuringLongCommand(lab.hosts[0]!, lab.inventoryFile);
  }, 180_000);

  it("leaves nothing behind either for a login user through sudo with a password (root's and the user's commands)", async () => {
    const host = lab.hosts[1]!;
    const password = "l0st 'link' $(x)";
    // A deploy user whose sudo asks for a password (sh is dash).
    const inventory = await sudoDeployUser(lab, host.name, password);
    await cutDuringLongCommand(host, inventory, { KC_TEST_SUDO_PASSWORD: password, KC_LOST_LINK_BOTH: '1' });
  }, 180_000);
});
