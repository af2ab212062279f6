// `kcluster report timeline` as users run it: the built command on a debug log and on the
// NDJSON of -o json (test/fixtures/timeline: a 3-host install written by hand from the event
// types, and the event lines of a real lab install's debug log), the SVG it writes, and exit 2
// with file:line for what is not a kcluster log.
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const exec = promisify(execFile);
const CLI = resolve(import.meta.dirname, '../../../bin/kcluster.js');
const FIXTURES = resolve(import.meta.dirname, '../../fixtures/timeline');
const dir = mkdtempSync(join(tmpdir(), 'kc-timeline-'));

async function kcluster(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  try {
    const { stdout, stderr } = await exec(process.execPath, [CLI, ...args], { cwd: dir });
    return { code: 0, out: stdout, err: stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, out: e.stdout, err: e.stderr };
  }
}

describe('kcluster report timeline', () => {
  it('reads a debug log and the -o json stream of the same run to the same report, and writes the SVG', async () => {
    const svg = join(dir, 'apply.svg');
    const fromLog = await kcluster('report', 'timeline', join(FIXTURES, 'apply-3-hosts.debug-log.txt'), '--svg', svg);
    expect(fromLog.err).toBe(`kcluster: wrote ${svg}\n`);
    expect(fromLog.code).toBe(0);
    const fromJson = await kcluster('report', 'timeline', join(FIXTURES, 'apply-3-hosts.ndjson'));
    expect(fromJson.code).toBe(0);
    expect(fromJson.out).toBe(fromLog.out);
    const out = fromLog.out;
    expect(out).toMatch(/^apply: 3 hosts, 51\.4 s, exit 0; started 2026-11-26T10:00:00\.000Z$/m);
    expect(out).toMatch(/^\*\s+10\.3\s+24\.8 {2}play control plane\s+1 host$/m);
    expect(out).toMatch(/^\*\s+10\.9\s+23\.5 {8}wait for \/readyz\s+ok$/m);
    expect(out).toMatch(
      /^ {2}nodes\s+10\.2 s {2}w2 \(last by 1\.2 s\): artifacts \/ upload kubelet 3\.5 s, artifacts \/ upload images 5\.1 s, runtime \/ start containerd 1\.2 s$/m,
    );
    expect(out).toMatch(/^ {2}join\s+5\.4 s {2}w1 then w2: /m);
    const chart = readFileSync(svg, 'utf8');
    expect(chart.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(chart.trimEnd().endsWith('</svg>')).toBe(true);
    expect(chart.match(/<rect class="task critical"/g)).toHaveLength(8);
  });

  it('reads a real lab install (3 hosts, the debug log trimmed to its event lines) and finds where its time went', async () => {
    const log = join(FIXTURES, 'lab-3-hosts-install.debug-log.txt');
    const svg = join(dir, 'lab.svg');
    const r = await kcluster('report', 'timeline', log, '--svg', svg);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^cluster: 3 hosts, 97\.9 s, exit 0; started 2026-11-26T17:36:53\.595Z$/m);
    const path = r.out.slice(r.out.indexOf('critical path: '));
    expect(path).toMatch(/^critical path: 97\.9 s /);
    expect(path).toMatch(/^ {2}control plane\s+25\.1 s {2}kcbi1: control-plane \/ API server ready 24\.3 s$/m);
    expect(path).toMatch(/^ {2}addons running\s+50\.0 s {2}kcbi1: addons-running \/ addons running 49\.5 s$/m);
    expect(path).toMatch(/^ {2}nodes\s+15\.4 s {2}kcbi1 \(last by 3\.9 s\): /m);
    const json = JSON.parse((await kcluster('report', 'timeline', log, '-o', 'json')).out) as {
      plays: { hosts: { roles: { tasks: { start: number; end: number }[] }[] }[] }[];
    };
    const long = json.plays.flatMap((p) => p.hosts.flatMap((h) => h.roles.flatMap((x) => x.tasks))).filter((t) => t.end - t.start >= 500);
    expect(readFileSync(svg, 'utf8').match(/<rect class="task[ "]/g)).toHaveLength(long.length);
  });

  it('-o json gives the timeline, its critical path and phases, times in ms', async () => {
    const r = await kcluster('report', 'timeline', join(FIXTURES, 'apply-3-hosts.ndjson'), '-o', 'json');
    expect(r.code).toBe(0);
    const report = JSON.parse(r.out) as {
      durationMs: number;
      plays: { play: string }[];
      criticalPath: { plays: { play: string; lanes: { host: string }[] }[] };
      phases: { role: string }[];
    };
    expect(report.durationMs).toBe(51_358);
    expect(report.plays.map((p) => p.play)).toEqual(['preflight', 'nodes', 'control plane', 'join', 'addons']);
    expect(report.criticalPath.plays.map((p) => p.lanes.map((l) => l.host).join(' then '))).toEqual(['cp1', 'w2', 'cp1', 'w1 then w2', 'cp1']);
    expect(report.phases.map((p) => p.role)).toEqual(['preflight', 'artifacts', 'runtime', 'kubelet', 'pki', 'control-plane', 'join', 'addons']);
    expect((await kcluster('report', 'timeline', join(FIXTURES, 'apply-3-hosts.ndjson'), '-o', 'yaml')).code).toBe(2);
  });

  it('reads - from stdin (kcluster apply -o json | kcluster report timeline -)', async () => {
    const child = spawn(process.execPath, [CLI, 'report', 'timeline', '-'], { cwd: dir });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stdin.end(readFileSync(join(FIXTURES, 'apply-3-hosts.ndjson')));
    const code = await new Promise<number | null>((done) => child.on('close', done));
    expect(code).toBe(0);
    expect(out).toMatch(/^apply: 3 hosts, 51\.4 s, exit 0;/);
    const empty = spawn(process.execPath, [CLI, 'report', 'timeline', '-'], { cwd: dir });
    let err = '';
    empty.stderr.on('data', (c: Buffer) => (err += c.toString()));
    empty.stdin.end('');
    expect(await new Promise<number | null>((done) => empty.on('close', done))).toBe(2);
    expect(err).toMatch(/^kcluster: <stdin>: the file is empty; give the debug log/);
  });

  it('--min-task changes which tasks are listed', async () => {
    const r = await kcluster('report', 'timeline', join(FIXTURES, 'apply-3-hosts.ndjson'), '--min-task', '5');
    expect(r.code).toBe(0);
    expect(r.out).not.toContain('upload kubelet');
    expect(r.out).toContain('upload images');
  });

  it('exits 2 with the file, the line and what to give for a file that is not a kcluster log', async () => {
    const inventory = join(dir, 'inventory.yaml');
    writeFileSync(inventory, 'hosts:\n  - { name: cp1 }\n');
    const r = await kcluster('report', 'timeline', inventory);
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
    expect(r.err).toMatch(new RegExp(`^kcluster: ${inventory.replaceAll('.', '\\.')}:1: not a kcluster log: .*give the debug log of a run`));
    const bad = join(dir, 'bad.ndjson');
    writeFileSync(
      bad,
      `${readFileSync(join(FIXTURES, 'apply-3-hosts.ndjson'), 'utf8').split('\n').slice(0, 5).join('\n')}\nnot json\n{"type":"play-end","play":"x","time":9}\n`,
    );
    const r2 = await kcluster('report', 'timeline', bad);
    expect(r2.code).toBe(2);
    expect(r2.err).toContain(`${bad}:6: not a kcluster log: the line "not json" is not a kcluster event: it is not JSON`);
  });

  it('exits 2 for a missing file, a folder, a bad --min-task or --run', async () => {
    const missing = await kcluster('report', 'timeline', 'nope.log');
    expect(missing.code).toBe(2);
    expect(missing.err).toMatch(/^kcluster: nope\.log: cannot read it: no such file; give the debug log/);
    const folder = await kcluster('report', 'timeline', FIXTURES);
    expect(folder.code).toBe(2);
    expect(folder.err).toContain('cannot read it: it is a folder: give one of its *.log files');
    const minTask = await kcluster('report', 'timeline', join(FIXTURES, 'apply-3-hosts.debug-log.txt'), '--min-task', 'soon');
    expect(minTask.code).toBe(2);
    expect(minTask.err).toBe('kcluster: --min-task must be a number of seconds above 0 (got "soon")\n');
    const run = await kcluster('report', 'timeline', join(FIXTURES, 'apply-3-hosts.debug-log.txt'), '--run', '2');
    expect(run.code).toBe(2);
    expect(run.err).toContain('--run 2: the file holds 1 run; give a number from 1 to 1');
    const usage = await kcluster('report', 'timeline');
    expect(usage.code).toBe(2);
    expect(usage.err).toContain("missing required argument 'log'");
  });
});
