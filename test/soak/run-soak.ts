// A whole soak on its lab: the cluster of the initial model installed with the user's workload,
// then the plan's steps (planSoak: operations and faults drawn from the seed), each followed by
// the invariants. It stops at the first step with a violation (the plan's later steps assume the
// earlier ones worked); the results file is rewritten after every step. Shared by `npm run soak`
// (lifecycle.soak.ts) and the suite's fixed-seed slice (test/e2e/soak-slice.test.ts).
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { bundleDir, poller, until } from '../e2e/support/e2e-support.js';
import { kcluster, repoRoot } from '../integration/support/test-lab.js';
import { FIXED_HOST, initialModel, inventoryHosts, type Topology } from './cluster-model.js';
import { deploymentAvailable } from './cluster-readouts.js';
import { executeStep, plannedFaultText, writeSoakInventory } from './execute-step.js';
import { checkInvariants } from './invariants.js';
import { runKcluster, tailOf } from './kcluster-run.js';
import { describeOperation, modelAfter } from './operations.js';
import { renderResults, type SoakResult, type StepResult, violationsOf } from './results-report.js';
import { busyboxReference, hostAddress, hostName, importBusybox, kubectl, kubectlApply, LAB_NAME, labUpArgs, soakInventoryFile, stateDir } from './soak-lab.js';
import { FAULT_RATE } from './faults.js';
import { planSoak } from './soak-plan.js';
import { soakWorkloadYaml, WEB_NODE_PORT } from './workload.js';

export async function soakLabUp(topology: Topology): Promise<void> {
  bundleDir();
  await kcluster(['lab', 'down', '--name', LAB_NAME]);
  const up = await kcluster(labUpArgs(topology));
  if (up.code !== 0) throw new Error(`lab up failed: ${up.stderr}`);
}

export const soakLabDown = async (): Promise<void> => void (await kcluster(['lab', 'down', '--name', LAB_NAME]));

/**
 * A failing soak's run logs (the state folder's logs/), copied before `lab down` removes the
 * state folder with the lab: /var/tmp/kcluster-soak/<results file's name>/. Where they went.
 */
export function keepRunLogs(resultsFile: string): string {
  const kept = join('/var/tmp/kcluster-soak', basename(resultsFile, '.md'));
  mkdirSync(kept, { recursive: true });
  if (existsSync(join(stateDir, 'logs'))) cpSync(join(stateDir, 'logs'), join(kept, 'logs'), { recursive: true });
  return kept;
}

/** The cluster of the initial model with the user's workload on it, answering on its NodePort. */
async function install(topology: Topology): Promise<string> {
  const model = initialModel(topology);
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

export interface SoakRun {
  readonly seed: number;
  readonly steps: number;
  readonly topology: Topology;
  /** The share of steps that carry a fault (default FAULT_RATE). */
  readonly faultRate?: number;
  /** Rewritten after every step. */
  readonly resultsFile: string;
}

export async function runSoak(run: SoakRun): Promise<SoakResult> {
  const faultRate = run.faultRate ?? FAULT_RATE;
  const plan = planSoak(run.seed, run.steps, run.topology, faultRate);
  const save = (r: SoakResult): void => {
    mkdirSync(dirname(run.resultsFile), { recursive: true });
    writeFileSync(run.resultsFile, renderResults(r));
  };
  const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: repoRoot, encoding: 'utf8' }).trim();
  let result: SoakResult = {
    seed: run.seed,
    steps: run.steps,
    topology: run.topology,
    faultRate,
    started: new Date().toISOString(),
    kclusterCommit: commit,
    install: await install(run.topology),
    results: [],
  };
  save(result);
  for (const planned of plan) {
    const operation = describeOperation(planned.operation, hostName);
    const plannedFault = plannedFaultText(planned);
    console.log(`soak step ${planned.step}/${run.steps}: ${operation}, fault ${plannedFault}`);
    const execution = await executeStep(planned, run.topology);
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
  return result;
}
