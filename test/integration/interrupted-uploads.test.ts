// Interrupted uploads over real SSH on the lab: a run that writes large managed files on every
// host is cut mid-upload (SIGKILL of the controller, SIGINT, SIGTERM, the network link of one
// host set down). After each, every managed file on every host holds either the old or the new
// content, never a prefix, no temp file stays behind, and a rerun converges with a second one
// changing nothing. A second run started meanwhile is refused by the state lock.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inventoryVariant, kcluster, parseEvents, repoRoot, sshHost, testLab, type TestLab } from './support/test-lab.js';

const FILES = ['/var/tmp/kc-upload-a', '/var/tmp/kc-upload-b'];
const MIB = 24;

/** A user playbook: each host gets the managed files, filled with the generation's letter. */
function writePlaybook(dir: string): string {
  const file = join(dir, 'uploads.mjs');
  const library = pathToFileURL(join(repoRoot, 'dist/src/index.js')).href;
  writeFileSync(
    file,
    `import { managedFile } from ${JSON.stringify(library)};
const generation = process.env.KC_UPLOAD_GENERATION ?? 'o';
const content = Buffer.alloc(${MIB} * 1024 * 1024, generation);
export default {
  name: 'uploads',
  description: 'large managed files (interrupted-upload test)',
  plays: [{ name: 'uploads', hosts: 'all', roles: [{ name: 'uploads', tasks: ${JSON.stringify(FILES)}.map((path) => managedFile({ path, mode: 0o644, content: () => content })) }] }],
};
`,
  );
  return file;
}

const sha256Of = (letter: string): string =>
  execFileSync('sha256sum', { input: Buffer.alloc(MIB * 1024 * 1024, letter) })
    .toString()
    .split(' ')[0]!;

interface HostFiles {
  readonly sums: Record<string, string>;
  readonly temps: string[];
}

async function hostFiles(lab: TestLab, host: string): Promise<HostFiles> {
  const r = await sshHost(
    lab,
    host,
    `for f in ${FILES.join(' ')}; do if [ -e "$f" ]; then echo "$f $(sha256sum < "$f" | cut -d' ' -f1)"; else echo "$f absent"; fi; done; ls -a /var/tmp | grep '^.kcluster-write' || true`,
  );
  expect(r.code, r.stderr).toBe(0);
  const sums: Record<string, string> = {};
  const temps: string[] = [];
  for (const line of r.stdout.trim().split('\n')) {
    if (line.startsWith('.kcluster-write')) temps.push(line);
    else if (line !== '') sums[line.split(' ')[0]!] = line.split(' ')[1]!;
  }
  return { sums, temps };
}

/** Polls until no host has a temp file or a writer left (a writer's shell ends once sshd closes its pipes). */
async function settle(lab: TestLab, timeoutMs: number): Promise<Map<string, HostFiles>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const all = new Map<string, HostFiles>();
    for (const h of lab.hosts) all.set(h.name, await hostFiles(lab, h.name));
    if ([...all.values()].every((f) => f.temps.length === 0) || Date.now() > deadline) return all;
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** Starts a run of the upload playbook and resolves once `uploads` writes have begun on every host. */
function startRun(
  playbook: string,
  inventory: string,
  generation: string,
): { child: ReturnType<typeof spawn>; started: Promise<void>; done: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string }> } {
  const child = spawn(process.execPath, [join(repoRoot, 'bin/kcluster.js'), 'run', playbook, '-i', inventory, '--output', 'json'], {
    env: { ...process.env, CI: 'true', NO_COLOR: '1', KC_UPLOAD_GENERATION: generation },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let resolveStarted: () => void = () => undefined;
  const started = new Promise<void>((r) => (resolveStarted = r));
  const writing = new Set<string>();
  child.stdout!.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    for (const e of parseEvents(stdout)) if (e['type'] === 'task-start') writing.add(String(e['host']));
    if (writing.size > 0) resolveStarted();
  });
  child.stderr!.on('data', () => undefined);
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string }>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal, stdout })),
  );
  return { child, started, done };
}

describe('interrupted uploads over real SSH', () => {
  let lab: TestLab;
  let playbook: string;
  let inventory: string;
  const sums = { o: sha256Of('o'), n: sha256Of('n'), m: sha256Of('m') };
  const known = new Set(Object.values(sums));

  beforeAll(async () => {
    lab = testLab();
    playbook = writePlaybook(mkdtempSync(join(tmpdir(), 'kc-uploads-')));
    inventory = inventoryVariant(lab, (doc) => {
      doc['ssh'] = { ...(doc['ssh'] as object), keepaliveInterval: '1s' };
    });
    const first = await kcluster(['run', playbook, '-i', inventory, '--output', 'json'], { KC_UPLOAD_GENERATION: 'o' });
    expect(first.code, first.stderr).toBe(0);
  }, 120_000);

  afterAll(async () => {
    for (const h of lab?.hosts ?? []) await sshHost(lab, h.name, `rm -f ${FILES.join(' ')}`);
  });

  async function expectWholeFiles(label: string): Promise<void> {
    const after = await settle(lab, 60_000);
    // A leftover is this case's failure only: removed before the assertions, so that the
    // cases after it start clean and fail (or pass) for their own reasons.
    for (const [host, files] of after) if (files.temps.length > 0) await sshHost(lab, host, `cd /var/tmp && rm -f -- ${files.temps.join(' ')}`);
    for (const [host, files] of after) {
      expect(files.temps, `${label}: temp files left on ${host}`).toEqual([]);
      for (const path of FILES) {
        expect(known.has(files.sums[path] ?? 'absent'), `${label}: ${host}:${path} is neither the old nor a new content (${files.sums[path]})`).toBe(true);
      }
    }
  }

  async function expectConverges(generation: 'o' | 'n' | 'm'): Promise<void> {
    const rerun = await kcluster(['run', playbook, '-i', inventory, '--output', 'json'], { KC_UPLOAD_GENERATION: generation });
    expect(rerun.code, rerun.stderr).toBe(0);
    const again = await kcluster(['run', playbook, '-i', inventory, '--output', 'json'], { KC_UPLOAD_GENERATION: generation });
    expect(again.code, again.stderr).toBe(0);
    const end = parseEvents(again.stdout).find((e) => e['type'] === 'run-end') as { summary: { hosts: { host: string; changed: number }[] } };
    for (const h of end.summary.hosts) expect(h.changed, `${h.host} changed on the second rerun`).toBe(0);
    for (const h of lab.hosts) for (const path of FILES) expect((await hostFiles(lab, h.name)).sums[path]).toBe(sums[generation]);
  }

  for (const [signal, pause] of [
    ['SIGKILL', 150],
    ['SIGKILL', 600],
    ['SIGINT', 300],
    ['SIGTERM', 300],
  ] as const) {
    it(`${signal} of the controller ${pause} ms into the uploads leaves every file old or new, never a prefix`, async () => {
      const run = startRun(playbook, inventory, 'n');
      await run.started;
      await new Promise((r) => setTimeout(r, pause));
      const signalled = Date.now();
      run.child.kill(signal);
      const ended = await run.done;
      if (signal !== 'SIGKILL') {
        expect(ended.code, `exit after ${signal}`).toBe(130);
        // The uploads in flight are cancelled, not waited for.
        expect(Date.now() - signalled, `time to stop after ${signal}`).toBeLessThan(5_000);
      }
      await expectWholeFiles(`${signal} after ${pause} ms`);
      await expectConverges('o');
    }, 180_000);
  }

  it('a second run while one is running is refused at once with the holder named, touching nothing; a lock left by a killed run is taken over', async () => {
    const first = startRun(playbook, inventory, 'n');
    await first.started;
    const started = Date.now();
    const second = await kcluster(['run', playbook, '-i', inventory, '--output', 'json'], { KC_UPLOAD_GENERATION: 'm' });
    expect(second.code).toBe(2);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(second.stderr).toMatch(new RegExp(`another kcluster run holds .*/lock: pid ${first.child.pid} on .*, started .* \\(kcluster run `));
    expect(second.stdout).toBe('');
    first.child.kill('SIGKILL');
    await first.done;
    await expectWholeFiles('SIGKILL while a second run was refused');
    // No file holds the refused run's generation: it touched nothing.
    for (const h of lab.hosts) for (const path of FILES) expect((await hostFiles(lab, h.name)).sums[path]).not.toBe(sums.m);
    const after = await kcluster(['run', playbook, '-i', inventory, '--output', 'json'], { KC_UPLOAD_GENERATION: 'o' });
    expect(after.code, after.stderr).toBe(0);
    expect(after.stderr).toContain(`took over the lock`);
    expect(after.stderr).toContain(`left by pid ${first.child.pid}`);
  }, 180_000);

  it('a host whose link is cut mid-upload keeps the old or the new file; a rerun after the link is back converges', async () => {
    const victim = lab.hosts[0]!;
    const veth = `vb-${victim.name}`.slice(0, 15);
    execFileSync('ip', ['link', 'show', veth]);
    const run = startRun(playbook, inventory, 'm');
    await run.started;
    await new Promise((r) => setTimeout(r, 200));
    execFileSync('ip', ['link', 'set', veth, 'down']);
    const started = Date.now();
    try {
      const ended = await run.done;
      const noticed = Date.now() - started;
      const end = parseEvents(ended.stdout).find((e) => e['type'] === 'run-end') as
        { summary: { hosts: { host: string; unreachable: boolean; failed: number }[] } } | undefined;
      expect(end, 'no run-end event').toBeDefined();
      expect(end!.summary.hosts.find((h) => h.host === victim.name)?.unreachable).toBe(true);
      for (const other of lab.hosts.slice(1)) expect(end!.summary.hosts.find((h) => h.host === other.name)?.failed, other.name).toBe(0);
      // keepalive 1 s x 3, plus the time the others need to finish their uploads
      expect(noticed).toBeLessThan(30_000);
    } finally {
      execFileSync('ip', ['link', 'set', veth, 'up']);
    }
    await expectWholeFiles('link cut');
    await expectConverges('o');
  }, 240_000);
});
