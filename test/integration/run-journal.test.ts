// The run journal and `kcluster status` over real SSH on the lab: a three-play playbook (the
// middle play one host at a time, its first task slow) is stopped with SIGINT, then SIGKILL,
// at its slow task, as seen in the `--output json` stream. `status` names the run interrupted
// (or not finished), the task in flight and the plays each host had left; the command it says
// to run next finishes the run, and `status` then says completed. A --check run is not
// journaled. Each run's journal files are copied to KC_JOURNAL_FIXTURES when it is set (how
// test/fixtures/journal/ was made for the unit tests of the rendering).
import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inventoryVariant, kcluster, parseEvents, repoRoot, sshHost, testLab, type TestLab } from './support/test-lab.js';

const FILES = ['/var/tmp/kc-journal-a', '/var/tmp/kc-journal-b', '/var/tmp/kc-journal-b2', '/var/tmp/kc-journal-c'];
const SLOW_TASK = 'slow write /var/tmp/kc-journal-b';

/** A user playbook: prepare (all hosts), slow (one host at a time, its first task 1.5 s), finish. */
function writePlaybook(dir: string): string {
  const file = join(dir, 'journal-demo.mjs');
  const library = pathToFileURL(join(repoRoot, 'dist/src/index.js')).href;
  writeFileSync(
    file,
    `import { managedFile } from ${JSON.stringify(library)};
const generation = process.env.KC_JOURNAL_GENERATION ?? 'one';
const file = (path) => managedFile({ path, mode: 0o644, content: () => generation + '\\n' });
const slowFile = file('/var/tmp/kc-journal-b');
const slow = { ...slowFile, name: ${JSON.stringify(SLOW_TASK)}, apply: async (change, ctx) => { await new Promise((r) => setTimeout(r, 1500)); await slowFile.apply(change, ctx); } };
export default {
  name: 'journal-demo',
  description: 'three plays, the middle one slow and one host at a time (run-journal test)',
  plays: [
    { name: 'prepare', hosts: 'all', roles: [{ name: 'prepare', tasks: [file('/var/tmp/kc-journal-a')] }] },
    { name: 'slow', hosts: 'all', serial: 1, roles: [{ name: 'slow', tasks: [slow, file('/var/tmp/kc-journal-b2')] }] },
    { name: 'finish', hosts: 'all', roles: [{ name: 'finish', tasks: [file('/var/tmp/kc-journal-c')] }] },
  ],
};
`,
  );
  return file;
}

interface Applied {
  play: string;
  role: string;
  kind: string;
  name: string;
  error?: string;
}
interface HostOutcome {
  host: string;
  changed: Applied[];
  failed: Applied[];
  left: string[];
  inFlight?: { play: string; role: string; task?: string };
  plays: { play: string; state: string }[];
}
interface Detail {
  id: string;
  command: string;
  argv: string[];
  cwd: string;
  result: string;
  finished: boolean;
  interruptedAt?: string;
  hosts: HostOutcome[];
  next?: string;
}
interface Status {
  journal: string;
  runs: { id: string; result: string; command: string }[];
  last: Detail;
}

/** Starts a run and sends `signal` once the slow task has started on the first host. */
async function runStoppedAtSlowTask(
  args: readonly string[],
  signal: NodeJS.Signals,
  generation: string,
): Promise<{ code: number | null; events: Record<string, unknown>[]; ms: number }> {
  const started = Date.now();
  const child = spawn(process.execPath, [join(repoRoot, 'bin/kcluster.js'), ...args, '--output', 'json'], {
    env: { ...process.env, CI: 'true', NO_COLOR: '1', KC_JOURNAL_GENERATION: generation },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let sent = false;
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    if (sent || !stdout.includes(`"task":${JSON.stringify(SLOW_TASK)}`)) return;
    if (parseEvents(stdout.slice(0, stdout.lastIndexOf('\n') + 1)).some((e) => e['type'] === 'task-start' && e['task'] === SLOW_TASK)) {
      sent = true;
      child.kill(signal);
    }
  });
  child.stderr.on('data', () => undefined);
  const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
  expect(sent, 'the slow task never started').toBe(true);
  return { code, events: parseEvents(stdout.slice(0, stdout.lastIndexOf('\n') + 1)), ms: Date.now() - started };
}

describe('run journal and kcluster status over real SSH', () => {
  let lab: TestLab;
  let playbook: string;
  let inventory: string;
  let stateDir: string;
  let args: string[];
  const fixtures = process.env['KC_JOURNAL_FIXTURES'];

  const status = async (...extra: string[]): Promise<Status> => {
    const r = await kcluster(['status', '-i', inventory, '-o', 'json', ...extra]);
    expect(r.code, r.stderr).toBe(0);
    return JSON.parse(r.stdout) as Status;
  };
  const journalFiles = (): string[] => readdirSync(join(stateDir, 'journal')).sort();
  const keep = (name: string): void => {
    if (fixtures === undefined) return;
    mkdirSync(fixtures, { recursive: true });
    const newest = journalFiles().at(-1)!;
    copyFileSync(join(stateDir, 'journal', newest), join(fixtures, `${name}.jsonl`));
  };

  beforeAll(async () => {
    lab = testLab();
    const dir = mkdtempSync(join(tmpdir(), 'kc-journal-'));
    playbook = writePlaybook(dir);
    stateDir = join(dir, 'state');
    inventory = inventoryVariant(lab, (doc) => {
      doc['stateDir'] = stateDir;
    });
    args = ['run', playbook, '-i', inventory];
    await Promise.all(lab.hosts.map((h) => sshHost(lab, h.name, `rm -f ${FILES.join(' ')}`)));
  });

  afterAll(async () => {
    for (const h of lab?.hosts ?? []) await sshHost(lab, h.name, `rm -f ${FILES.join(' ')}`);
  });

  it('says clearly that there is no journal yet, and a --check run writes none', async () => {
    const none = await kcluster(['status', '-i', inventory]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain(`no run journal yet in ${join(stateDir, 'journal')}`);
    expect(none.stderr).toContain('--check runs do not');
    const check = await kcluster([...args, '--check']);
    expect(check.code, check.stderr).toBe(3);
    expect((await kcluster(['status', '-i', inventory])).code).toBe(2);
  });

  it('SIGINT at the slow task: status names the run interrupted, the task in flight and the plays left; the next command finishes it', async () => {
    const stopped = await runStoppedAtSlowTask(args, 'SIGINT', 'one');
    expect(stopped.code).toBe(130);
    keep('interrupted');
    const [first, ...others] = lab.hosts.map((h) => h.name);
    const after = await status();
    expect(after.last.result).toBe('interrupted');
    expect(after.last.finished).toBe(true);
    expect(after.last.interruptedAt).toBeDefined();
    const byHost = new Map(after.last.hosts.map((h) => [h.host, h]));
    expect(byHost.get(first!)!.inFlight).toEqual({ play: 'slow', role: 'slow', task: SLOW_TASK });
    // The slow task's write, after the signal, is cancelled (the task fails saying so); the others never began the play.
    expect(byHost.get(first!)!.changed.map((c) => c.name)).toEqual(['file /var/tmp/kc-journal-a']);
    expect(byHost.get(first!)!.failed.map((c) => [c.name, c.error])).toEqual([[SLOW_TASK, expect.stringContaining('was cancelled before it started')]]);
    expect(byHost.get(first!)!.plays.map((p) => p.state)).toEqual(['done', 'failed', 'not started']);
    expect(byHost.get(first!)!.left).toEqual(['slow', 'finish']);
    for (const host of others) {
      expect(
        byHost.get(host!)!.changed.map((c) => c.name),
        host,
      ).toEqual(['file /var/tmp/kc-journal-a']);
      expect(byHost.get(host!)!.left, host).toEqual(['slow', 'finish']);
    }
    expect(after.last.next).toBe(after.last.command);
    expect(after.last.argv).toEqual([...args, '--output', 'json']);

    const text = await kcluster(['status', '-i', inventory]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain('interrupted (Ctrl-C or SIGTERM)');
    expect(text.stdout).toContain(`in flight: play "slow", role slow, task "${SLOW_TASK}"`);
    expect(text.stdout).toContain(`Hosts that did not finish their plays: ${lab.hosts.map((h) => h.name).join(', ')}.`);
    expect(text.stdout).toContain(`  ${after.last.command}\n`);

    // The next command, as status gives it (its argv), converges what was left.
    const rerun = await kcluster(after.last.argv, { KC_JOURNAL_GENERATION: 'one' });
    expect(rerun.code, rerun.stderr).toBe(0);
    keep('completed');
    const done = await status();
    expect(done.last.result).toBe('completed');
    expect(done.last.next).toBeUndefined();
    for (const h of done.last.hosts) expect(h.left, h.host).toEqual([]);
    expect(done.runs.map((r) => r.result)).toEqual(['completed', 'interrupted']);
    const doneText = await kcluster(['status', '-i', inventory]);
    expect(doneText.stdout).toMatch(/: completed in \d+\.\d s\.\n/);
    expect(doneText.stdout).not.toContain('Run next');
    for (const h of lab.hosts) for (const path of FILES) expect((await sshHost(lab, h.name, `cat ${path}`)).stdout, `${h.name}:${path}`).toBe('one\n');
  }, 120_000);

  it('SIGKILL at the slow task: status says the run did not finish, where each host was, and --run shows it in detail', async () => {
    const before = journalFiles().length;
    const killed = await runStoppedAtSlowTask(args, 'SIGKILL', 'two');
    expect(killed.code).toBeNull();
    keep('killed');
    const after = await status();
    expect(after.last.result).toBe('did not finish');
    expect(after.last.finished).toBe(false);
    const first = after.last.hosts.find((h) => h.host === lab.hosts[0]!.name)!;
    expect(first.inFlight).toEqual({ play: 'slow', role: 'slow' });
    expect(first.plays.map((p) => p.state)).toEqual(['done', 'in flight', 'not started']);
    const detail = await kcluster(['status', '-i', inventory, '--run', after.last.id.slice(0, 23)]);
    expect(detail.code, detail.stderr).toBe(0);
    expect(detail.stdout).toContain('did not finish: no end record');
    expect(detail.stdout).toContain('in flight: play "slow", role slow\n');
    const rerun = await kcluster(after.last.argv, { KC_JOURNAL_GENERATION: 'two' });
    expect(rerun.code, rerun.stderr).toBe(0);
    expect((await status()).last.result).toBe('completed');
    expect(journalFiles()).toHaveLength(before + 2);
  }, 120_000);
});
