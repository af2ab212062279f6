// The seeded lifecycle soak (issue 40): its own lab, a cluster installed on it with the user's
// workload, then the plan's steps (planSoak: operations and faults drawn from the seed), each
// followed by the invariants. It stops at the first step with a violation (the plan's later
// steps assume the earlier ones worked) and fails with every violation named; the results file
// is rewritten after every step. Run it with `npm run soak -- --seed N --steps M [--topology
// single|ha] [--keep]` (test/soak/run.sh), never as part of another project.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { bundleDir, poller, until } from '../e2e/support/e2e-support.js';
import { kcluster, repoRoot } from '../integration/support/test-lab.js';
import { FIXED_HOST, initialModel, inventoryHosts } from './cluster-model.js';
import { deploymentAvailable } from './cluster-readouts.js';
import { executeStep, plannedFaultText, writeSoakInventory } from './execute-step.js';
import { checkInvariants } from './invariants.js';
import { runKcluster, tailOf } from './kcluster-run.js';
import { describeOperation, modelAfter } from './operations.js';
import { renderResults, resultsFileName, violationsOf, type SoakResult, type StepResult } from './results-report.js';
import { busyboxReference, hostAddress, hostName, importBusybox, kubectl, kubectlApply, LAB_NAME, labUpArgs, soakInventoryFile } from './soak-lab.js';
import { planSoak } from './soak-plan.js';
import { soakSettingsFrom } from './soak-settings.js';
import { soakWorkloadYaml, WEB_NODE_PORT } from './workload.js';

const settings = soakSettingsFrom(process.env);
const plan = planSoak(settings.seed, settings.steps, settings.topology);
const resultsDir = join(repoRoot, 'test', 'soak', 'results');
const startedAt = new Date();
const resultsFile = join(resultsDir, resultsFileName(startedAt.toISOString().slice(0, 10), settings.topology, settings.seed));

beforeAll(async () => {
  bundleDir();
  await kcluster(['lab', 'down', '--name', LAB_NAME]);
  const up = await kcluster(labUpArgs(settings.topology));
  if (up.code !== 0) throw new Error(`lab up failed: ${up.stderr}`);
});
afterAll(async () => {
  if (!settings.keep) await kcluster(['lab', 'down', '--name', LAB_NAME]);
});

/** The cluster of the initial model with the user's workload on it, answering on its NodePort. */
async function install(): Promise<string> {
  const model = initialModel(settings.topology);
  writeSoakInventory(model);
  const run = await runKcluster(['apply', '-i', soakInventoryFile]);
  if (run.code !== 0) throw new Error(`the install failed (exit ${run.code}): ${tailOf(run)}`);
  for (const host of inventoryHosts(model)) await importBusybox(host);
  await kubectlApply(soakWorkloadYaml(busyboxReference(), hostName(FIXED_HOST)));
  await until('the Deployment web available', 300_000, async () =>
    deploymentAvailable(await kubectl('get', 'deployment', 'web', '-o', 'json')) ? true : undefined,
  );
  // kube-proxy's rules and the vxlan routes follow the pods by a few seconds: the first step's counts start from a Service that answers.
  const warm = poller(`http://${hostAddress(FIXED_HOST)}:${WEB_NODE_PORT}/`);
  await until('the NodePort answers 10 times in a row', 120_000, async () => (warm.counts.streak >= 10 ? true : undefined)).finally(() => warm.stop());
  return `apply in ${run.seconds.toFixed(0)} s`;
}

function save(result: SoakResult): void {
  mkdirSync(resultsDir, { recursive: true });
  writeFileSync(resultsFile, renderResults(result));
}

it(`soak: seed ${settings.seed}, ${settings.steps} steps, ${settings.topology}`, async () => {
  const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: repoRoot, encoding: 'utf8' }).trim();
  let result: SoakResult = {
    seed: settings.seed,
    steps: settings.steps,
    topology: settings.topology,
    started: startedAt.toISOString(),
    kclusterCommit: commit,
    install: await install(),
    results: [],
  };
  save(result);
  for (const planned of plan) {
    const operation = describeOperation(planned.operation, hostName);
    const plannedFault = plannedFaultText(planned);
    console.log(`soak step ${planned.step}/${settings.steps}: ${operation}, fault ${plannedFault}`);
    const execution = await executeStep(planned, settings.topology);
    const after = modelAfter(planned.before, planned.operation);
    // A host added (or reset by remove-node and added back) lacks the test image: imported before the invariants and the next step's drains.
    if (execution.failure === undefined) for (const host of inventoryHosts(after)) await importBusybox(host).catch(() => undefined);
    const invariants = await checkInvariants(execution.failure === undefined ? after : planned.before);
    const step: StepResult = { step: planned.step, operation, plannedFault, execution, invariants };
    result = { ...result, results: [...result.results, step] };
    save(result);
    console.log(
      `soak step ${planned.step}: ${execution.seconds.toFixed(0)} s, fault ${execution.fault}, Service ${execution.service.ok}/${execution.service.failed}, ${invariants.filter((v) => !v.ok).length} invariant(s) broken`,
    );
    if (violationsOf(result).length > 0) break;
  }
  result = { ...result, ended: new Date().toISOString() };
  save(result);
  expect(violationsOf(result), `see ${resultsFile}`).toEqual([]);
});
