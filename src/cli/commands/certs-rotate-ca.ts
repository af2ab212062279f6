// `kcluster certs rotate-ca -i FILE [--ca cluster,etcd,front-proxy | --service-account-key
// [--keep-old-key DURATION]] [--restart-workloads | --skip-workloads] [--max-unavailable N]
// [--check] [-y]`: replace CAs (or the service-account key) on a running cluster with no moment
// at which a component distrusts another (src/kubernetes/pki/ca-rotation.ts). Each
// phase is one run (its own journal entry); the state folder records the phase reached, so the
// same command after a failure, Ctrl-C or a lost controller continues there. --check names the
// phases left and plans the next one, changing nothing. The phases are driven by
// src/kubernetes/pki/ca-rotation-driver.ts; this file parses the flags, asks, and runs a phase.
import { durationMs } from '../../orchestrator/util/duration.js';
import { Option, type Command } from 'commander';
import { X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { preparationIo, type CliContext } from '../context.js';
import { refusalUnlessConfirmed } from '../confirm.js';
import { ExitCode } from '../exit-codes.js';
import { loadInventoryOrReport } from '../load-inventory-or-report.js';
import { withStateLock } from '../lock-or-report.js';
import { sessionFor } from '../state-store/state-session.js';
import { runPlaybookCommand, type PlaybookCommandOptions } from '../run-playbook-command.js';
import { clusterInputsFor, refuseUnsupportedChanges } from '../../../playbooks/cluster-inputs.js';
import { rotateCaPhasePlaybook } from '../../../playbooks/certs-rotate-ca.js';
import { adminApi } from '../../kubernetes/cluster/admin-api.js';
import type { ClusterInputs } from '../../kubernetes/cluster/cluster-inputs.js';
import { requireInstalledPki } from '../../kubernetes/cluster/installed-cluster.js';
import {
  phaseDescription,
  readCaRotation,
  retireCaRotation,
  rotationRollMark,
  ROTATABLE_CAS,
  writeCaRotation,
  SERVICE_ACCOUNT_KEY,
  verifyingFile,
  type CaFile,
  type CaName,
  type Rotated,
  type CaRotation,
  type RotationPhase,
} from '../../kubernetes/pki/ca-rotation.js';
import { driveCaRotation, phasesLeft, rotatedNames, rotationConflict, type PhaseOutcome } from '../../kubernetes/pki/ca-rotation-driver.js';
import { startCaRotation } from '../../kubernetes/pki/ca-rotation-start.js';
import { publishedTrustProblem, waitForPublishedTrust } from '../../kubernetes/cluster/published-trust.js';
import { describeWorkload, isSystemWorkload, workloadsWithStaleTrust, type PodList, type WorkloadRef } from '../../kubernetes/pki/stale-trust-workloads.js';
import { InputError } from '../../orchestrator/engine/input-error.js';
import type { Inventory } from '../../orchestrator/inventory/model.js';
import { parseMaxUnavailable } from './max-unavailable.js';

interface RotateCaOptions extends PlaybookCommandOptions {
  readonly ca?: string;
  readonly restartWorkloads?: boolean;
  readonly skipWorkloads?: boolean;
  readonly serviceAccountKey?: boolean;
  readonly keepOldKey?: string;
  readonly maxUnavailable: string;
  readonly yes?: boolean;
}

export function parseCas(value: string | undefined): CaFile[] | undefined {
  if (value === undefined) return undefined;
  const names = value.split(',').map((s) => s.trim());
  if (names.length === 1 && names[0] === 'all') return Object.values(ROTATABLE_CAS);
  const unknown = names.filter((n) => !(n in ROTATABLE_CAS));
  if (unknown.length > 0 || names.length === 0)
    throw new InputError(`--ca ${value}: unknown CA ${unknown.join(', ')}: give all, or any of ${Object.keys(ROTATABLE_CAS).join(', ')} (comma separated)`);
  return [...new Set(names.map((n) => ROTATABLE_CAS[n as CaName]))];
}

/** How long the old service-account public key verifies tokens after the new key signs, unless told. */
const DEFAULT_KEEP_OLD_KEY = '24h';

/** A flag's duration ("30s", "10m", "24h", "7d") in milliseconds; more than zero. */
export function parseDuration(value: string, flag: string): number {
  const ms = durationMs(value);
  if (ms === undefined || ms === 0) throw new InputError(`${flag} ${value}: give a duration such as 90s, 30m, 24h or 7d`);
  return ms;
}

/** The operator's workloads whose pods read the old cluster CA alone, through the API. */
async function operatorWorkloadsWithOldTrust(inputs: ClusterInputs, rotation: CaRotation, publishedAt: Date): Promise<WorkloadRef[]> {
  const pods = await adminApi(inputs).get<PodList>('/api/v1/pods');
  return workloadsWithStaleTrust(pods, publishedAt, rotationRollMark(rotation)).filter((w) => !isSystemWorkload(w));
}

/** What outside the cluster holds the old CAs, once they are gone. */
function outsideRefreshes(inventory: Inventory, rotation: CaRotation): string[] {
  const lines: string[] = [];
  if (rotation.cas.includes('ca'))
    lines.push(
      `kubeconfigs written before ${rotation.startedAt}: their certificate-authority-data is the old cluster CA, and the admin's from kcluster kubeconfig (subject CN=kubernetes-admin, O=system:masters) has a certificate from it, which the API servers refuse now: write them again (kcluster kubeconfig -i ${inventory.file} --file PATH); kubeconfigs of other users (OIDC, tokens) need the new ${join(inventory.stateDir, 'pki', 'ca.crt')} as their certificate-authority-data`,
    );
  if (rotation.cas.includes('etcd/ca'))
    lines.push(`etcd clients outside the cluster (backup tools): they must trust ${join(inventory.stateDir, 'pki', 'etcd', 'ca.crt')} now`);
  if (rotation.cas.includes('front-proxy-ca'))
    lines.push(
      `aggregated API servers outside the cluster that verify the front proxy with a file of their own: give them ${join(inventory.stateDir, 'pki', 'front-proxy-ca.crt')}`,
    );
  return lines;
}

async function rotateCa(cli: CliContext, options: RotateCaOptions): Promise<void> {
  const log = (line: string): void => void cli.stderr.write(`kcluster: ${line}\n`);
  const refuse = (message: string): void => {
    log(message);
    cli.setExitCode(ExitCode.InvalidInput);
  };
  let maxUnavailable: number | `${number}%`;
  let wanted: Rotated[] | undefined;
  let keepOldKeyMs: number;
  try {
    maxUnavailable = parseMaxUnavailable(options.maxUnavailable);
    wanted = parseCas(options.ca);
    if (options.restartWorkloads && options.skipWorkloads) throw new InputError('--restart-workloads and --skip-workloads exclude each other: give one');
    if (options.serviceAccountKey && wanted !== undefined)
      throw new InputError('--service-account-key rotates the service-account key alone: run it apart from the CAs (without --ca)');
    if (options.serviceAccountKey) wanted = [SERVICE_ACCOUNT_KEY];
    // Only the key's rotation keeps an old key: given to a CA rotation it would do nothing.
    if (options.keepOldKey !== undefined && !options.serviceAccountKey)
      throw new InputError(
        `--keep-old-key ${options.keepOldKey}: only the service-account key's rotation keeps an old key (add --service-account-key, or leave it out)`,
      );
    keepOldKeyMs = parseDuration(options.keepOldKey ?? DEFAULT_KEEP_OLD_KEY, '--keep-old-key');
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    return refuse(error.message);
  }
  const inventory = await loadInventoryOrReport(cli, options.inventory);
  if (!inventory) return;
  // The record is read, the new CAs made and each phase recorded under one hold of the lock.
  await withStateLock(cli, inventory, () => rotateLocked(cli, options, inventory, { maxUnavailable, wanted, keepOldKeyMs }));
}

interface RotationRequest {
  readonly maxUnavailable: number | `${number}%`;
  readonly wanted: Rotated[] | undefined;
  readonly keepOldKeyMs: number;
}

async function rotateLocked(cli: CliContext, options: RotateCaOptions, inventory: Inventory, request: RotationRequest): Promise<void> {
  const { maxUnavailable, wanted, keepOldKeyMs } = request;
  const log = (line: string): void => void cli.stderr.write(`kcluster: ${line}\n`);
  const refuse = (message: string): void => {
    log(message);
    cli.setExitCode(ExitCode.InvalidInput);
  };
  let rotation: CaRotation | undefined;
  try {
    requireInstalledPki(inventory, 'certs rotate-ca');
    rotation = await readCaRotation(inventory.stateDir);
  } catch (error) {
    return refuse(error instanceof Error ? error.message : String(error));
  }
  const conflict = rotationConflict(rotation, wanted, inventory.file);
  if (conflict !== undefined) return refuse(conflict);
  const cas: readonly Rotated[] = rotation?.cas ?? wanted ?? Object.values(ROTATABLE_CAS);
  const left = phasesLeft(rotation ?? { cas, phase: 'trust-new' });
  log(
    `${rotation ? `resuming the rotation of ${rotatedNames(cas)} started ${rotation.startedAt}` : `rotation of ${rotatedNames(cas)}`}: phases left: ${left.map((p, i) => `\n  ${i + 1}. ${p}: ${phaseDescription(p, cas)}`).join('')}`,
  );
  if (options.check && rotation === undefined) {
    log('--check: no rotation under way, nothing changed; the first phase can be planned once the new CAs exist (run without --check)');
    return;
  }
  if (rotation === undefined) {
    const refusal = await refusalUnlessConfirmed(
      cli,
      cas.includes(SERVICE_ACCOUNT_KEY)
        ? `certs rotate-ca --service-account-key makes a new service-account key pair in ${join(inventory.stateDir, 'pki', 'rotation')} and restarts the API servers and controller-managers three times, one control plane at a time; tokens signed by the old key stay valid until ${keepOldKeyMs / 1000} s after the new key signs`
        : `certs rotate-ca makes new ${rotatedNames(cas)} CAs in ${join(inventory.stateDir, 'pki', 'rotation')}, restarts every control-plane component and kubelet three times (one control plane, then ${options.maxUnavailable} other node(s) at a time) and rolls the pods that read the cluster CA`,
      options.yes,
    );
    if (refusal) return refuse(refusal);
    rotation = await startCaRotation(inventory.stateDir, cas, new Date());
    // With a state store, the new CAs are in it before any host trusts them.
    await sessionFor(inventory.stateDir)?.commit('certs rotate-ca: new CAs made');
    log(`made: ${cas.map((ca) => join(inventory.stateDir, 'pki', 'rotation', 'next', verifyingFile(ca))).join(', ')}`);
  }
  const runPhase = async (current: CaRotation, phase: RotationPhase, record: (r: CaRotation) => Promise<void>): Promise<PhaseOutcome> => {
    const summary = await runPlaybookCommand(
      cli,
      async (loaded) => {
        await refuseUnsupportedChanges(loaded, { say: log, requireRunning: 'certs rotate-ca' });
        const inputs = await clusterInputsFor(loaded, preparationIo(cli), new Set(), { registryCredentials: false, planOnly: options.check === true });
        if (phase !== 'restart-pods') return { playbook: rotateCaPhasePlaybook(inputs, current, phase, { maxUnavailable }) };
        let publishedAt = current.trustPublishedAt !== undefined ? new Date(current.trustPublishedAt) : undefined;
        if (publishedAt === undefined) {
          const problem = options.check
            ? await publishedTrustProblem(adminApi(inputs), inputs.pki.trust, current.cas)
            : await waitForPublishedTrust(adminApi(inputs), inputs.pki.trust, current.cas, 120_000, log);
          if (problem !== undefined) throw new InputError(`the new trust is not published yet: ${problem}; run the same command again`);
          publishedAt = new Date();
          if (!options.check) await record({ ...current, trustPublishedAt: publishedAt.toISOString() });
        }
        const operators = current.cas.includes('ca') ? await operatorWorkloadsWithOldTrust(inputs, current, publishedAt) : [];
        if (operators.length > 0 && !options.restartWorkloads) {
          const list = operators.map(describeWorkload).join(', ');
          if (!options.skipWorkloads)
            throw new InputError(
              `${operators.length} of your workloads run pods that read the old cluster CA alone: ${list}. They cannot verify the API servers once their certificates come from the new CA (the next phase). Run the same command with --restart-workloads (kcluster rolls them now) or --skip-workloads (you restart them yourself)`,
            );
          log(`--skip-workloads: restart these yourself before the API servers' certificates come from the new CA: ${list}`);
        }
        const selected = (w: WorkloadRef): boolean => isSystemWorkload(w) || options.restartWorkloads === true;
        return { playbook: rotateCaPhasePlaybook(inputs, current, phase, { maxUnavailable, trustPublishedAt: publishedAt, selected }) };
      },
      options,
    );
    if (!summary) return 'not-run';
    if (options.check) return 'checked';
    if (summary.exitCode !== 0) return summary.interrupted ? 'interrupted' : 'failed';
    return 'done';
  };
  const driven = await driveCaRotation(rotation, keepOldKeyMs, {
    runPhase,
    save: async (r) => {
      await writeCaRotation(inventory.stateDir, r);
      await sessionFor(inventory.stateDir)?.commit(`certs rotate-ca: at phase ${r.phase}`);
    },
    now: () => new Date(),
    log,
  });
  if (driven.kind === 'waiting')
    return log(
      `the old service-account public key verifies tokens until ${driven.until} (--keep-old-key): run the same command after that to drop it; until then kcluster apply keeps both`,
    );
  if (driven.kind === 'stopped') {
    if (driven.outcome === 'failed')
      log(
        `phase ${driven.phase} did not finish (see above); every component still trusts what it needs, and ${join(inventory.stateDir, 'pki', 'rotation', 'state.json')} records the phase: fix the cause, then run the same command again to go on`,
      );
    return;
  }
  rotation = driven.rotation;
  const retired = await retireCaRotation(inventory.stateDir, rotation);
  const fingerprints = await Promise.all(
    cas
      .filter((ca) => ca !== SERVICE_ACCOUNT_KEY)
      .map(async (ca) => `${ca}.crt ${new X509Certificate(await readFile(join(inventory.stateDir, 'pki', `${ca}.crt`))).fingerprint256}`),
  );
  log(
    `rotated ${rotatedNames(cas)}${fingerprints.length > 0 ? ` (${fingerprints.join('; ')})` : ''}. The old ones are in ${retired}, trusted by no host any more.`,
  );
  const outside = outsideRefreshes(inventory, rotation);
  if (outside.length > 0) log(`outside the cluster, refresh:${outside.map((l) => `\n  - ${l}`).join('')}`);
}

export function registerRotateCaCommand(certs: Command, cli: CliContext): void {
  certs
    .command('rotate-ca')
    .description('replace the cluster, etcd and front-proxy CAs with no downtime, in phases a rerun continues (asks first)')
    .requiredOption('-i, --inventory <file>', 'inventory file (YAML)')
    .option('--ca <names>', `which CAs: all, or any of ${Object.keys(ROTATABLE_CAS).join(', ')} (comma separated; default all)`)
    .option('--restart-workloads', "roll your workloads whose pods read the old cluster CA (kcluster's addons are always rolled)")
    .option('--skip-workloads', 'leave them to you (listed; they fail to verify the API servers until restarted)')
    .option('--service-account-key', 'rotate the service-account signing key instead (alone; the CAs stay)')
    .option(
      '--keep-old-key <duration>',
      `with --service-account-key: how long the old public key still verifies tokens after the new key signs (90s, 30m, 24h, 7d; default ${DEFAULT_KEEP_OLD_KEY})`,
    )
    .addOption(new Option('--max-unavailable <n>', 'other nodes changed at once after the control planes (count or percentage)').default('1'))
    .option('-C, --check', 'name the phases left and plan the next one; change nothing')
    .option('-D, --diff', 'show unified diffs of file changes')
    .option('-y, --yes', 'do not ask for confirmation')
    .addOption(new Option('-o, --output <format>', 'text (live tree on a terminal, lines otherwise) or json (NDJSON events)').choices(['text', 'json']))
    .action((options: RotateCaOptions) => rotateCa(cli, options));
}
