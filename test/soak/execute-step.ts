// One planned step on the real lab: for each of the operation's commands, the inventory it
// needs written, the command run (the planned fault delivered to the one it targets), and after
// a delivered fault the resume that `kcluster status` names. The NodePort is polled throughout
// and its counts reported. A command that fails without a fault, or a resume that does not
// finish, is the step's failure.
import { readFileSync, writeFileSync } from 'node:fs';
import { poller } from '../e2e/support/e2e-support.js';
import { FIXED_HOST, type ClusterModel } from './cluster-model.js';
import type { PlannedFault } from './faults.js';
import { commandsFor } from './operation-commands.js';
import { runKcluster, tailOf } from './kcluster-run.js';
import { resumeFromStatus } from './resume.js';
import { soakInventoryYaml } from './soak-inventory.js';
import { hostAddress, hostName, labInventoryFile, rotationUnderWay, soakInventoryFile } from './soak-lab.js';
import type { PlannedStep } from './soak-plan.js';
import { WEB_NODE_PORT } from './workload.js';

export interface StepExecution {
  /** Each command as run, with its exit code and seconds. */
  readonly commands: string[];
  /** What the fault did: delivered when, or why not. */
  readonly fault: string;
  readonly resume: string[];
  readonly seconds: number;
  readonly service: { readonly ok: number; readonly failed: number; readonly firstFailures: string[] };
  readonly failure?: string;
}

export function writeSoakInventory(model: ClusterModel): void {
  writeFileSync(soakInventoryFile, soakInventoryYaml(readFileSync(labInventoryFile, 'utf8'), model, hostName));
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * One command, the fault delivered to it when targeted, then the resume status names; what
 * ran goes to `ran` and `resume`, what the fault did to `faultDid`. The failure, if any.
 */
async function runWithResume(
  args: string[],
  fault: PlannedFault | undefined,
  ran: string[],
  resume: string[],
  faultDid: (what: string) => void,
): Promise<string | undefined> {
  const started = Date.now();
  const run = await runKcluster(args, fault);
  ran.push(`kcluster ${run.args.join(' ')} -> ${run.code} in ${run.seconds.toFixed(0)} s`);
  if (fault) faultDid(run.delivered ?? `not delivered: the command ended first (exit ${run.code})`);
  if (run.timedOut) return `the command did not end within its limit: ${tailOf(run)}`;
  if (run.delivered === undefined) return run.code === 0 ? undefined : `exit ${run.code}: ${tailOf(run)}`;
  const resumed = await resumeFromStatus(soakInventoryFile, started, args);
  resume.push(...resumed.commands);
  return resumed.problem !== undefined ? `resume after ${run.delivered}: ${resumed.problem}` : undefined;
}

export async function executeStep(planned: PlannedStep): Promise<StepExecution> {
  const { commands, inventoryAfter } = commandsFor(planned.operation, planned.before, hostName);
  const service = poller(`http://${hostAddress(FIXED_HOST)}:${WEB_NODE_PORT}/`);
  const started = Date.now();
  const ran: string[] = [];
  const resume: string[] = [];
  let fault = planned.fault ? 'not delivered: its command did not run' : 'none';
  let failure: string | undefined;
  for (const [index, command] of commands.entries()) {
    const rounds = command.whileRotating ?? 1;
    for (let round = 0; round < rounds && failure === undefined; round++) {
      if (command.waitBeforeMs !== undefined) await sleep(command.waitBeforeMs);
      if (command.whileRotating !== undefined && !rotationUnderWay()) {
        if (round === 0) ran.push(`(skipped: no rotation under way) kcluster ${command.args(soakInventoryFile).join(' ')}`);
        break;
      }
      writeSoakInventory(command.inventory);
      // The planned fault goes to the first round of the command it targets.
      const targeted = planned.fault?.command === index && round === 0 ? planned.fault : undefined;
      failure = await runWithResume(command.args(soakInventoryFile), targeted, ran, resume, (what) => (fault = what));
    }
    if (failure !== undefined) break;
  }
  // The model moves on only when the operation finished: a failed step leaves the inventory as its last command had it.
  if (failure === undefined) writeSoakInventory(inventoryAfter);
  const seconds = (Date.now() - started) / 1000;
  await sleep(3000);
  await service.stop();
  return {
    commands: ran,
    fault,
    resume,
    seconds,
    service: { ok: service.counts.ok, failed: service.counts.failed, firstFailures: service.counts.failures.slice(0, 5) },
    ...(failure !== undefined ? { failure } : {}),
  };
}
