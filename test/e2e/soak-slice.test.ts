// The lifecycle soak's slice in the suite (issue 40): a fixed seed on its own lab (kcslice,
// 10.231.23.0/24), the same operations, faults and invariants as `npm run soak`
// (test/soak/run-soak.ts). Seed 960 on one control plane draws five short operations that
// cover the kinds of change and of fault: a worker removed (SIGKILL at 66%), a snapshot saved
// and restored (Ctrl-C at 44% of the restore), a worker added twice, the upgrade to the bundle's
// newest release (a power cycle of a host at 90%). Its results file goes to a
// temporary folder; `npm run soak` commits its own.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';

process.env['KCLUSTER_SOAK_LAB'] = 'kcslice';
process.env['KCLUSTER_SOAK_SUBNET'] = '10.231.23.0/24';
// After the lab's name is set: soak-lab.ts reads it when it loads.
const { runSoak, soakLabDown, soakLabUp } = await import('../soak/run-soak.js');
const { renderResults, violationsOf } = await import('../soak/results-report.js');

const SEED = 960;
const STEPS = 5;
const resultsFile = join(mkdtempSync(join(tmpdir(), 'kc-soak-slice-')), `single-seed${SEED}.md`);

beforeAll(() => soakLabUp('single'));
afterAll(async () => {
  if (!process.env['KCLUSTER_KEEP_E2E_LAB']) await soakLabDown();
});

it(`the soak's fixed seed ${SEED} (${STEPS} steps, one control plane): every operation finishes through its faults and every invariant holds`, async () => {
  const result = await runSoak({ seed: SEED, steps: STEPS, topology: 'single', resultsFile });
  console.log(renderResults(result));
  expect(result.results).toHaveLength(STEPS);
  expect(result.results.filter((r) => r.execution.faultDelivered).length, 'faults delivered').toBeGreaterThanOrEqual(2);
  expect(violationsOf(result), `see ${resultsFile}`).toEqual([]);
});
