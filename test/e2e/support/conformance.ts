// The Kubernetes Conformance selection on an e2e cluster, through the project's own tooling
// (test/conformance/run.sh: e2e.test and the test images built here, imported over SSH, JUnit and
// a one-line summary). The e2e suite reads that summary line back.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const root = join(import.meta.dirname, '..', '..', '..');

export interface ConformanceResult {
  passed: number;
  failed: number;
  skipped: number;
  seconds: number;
  line: string;
  failures: string[];
  logTail: string;
}

/** Parses run.sh's summary line: "conformance VERSION (CLUSTER): P passed, F failed, S skipped, T s (...)". */
export function parseConformanceSummary(line: string): Pick<ConformanceResult, 'passed' | 'failed' | 'skipped' | 'seconds'> {
  const m = /: (\d+) passed, (\d+) failed, (\d+) skipped, (\d+) s \(/.exec(line);
  if (!m) throw new Error(`not a conformance summary line: ${line}`);
  return { passed: Number(m[1]), failed: Number(m[2]), skipped: Number(m[3]), seconds: Number(m[4]) };
}

/**
 * Runs the focused selection (selection.txt) against the inventory's cluster, `nodes` specs at a
 * time; `select` gives run.sh's --focus and --skip instead, and `numNodes` its --num-nodes.
 */
export async function conformanceSelection(
  inventory: string,
  out: string,
  nodes: number,
  select?: { focus: string; skip: string; numNodes?: number },
): Promise<ConformanceResult> {
  const args = [
    join(root, 'test', 'conformance', 'run.sh'),
    '-i',
    inventory,
    '--nodes',
    String(nodes),
    '--out',
    out,
    ...(select ? ['--focus', select.focus, '--skip', select.skip] : []),
    ...(select?.numNodes !== undefined ? ['--num-nodes', String(select.numNodes)] : []),
  ];
  const outcome = await run('bash', args, { maxBuffer: 64 * 1024 * 1024 }).then(
    (r) => ({ stdout: r.stdout, stderr: r.stderr }),
    (e: { stdout?: string; stderr?: string }) => ({ stdout: e.stdout ?? '', stderr: e.stderr ?? '' }),
  );
  const line = outcome.stdout
    .trim()
    .split('\n')
    .filter((l) => l.startsWith('conformance '))
    .at(-1);
  if (line === undefined) throw new Error(`run.sh printed no summary line:\n${outcome.stderr.slice(-4000)}`);
  const failures = outcome.stderr
    .split('\n')
    .filter((l) => l.startsWith('  FAILED '))
    .map((l) => l.slice('  FAILED '.length));
  let logTail = '';
  if (failures.length > 0) logTail = readFileSync(join(out, 'e2e.log'), 'utf8').split('\n').slice(-80).join('\n');
  return { ...parseConformanceSummary(line), line, failures, logTail };
}
