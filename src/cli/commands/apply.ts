// `kcluster apply -i FILE`: bring the inventory's machines to a working Kubernetes cluster, or
// keep one as it should be. Before any host is touched: the inventory is checked, a running
// cluster is asked whether the inventory asks for something apply refuses (another version, a
// new control plane), every artifact is fetched and verified on the controller, the cluster PKI is created or reused
// (with a warning for each certificate near its end that it does not renew: the CAs).
import { Option, type Command } from 'commander';
import type { CliContext } from '../context.js';
import { addPlaybookOptions } from '../playbook-options.js';
import { runPlaybookCommand, type PlaybookCommandOptions } from '../run-playbook-command.js';
import { ArtifactError } from '../../artifacts/artifact.js';
import { prepareArtifacts } from '../../artifacts/prepare-artifacts.js';
import type { ClusterInputs } from '../../cluster/cluster-inputs.js';
import { pkiSpecOf } from '../../cluster/pki-spec.js';
import { readRunningCluster, type RunningCluster } from '../../cluster/running-cluster.js';
import { newControlPlaneRefusal, versionChangeRefusal } from '../../cluster/running-cluster-refusals.js';
import { topologyOf, type Topology } from '../../cluster/topology.js';
import { InputError } from '../../engine/input-error.js';
import type { Inventory } from '../../inventory/model.js';
import { ensureClusterPki, leafRequests, type ClusterPki, type PkiSpec } from '../../pki/cluster-pki.js';
import { RENEW_BEFORE_DAYS } from '../../pki/certificate-request.js';
import { changedStems, expiryLine, stateExpiryWarnings } from '../../certs/expiry-warnings.js';
import { readStateCertificates } from '../../certs/state-certificates.js';
import { clusterPlaybook } from '../../../playbooks/cluster.js';

interface ApplyOptions extends PlaybookCommandOptions {
  readonly ignorePreflight?: string;
}

export interface ClusterInputsOptions {
  /** Replace every leaf certificate of the PKI now (kcluster certs renew); CAs and sa.key never. */
  readonly renewLeaves?: boolean;
}

/** Warn on stderr about state-folder certificates within 30 days of expiry this run did not renew (the CAs, in practice). */
async function warnAboutExpiringCertificates(inventory: Inventory, spec: PkiSpec, pki: ClusterPki, log: (line: string) => void): Promise<void> {
  const state = await readStateCertificates(inventory.stateDir);
  const warnings = stateExpiryWarnings(state.rows, {
    pkiDir: state.pkiDir,
    inventoryFile: inventory.file,
    withinDays: RENEW_BEFORE_DAYS,
    renewed: changedStems(pki.changes),
    managedLeaves: new Set(leafRequests(spec).map((r) => r.file)),
  });
  for (const { row, advice } of warnings) log(expiryLine(row, advice));
}

function topologyOrInputError(inventory: Inventory): Topology {
  try {
    return topologyOf(inventory);
  } catch (error) {
    throw new InputError((error as Error).message);
  }
}

export async function clusterInputsFor(inventory: Inventory, cli: CliContext, ignorePreflight: ReadonlySet<string>, options: ClusterInputsOptions = {}): Promise<ClusterInputs> {
  const topology = topologyOrInputError(inventory);
  const log = (line: string): void => void cli.stderr.write(`kcluster: ${line}\n`);
  const started = Date.now();
  let artifacts;
  try {
    artifacts = await prepareArtifacts(inventory, { signal: cli.signal, log });
  } catch (error) {
    if (error instanceof ArtifactError || /knows the component versions/.test((error as Error).message)) throw new InputError(`${inventory.file}: ${(error as Error).message}`);
    throw error;
  }
  log(`${artifacts.length} artifacts verified on the controller in ${((Date.now() - started) / 1000).toFixed(1)} s (${inventory.cluster.artifacts.kind})`);
  const spec = pkiSpecOf(inventory, topology);
  const pki = await ensureClusterPki(inventory.stateDir, spec, options.renewLeaves ? { renewLeaves: true } : {});
  for (const change of pki.changes) log(`pki: ${change}`);
  await warnAboutExpiringCertificates(inventory, spec, pki, log);
  return { inventory, topology, artifacts, pki, ignorePreflight, controllerEpochSeconds: Math.floor(Date.now() / 1000) };
}

/**
 * Before anything is generated or changed: what `apply` refuses to do to a running cluster
 * (change its version: `kcluster upgrade` does that, in order; add a control plane).
 */
export async function refuseUnsupportedChanges(inventory: Inventory): Promise<RunningCluster | undefined> {
  const topology = topologyOrInputError(inventory);
  const running = await readRunningCluster(inventory.stateDir, topology);
  if (running === undefined) return undefined; // no cluster answers yet: a fresh install
  const refusal =
    versionChangeRefusal(running, inventory.cluster.kubernetesVersion, inventory.file) ??
    newControlPlaneRefusal(running, topology.controlPlanes.map((h) => h.name), inventory.file);
  if (refusal !== undefined) throw new InputError(refusal);
  return running;
}

export function registerApplyCommand(program: Command, cli: CliContext): void {
  const command = program.command('apply').description('install or converge the Kubernetes cluster the inventory describes');
  addPlaybookOptions(command).addOption(new Option('--ignore-preflight <checks>', 'preflight checks to skip knowingly (comma separated names, as failures print them)'));
  command.action(async (options: ApplyOptions) => {
    const ignore = new Set((options.ignorePreflight ?? '').split(',').map((s) => s.trim()).filter(Boolean));
    await runPlaybookCommand(
      cli,
      async (inventory) => {
        const running = await refuseUnsupportedChanges(inventory);
        const inputs = await clusterInputsFor(inventory, cli, ignore);
        return { playbook: clusterPlaybook(inputs, { running: running !== undefined }) };
      },
      options,
    );
  });
}
