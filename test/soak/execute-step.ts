// One planned step on the real lab: for each of the operation's commands, the inventory it
// needs written, the command run (the planned fault delivered to the one it targets, at its share
// of the command's expected duration), and after a delivered fault, once the host it hit answers
// again, the resume that `kcluster status` names. The NodePort is polled throughout and its
// counts reported. A command that fails without a fault, or a resume that does not finish, is
// the step's failure.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { poller } from '../e2e/support/e2e-support.js';
import { pollApiServers, type ApiAnswers } from './api-poller.js';
import { armFault } from './arm-fault.js';
import { destroy, reboot, wipeAndBoot } from './host-faults.js';
import { FIXED_HOST, inventoryHosts, type ClusterModel, type Topology } from './cluster-model.js';
import { ExpectedDurations } from './expected-durations.js';
import { describeFault, type PlannedFault } from './faults.js';
import { commandsFor, type PlannedCommand } from './operation-commands.js';
import { runKcluster, tailOf } from './kcluster-run.js';
import { resumeFromStatus } from './resume.js';
import { soakInventoryYaml } from './soak-inventory.js';
import { hostAddress, hostName, labInventoryFile, rotationUnderWay, soakInventoryFile, soakReleases, stateDir } from './soak-lab.js';
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
  /** The control planes' API servers, sampled throughout (the step's starting control planes). */
  readonly api: ApiAnswers;
  /** The planned fault reached its target while its command ran. */
  readonly faultDelivered: boolean;
  readonly failure?: string;
}

export function writeSoakInventory(model: ClusterModel): void {
  writeFileSync(soakInventoryFile, soakInventoryYaml(readFileSync(labInventoryFile, 'utf8'), model, hostName, soakReleases()));
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The newest etcd snapshot in the state folder's backups (what `etcd snapshot save` just wrote). */
function newestSnapshot(): string {
  const dir = join(stateDir, 'backups');
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.db'))
    .map((f) => ({ path: join(dir, f), at: statSync(join(dir, f)).mtimeMs }))
    .sort((a, b) => b.at - a.at);
  if (files.length === 0) throw new Error(`no snapshot in ${dir}`);
  return files[0]!.path;
}

/** The hosts a fault may hit while a command runs: its inventory's, less one that is down. */
const faultTargets = (command: PlannedCommand): number[] => inventoryHosts(command.inventory).filter((h) => h !== command.down && h !== command.destroyFirst);

/** What the commands took before in this soak: where a fault's share lands. */
const durations = new ExpectedDurations();

/**
 * One command, the fault delivered to it when targeted, then (the host healed) the resume status
 * names; what ran goes to `ran` and `resume`, what the fault did to `faultDid`. The failure, if any.
 */
async function runWithResume(
  /** Which operation and which of its commands ("remove-worker#2"): what its expected duration is kept by. */
  operation: string,
  args: string[],
  hosts: readonly number[],
  topology: Topology,
  fault: PlannedFault | undefined,
  ran: string[],
  resume: string[],
  faultDid: (what: string, delivered: boolean) => void,
): Promise<string | undefined> {
  const started = Date.now();
  const armed = fault ? armFault(fault, durations.expectedMs(operation, args), hosts, topology) : undefined;
  const run = await runKcluster(args, armed?.toDeliver);
  ran.push(`kcluster ${run.args.join(' ')} -> ${run.code} in ${run.seconds.toFixed(0)} s`);
  if (fault) faultDid(run.faultProblem ?? run.delivered ?? `not delivered: the command ended first (exit ${run.code})`, run.delivered !== undefined);
  if (run.faultProblem !== undefined) return run.faultProblem;
  if (run.timedOut) return `the command did not end within its limit: ${tailOf(run)}`;
  if (run.delivered === undefined) {
    if (run.code === 0 && !fault) durations.record(operation, args, run.seconds * 1000);
    return run.code === 0 ? undefined : `exit ${run.code}: ${tailOf(run)}`;
  }
  try {
    await armed!.healed();
  } catch (error) {
    return `the host did not come back after ${run.delivered}: ${(error as Error).message}`;
  }
  const resumed = await resumeFromStatus(soakInventoryFile, started, args);
  resume.push(...resumed.commands);
  return resumed.problem !== undefined ? `resume after ${run.delivered}: ${resumed.problem}` : undefined;
}

/** The planned fault as the results name it, with the host a host fault hits. */
export function plannedFaultText(planned: PlannedStep): string {
  const command = planned.fault ? commandsFor(planned.operation, planned.before, hostName).commands[planned.fault.command] : undefined;
  return describeFault(planned.fault, hostName, command ? faultTargets(command) : undefined);
}

export async function executeStep(planned: PlannedStep, topology: Topology): Promise<StepExecution> {
  const { commands, inventoryAfter, wipeAfter } = commandsFor(planned.operation, planned.before, hostName, newestSnapshot);
  const service = poller(`http://${hostAddress(FIXED_HOST)}:${WEB_NODE_PORT}/`);
  const apis = pollApiServers(planned.before.controlPlanes.map(hostAddress));
  let faultDelivered = false;
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
      if (command.rebootFirst !== undefined) {
        const rebootStarted = Date.now();
        try {
          await reboot(command.rebootFirst, topology);
        } catch (error) {
          failure = `the reboot of ${hostName(command.rebootFirst)} did not finish: ${(error as Error).message}`;
          break;
        }
        ran.push(`reboot ${hostName(command.rebootFirst)}: back over SSH in ${((Date.now() - rebootStarted) / 1000).toFixed(0)} s`);
      }
      if (command.destroyFirst !== undefined && round === 0) {
        try {
          await destroy(command.destroyFirst);
        } catch (error) {
          failure = `${hostName(command.destroyFirst)} could not be destroyed: ${(error as Error).message}`;
          break;
        }
        ran.push(`destroy ${hostName(command.destroyFirst)}: killed whole, kept down`);
      }
      writeSoakInventory(command.inventory);
      // The planned fault goes to the first round of the command it targets.
      const targeted = planned.fault?.command === index && round === 0 ? planned.fault : undefined;
      failure = await runWithResume(
        `${planned.operation.kind}#${index + 1}`,
        command.args(soakInventoryFile),
        faultTargets(command),
        topology,
        targeted,
        ran,
        resume,
        (what, delivered) => ((fault = what), (faultDelivered = delivered)),
      );
    }
    if (failure !== undefined) break;
  }
  // The model moves on only when the operation finished: a failed step leaves the inventory as its last command had it.
  if (failure === undefined) writeSoakInventory(inventoryAfter);
  if (failure === undefined && wipeAfter !== undefined) {
    const wipeStarted = Date.now();
    try {
      await wipeAndBoot(wipeAfter, topology);
      ran.push(`wipe ${hostName(wipeAfter)}'s disk and boot it: a spare, back over SSH in ${((Date.now() - wipeStarted) / 1000).toFixed(0)} s`);
    } catch (error) {
      failure = `${hostName(wipeAfter)} could not be wiped and booted again: ${(error as Error).message}`;
    }
  }
  const seconds = (Date.now() - started) / 1000;
  await sleep(3000);
  await service.stop();
  await apis.stop();
  return {
    api: { ...apis.counts },
    faultDelivered,
    commands: ran,
    fault,
    resume,
    seconds,
    service: { ok: service.counts.ok, failed: service.counts.failed, firstFailures: service.counts.failures.slice(0, 5) },
    ...(failure !== undefined ? { failure } : {}),
  };
}
