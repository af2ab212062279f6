// The seeded lifecycle soak (issue 40): `npm run soak -- --seed N --steps M [--topology
// single|ha] [--keep]` (test/soak/run.sh), never as part of another project. Its lab, the
// cluster and the plan's steps with their invariants (run-soak.ts); it fails with every
// violation named, and the results go to test/soak/results/DATE-TOPOLOGY-seedN.md.
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { repoRoot } from '../integration/support/test-lab.js';
import { resultsFileName, violationsOf } from './results-report.js';
import { keepRunLogs, runSoak, soakLabDown, soakLabUp } from './run-soak.js';
import { soakSettingsFrom } from './soak-settings.js';

const settings = soakSettingsFrom(process.env);
const resultsFile = join(repoRoot, 'test', 'soak', 'results', resultsFileName(new Date().toISOString().slice(0, 10), settings.topology, settings.seed));

let passed = false;
beforeAll(() => soakLabUp(settings.topology));
afterAll(async () => {
  if (!passed) console.log(`soak: the run logs are kept in ${keepRunLogs(resultsFile)}`);
  if (!settings.keep) await soakLabDown();
});

it(`soak: seed ${settings.seed}, ${settings.steps} steps, ${settings.topology}`, async () => {
  const result = await runSoak({ seed: settings.seed, steps: settings.steps, topology: settings.topology, faultRate: settings.faultRate, resultsFile });
  expect(violationsOf(result), `see ${resultsFile}`).toEqual([]);
  passed = true;
});
