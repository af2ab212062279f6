// The suite's closing summary (test/summarize-results.mjs), run as npm test runs it, on vitest
// JSON reports written here: the counts line CI reads, the durations table before it, and each
// failed test with the first lines of its error between them.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const script = resolve('test/summarize-results.mjs');
const dir = mkdtempSync(join(tmpdir(), 'kc-summary-'));

function report(name: string, body: object): string {
  const file = join(dir, `${name}.json`);
  writeFileSync(file, JSON.stringify(body));
  return file;
}

const unit = report('unit', {
  numPassedTests: 10,
  numFailedTests: 0,
  numPendingTests: 1,
  success: true,
  testResults: [{ name: resolve('test/unit/a.test.ts'), status: 'passed', startTime: 0, endTime: 500 }],
});
const e2e = report('e2e', {
  numPassedTests: 3,
  numFailedTests: 1,
  success: false,
  testResults: [
    { name: resolve('test/e2e/ha.test.ts'), status: 'passed', startTime: 1_000, endTime: 616_000 },
    {
      name: resolve('test/e2e/day2.test.ts'),
      status: 'failed',
      startTime: 616_000,
      endTime: 1_019_000,
      assertionResults: [
        { status: 'passed', fullName: 'day 2 > adds a worker' },
        {
          status: 'failed',
          fullName: 'day 2 > restores the snapshot',
          failureMessages: [
            '\u001b[31mAssertionError\u001b[39m: kcluster: 23 artifacts verified\n\nkceday1 | FAILED | did not converge\nline 3\nline 4\nline 5',
          ],
        },
      ],
    },
  ],
});
const stages = join(dir, 'stages.tsv');
writeFileSync(stages, 'unit tests\t101000\ne2e tests\t2081000\nwhole suite\t2398000\n');

describe('test/summarize-results.mjs', () => {
  it('prints each stage and each slow-depth test file with its duration, each failure, then the counts line', () => {
    const r = spawnSync('node', [script, '--stages', stages, unit, e2e], { encoding: 'utf8' });
    expect(r.status).toBe(1);
    const lines = r.stdout.trim().split('\n');
    expect(lines).toEqual([
      '== durations: each stage of the suite (wall clock)',
      '   101 s  unit tests',
      '  2081 s  e2e tests',
      '  2398 s  whole suite',
      '== durations: each test file of the lab, integration and e2e depths',
      '   615 s  e2e  test/e2e/ha.test.ts',
      '   403 s  e2e  test/e2e/day2.test.ts  (failed)',
      '== failures: each failed test and the first lines of its error (the full output is above)',
      '  e2e  test/e2e/day2.test.ts > day 2 > restores the snapshot',
      '      AssertionError: kcluster: 23 artifacts verified',
      '      kceday1 | FAILED | did not converge',
      '      line 3',
      '      line 4',
      'tests: 13 passed, 1 failed, 1 skipped',
    ]);
  });

  it('exits 0 with only passing reports, and counts a missing report as a failure', () => {
    expect(execFileSync('node', [script, unit], { encoding: 'utf8' }).trim()).toBe('tests: 10 passed, 0 failed, 1 skipped');
    const r = spawnSync('node', [script, unit, join(dir, 'missing.json')], { encoding: 'utf8' });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('cannot read');
    expect(r.stdout.trim()).toBe('tests: 10 passed, 1 failed, 1 skipped');
  });
});
