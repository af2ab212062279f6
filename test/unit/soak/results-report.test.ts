// The soak's results file: how to reproduce it, each step's row, and every violation with its step, operation and seed.
import { describe, expect, it } from 'vitest';
import { renderResults, resultsFileName, violationsOf, type SoakResult } from '../../soak/results-report.js';

const result: SoakResult = {
  seed: 42,
  steps: 3,
  topology: 'ha',
  started: '2026-11-28T09:00:00.000Z',
  kclusterCommit: 'abc1234',
  install: 'apply in 200 s',
  results: [
    {
      step: 1,
      operation: 'remove-worker kcsoak4',
      plannedFault: 'SIGKILL at 10% of command 1',
      execution: {
        commands: ['kcluster remove-node -> 137 in 3 s'],
        fault: 'SIGKILL at 3.0 s',
        resume: ['kcluster remove-node -> 0'],
        seconds: 40,
        service: { ok: 150, failed: 2, firstFailures: [] },
        api: { samples: 160, noneAnswered: 0, someDown: 4 },
        faultDelivered: true,
      },
      invariants: [
        { name: 'status: the last run completed', ok: true, detail: '' },
        { name: 'apply --check changes nothing', ok: false, detail: 'exit 3: x | y' },
      ],
    },
  ],
};

describe('the results file', () => {
  it('is named by date, topology and seed', () => {
    expect(resultsFileName('2026-11-28', 'ha', 42)).toBe('2026-11-28-ha-seed42.md');
  });

  it('names each violation with its step, operation and what broke', () => {
    expect(violationsOf(result)).toEqual([{ step: 1, operation: 'remove-worker kcsoak4', what: 'apply --check changes nothing: exit 3: x | y' }]);
  });

  it('says how to reproduce it, counts the delivered faults, and has a row per step with the Service and API counts', () => {
    const md = renderResults(result);
    expect(md).toContain('`npm run soak -- --seed 42 --steps 3 --topology ha`');
    expect(md).toContain(
      '| 1 | remove-worker kcsoak4 | SIGKILL at 10% of command 1: SIGKILL at 3.0 s | kcluster remove-node -> 0 | 40 | 150/2 | 160: 0/4 | FAILED apply --check changes nothing |',
    );
    expect(md).toContain('1 of 3 steps run; 1 with a planned fault, 1 delivered; 1 violation(s).');
    expect(md).toContain('- step 1 (remove-worker kcsoak4), seed 42: apply --check changes nothing: exit 3: x | y');
  });
});
