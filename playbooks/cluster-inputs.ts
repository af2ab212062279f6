// What the cluster playbooks are built from, prepared on the controller before any host is
// touched: the topology, every artifact fetched and verified, the cluster PKI created or reused
// (with a warning for each certificate near its end that it does not renew: the CAs), and the
// refusals of what `apply` does not do to a running cluster. Used by apply, upgrade and certs.
import { readFile } from 'node:fs/promises';
import { ArtifactError } from '../src/kubernetes/artifacts/artifact.js';
import { prepareArtifacts } from '../src/kubernetes/artifacts/prepare-artifacts.js';
import { unfetchedArtifacts } from '../src/kubernetes/artifacts/unfetched-artifacts.js';
import { ArtifactFanOut } from '../src/kubernetes/artifacts/fan-out/artifact-fan-out.js';
import { fanOutApplies, fanOutOffReason } from '../src/kubernetes/artifacts/fan-out/fan-out-limits.js';
import { changedStems, expiryLine, stateExpiryWarnings } from '../src/kubernetes/pki/expiry-warnings.js';
import { readStateCertificates } from '../src/kubernetes/pki/state-certificates.js';
import type { ClusterInputs } from '../src/kubernetes/cluster/cluster-inputs.js';
import { pkiSpecOf } from '../src/kubernetes/cluster/pki-spec.js';
import { LIST_WAIT_MS, readRunningCluster, type RunningCluster } from '../src/kubernetes/cluster/running-cluster.js';
import { newControlPlaneRefusal, versionChangeRefusal } from '../src/kubernetes/cluster/running-cluster-refusals.js';
import { topologyOrInputError } from '../src/kubernetes/cluster/installed-cluster.js';
import { InputError } from '../src/orchestrator/engine/input-error.js';
import { EncryptionKeyStore } from '../src/kubernetes/secrets/encryption-keys.js';
import { DEFAULT_AUDIT_POLICY } from '../src/kubernetes/cluster/audit-policy.js';
import { auditPolicyProblems } from '../src/kubernetes/cluster/audit-policy-check.js';
import { componentArgProblems } from '../src/kubernetes/cluster/component-args.js';
import { inventoryKeyLocation, SourceMap } from '../src/kubernetes/inventory/source-map.js';
import { kclusterFlags } from '../roles/control-plane/kcluster-flags.js';
import { kclusterKubeletFields } from '../roles/kubelet/kcluster-fields.js';
import { kubeletConfigProblems } from '../src/kubernetes/cluster/kubelet-config.js';
import { ComponentFileError, loadComponentFiles, type ComponentFiles } from '../src/kubernetes/cluster/component-files.js';
import { chartsOrInputError } from '../src/kubernetes/charts/charts-input.js';
import type { PreparedCharts } from '../src/kubernetes/charts/prepared-chart.js';
import { loadOperatorManifests, ManifestError, type OperatorManifests } from '../src/kubernetes/cluster/operator-manifests.js';
import { MissingRegistryCredential, registryAuthFrom, type RegistryAuth } from '../src/kubernetes/cluster/registries.js';
import { kubeProxyConfigProblems } from '../src/kubernetes/cluster/kube-proxy-config.js';
import { configFieldRefusals } from '../src/kubernetes/cluster/config-field-refusals.js';
import { kclusterKubeProxyFields } from '../roles/addons/kube-proxy-fields.js';
import type { Inventory } from '../src/orchestrator/inventory/model.js';
import { heldRecipientFor } from '../src/orchestrator/state-store/held-recipients.js';
import { snapshotUploadCredential, type SnapshotUploadCredential, type SnapshotUploadInputs } from '../src/kubernetes/etcd/scheduled-snapshot-upload.js';
import { nodeAddress, type Topology } from '../src/kubernetes/cluster/topology.js';
import { RENEW_BEFORE_DAYS } from '../src/kubernetes/pki/certificate-request.js';
import { ensureClusterPki, leafRequests, type ClusterPki, type PkiSpec } from '../src/kubernetes/pki/cluster-pki.js';

/** Where the preparation reports (one line each) and what stops it (Ctrl-C). */
export interface PreparationIo {
  readonly log: (line: string) => void;
  readonly signal: AbortSignal;
}

export interface ClusterInputsOptions {
  /** Replace every leaf certificate of the PKI now (kcluster certs renew); CAs and sa.key never. */
  readonly renewLeaves?: boolean;
  /**
   * Read the registries' credentials from the environment (default true). Playbooks without a
   * container runtime role (certs renew, secrets rotate-key) never write them, so they do not
   * ask for them.
   */
  readonly registryCredentials?: boolean;
  /**
   * Read the control planes' store upload credential from the environment (default true, with
   * cluster.state.scheduledSnapshots). What never writes their settings (certs renew, secrets
   * rotate-key, config --host) does not ask for it.
   */
  readonly snapshotUploadCredential?: boolean;
  /**
   * A --check or --list-tags run: the PKI and the Secrets encryption key a first run would make
   * are made in memory; the state folder is left byte-identical (issue 40's invariant).
   */
  readonly planOnly?: boolean;
  /**
   * Built only to be read (--list-tags, the build that checks --tags first): the artifacts are
   * resolved, not downloaded or verified (unfetchedArtifacts); implies planOnly.
   */
  readonly readOnly?: boolean;
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

/** The API server's audit policy: kcluster's, or the operator's file once it passes the checks an API server makes. */
async function auditPolicyOf(inventory: Inventory): Promise<string> {
  const file = inventory.cluster.audit.policyFile;
  if (file === undefined) return DEFAULT_AUDIT_POLICY;
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new InputError(
      `${inventory.file}: cluster.audit.policyFile: ${file}: cannot read it on the controller (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}): fix the path, or remove policyFile to use kcluster's`,
    );
  }
  const problems = auditPolicyProblems(text);
  if (problems.length > 0) {
    const lines = problems.map((p) => `${file}:${p.line}:${p.col}: ${p.path ? `${p.path}: ` : ''}${p.message}`);
    throw new InputError(
      `${lines.join('\n')}\nthe audit policy that cluster.audit.policyFile names in ${inventory.file} would stop the API server from starting: fix it, or remove policyFile to use kcluster's`,
    );
  }
  return text;
}

/**
 * What repeats a setting kcluster makes itself, each at its file:line:col, before any host is
 * touched: cluster.<component>.extraArgs flags, and vars.kubeletConfig fields (reported where
 * the var is written: the host's vars, a group's, or the cluster's); and the kubelet and
 * kube-proxy fields that the Kubernetes version's configuration types do not know or that
 * have the wrong kind. validate and apply both call it.
 */
export function refuseWhatKclusterSets(inventory: Inventory): void {
  const flags = componentArgProblems(inventory.cluster, kclusterFlags);
  const fields = kubeletConfigProblems(inventory, kclusterKubeletFields());
  const proxyFields = kubeProxyConfigProblems(inventory.cluster.kubeProxy, kclusterKubeProxyFields());
  let sourceMap: SourceMap | undefined;
  const mapOf = (): SourceMap => (sourceMap ??= SourceMap.ofFile(inventory.file));
  const unknown = configFieldRefusals(inventory, mapOf);
  if (flags.length === 0 && fields.length === 0 && proxyFields.length === 0 && unknown.length === 0) return;
  const map = mapOf();
  const lines = flags.map((p) => {
    const { line, col } = map.key(p.path, p.flag);
    return `${inventory.file}:${line}:${col}: ${[...p.path, p.flag].join('.')}: ${p.message}`;
  });
  for (const p of proxyFields) {
    const { line, col } = map.key(['cluster', 'kubeProxy', 'config'], p.field);
    lines.push(`${inventory.file}:${line}:${col}: cluster.kubeProxy.config.${p.field}: ${p.message}`);
  }
  const seen = new Set<string>();
  for (const p of fields) {
    const index = inventory.hosts.findIndex((h) => h.name === p.host);
    const groupPaths = Object.entries(inventory.groups)
      .filter(([, members]) => members.includes(p.host))
      .map(([g]) => ['groups', g, 'vars', 'kubeletConfig']);
    const candidates = [['hosts', index, 'vars', 'kubeletConfig'], ...groupPaths, ['vars', 'kubeletConfig']];
    const found = candidates.map((path) => ({ path, at: map.keyIfWritten(path, p.field) })).find((c) => c.at !== undefined);
    const where = found
      ? `${inventory.file}:${found.at!.line}:${found.at!.col}: ${[...found.path, p.field].join('.')}`
      : `${inventory.file}: host ${p.host}: vars.kubeletConfig.${p.field}`;
    if (seen.has(where)) continue;
    seen.add(where);
    lines.push(`${where}: ${p.message}`);
  }
  lines.push(...unknown);
  throw new InputError(lines.join('\n'));
}

/** The files the components' flags reference, or every problem with them, before any host is touched. */
export async function componentFilesOrInputError(inventory: Inventory): Promise<ComponentFiles> {
  try {
    return await loadComponentFiles(inventory.cluster);
  } catch (error) {
    if (!(error instanceof ComponentFileError)) throw error;
    throw new InputError(error.problems.map((p) => `${inventory.file}: ${p}`).join('\n'));
  }
}

/** The operator's manifests, or every problem in them (file:line:col) before any host is touched. */
export async function operatorManifestsOrInputError(inventory: Inventory): Promise<OperatorManifests> {
  try {
    return await loadOperatorManifests(inventory.cluster.manifests);
  } catch (error) {
    if (!(error instanceof ManifestError)) throw error;
    throw new InputError(
      `${error.message}\nthe manifests cluster.manifests names in ${inventory.file} cannot be applied: fix them, or remove them from the list`,
    );
  }
}

/** The registries' credentials, or an error at the place that names the variable that is not set. */
export function registryAuthOrInputError(inventory: Inventory, env: Readonly<Record<string, string | undefined>>): RegistryAuth {
  try {
    return registryAuthFrom(inventory.cluster.registries, env);
  } catch (error) {
    if (!(error instanceof MissingRegistryCredential)) throw error;
    const at = SourceMap.ofFile(inventory.file).value(['cluster', 'registries', error.registry, error.field]);
    throw new InputError(`${inventory.file}:${at.line}:${at.col}: cluster.registries.${error.registry}.${error.message}`);
  }
}

/** What the inputs checks give back, so apply builds from what was checked instead of reading it twice. */
export interface CheckedClusterInputs {
  readonly topology: Topology;
  readonly auditPolicy: string;
  readonly registryAuth?: RegistryAuth;
  readonly operatorManifests: OperatorManifests;
  readonly componentFiles: ComponentFiles;
  readonly charts: PreparedCharts;
  readonly snapshotUploadCredential?: SnapshotUploadCredential;
}

/**
 * Every refusal of the cluster's inputs that the controller decides alone, without SSH,
 * downloads or a running cluster, all at once (one InputError, one block of lines per check,
 * in this order): the topology; what repeats a setting kcluster makes and unknown
 * configuration fields; the audit policy file; the artifact source (the bundle is there and
 * lists every piece the inventory needs, or a release image has a source: nothing downloaded
 * or hashed); the registries' credentials in `env`; the operator's manifests; the files the
 * components' flags read; the charts (cluster.charts: read and rendered by the bundle's helm). `kcluster validate` and `apply` (through clusterInputsFor) both
 * call it, so they refuse the same inputs with the same words.
 */
export async function checkClusterInputs(
  inventory: Inventory,
  env: Readonly<Record<string, string | undefined>>,
  options: Pick<ClusterInputsOptions, 'registryCredentials' | 'snapshotUploadCredential'> = {},
): Promise<CheckedClusterInputs> {
  // Without a topology the other checks have nothing to stand on.
  const topology = topologyOrInputError(inventory);
  const problems: string[] = [];
  async function check<T>(run: () => T | Promise<T>): Promise<T | undefined> {
    try {
      return await run();
    } catch (error) {
      if (error instanceof InputError) problems.push(error.message);
      else if (error instanceof ArtifactError) problems.push(artifactProblem(inventory, error));
      else throw error;
      return undefined;
    }
  }
  await check(() => refuseWhatKclusterSets(inventory));
  const auditPolicy = await check(() => auditPolicyOf(inventory));
  await check(() => prepareArtifacts(inventory, { resolveOnly: true }));
  const registryAuth = options.registryCredentials === false ? undefined : await check(() => registryAuthOrInputError(inventory, env));
  const operatorManifests = await check(() => operatorManifestsOrInputError(inventory));
  const componentFiles = await check(() => componentFilesOrInputError(inventory));
  const charts = await check(() => chartsOrInputError(inventory));
  const snapshotUpload =
    options.registryCredentials === false || options.snapshotUploadCredential === false
      ? undefined
      : await check(() => snapshotUploadCredential(inventory, env));
  if (problems.length > 0 || auditPolicy === undefined || operatorManifests === undefined || componentFiles === undefined || charts === undefined)
    throw new InputError(problems.join('\n'));
  return {
    topology,
    auditPolicy,
    ...(registryAuth !== undefined ? { registryAuth } : {}),
    operatorManifests,
    componentFiles,
    charts,
    ...(snapshotUpload !== undefined ? { snapshotUploadCredential: snapshotUpload } : {}),
  };
}

export async function clusterInputsFor(
  inventory: Inventory,
  io: PreparationIo,
  ignorePreflight: ReadonlySet<string>,
  options: ClusterInputsOptions = {},
): Promise<ClusterInputs> {
  const { topology, auditPolicy, registryAuth, operatorManifests, componentFiles, charts, snapshotUploadCredential } = await checkClusterInputs(
    inventory,
    process.env,
    options,
  );
  const snapshotUpload = snapshotUploadInputs(inventory, snapshotUploadCredential, options.readOnly === true);

  const { log } = io;
  const started = Date.now();
  let artifacts;
  try {
    artifacts = options.readOnly === true ? await unfetchedArtifacts(inventory) : await prepareArtifacts(inventory, { signal: io.signal, log });
  } catch (error) {
    if (error instanceof ArtifactError) throw new InputError(artifactProblem(inventory, error));
    throw error;
  }
  if (options.readOnly !== true)
    log(`${artifacts.length} artifacts verified on the controller in ${((Date.now() - started) / 1000).toFixed(1)} s (${inventory.cluster.artifacts.kind})`);
  const spec = pkiSpecOf(inventory, topology);
  const pki = await ensureClusterPki(inventory.stateDir, spec, {
    renewLeaves: options.renewLeaves === true,
    inMemory: options.planOnly === true || options.readOnly === true,
  });
  for (const change of pki.changes)
    log(options.planOnly === true || options.readOnly === true ? `pki (made in memory for this plan, not written): ${change}` : `pki: ${change}`);
  await warnAboutExpiringCertificates(inventory, spec, pki, log);
  const encryption = await new EncryptionKeyStore(inventory.stateDir, { inMemory: options.planOnly === true || options.readOnly === true }).ensure();
  const fanOut = fanOutApplies(inventory) ? new ArtifactFanOut(nodeAddress) : undefined;
  if (inventory.cluster.artifacts.fanOut && fanOut === undefined)
    log(`artifacts: no fan-out between hosts in this run (${fanOutOffReason(inventory)}): the controller sends every host its copy`);
  return {
    inventory,
    topology,
    artifacts,
    pki,
    encryption,
    auditPolicy,
    ignorePreflight,
    controllerEpochSeconds: Math.floor(Date.now() / 1000),
    ...(registryAuth !== undefined ? { registryAuth } : {}),
    operatorManifests,
    componentFiles,
    charts,
    ...(fanOut !== undefined ? { fanOut } : {}),
    ...(snapshotUpload !== undefined ? { snapshotUpload } : {}),
  };
}

/** Stands for the control planes' upload settings in a playbook built only to be read: it never reaches a host. */
export const UNREAD_SNAPSHOT_UPLOAD: SnapshotUploadInputs = {
  credential: { accessKeyId: '', secretAccessKey: '' },
  recipient: { publicKey: '', kid: 'not read (no state store session)' },
};

/**
 * The credential and the key the control planes seal scheduled snapshots for, which the store's
 * session holds (a command that runs the cluster playbook holds it). A read-only look at the
 * plan (no session) gets a recipient that says so: it never reaches a host.
 */
function snapshotUploadInputs(inventory: Inventory, credential: SnapshotUploadCredential | undefined, readOnly: boolean): SnapshotUploadInputs | undefined {
  if (credential === undefined) return undefined;
  const recipient = heldRecipientFor(inventory.stateDir);
  if (recipient !== undefined) return { credential, recipient };
  if (readOnly) return { ...UNREAD_SNAPSHOT_UPLOAD, credential };
  throw new Error(
    `cluster.state.scheduledSnapshots in ${inventory.file}: the command runs without the state store's session, so the key the control planes seal for is unknown`,
  );
}

/** An artifact problem as an inventory error: at its key's file:line:col when it is about one. */
function artifactProblem(inventory: Inventory, error: ArtifactError): string {
  return error.inventoryKey !== undefined
    ? `${inventoryKeyLocation(inventory.file, error.inventoryKey)}: ${error.message}`
    : `${inventory.file}: ${error.message}`;
}

/**
 * Before anything is generated or changed: what `apply` refuses to do to a running cluster
 * (change its version: `kcluster upgrade` does that, in order; add a control plane, unless
 * the command is apply, which adds them).
 */

export async function refuseUnsupportedChanges(
  inventory: Inventory,
  options: {
    readonly addsControlPlanes?: boolean;
    readonly say?: (line: string) => void;
    /** The command works only on a running cluster: wait for an API server (LIST_WAIT_MS), then refuse naming each one's reason. */
    readonly requireRunning?: string;
    /** A cluster was installed here before: wait for an API server (LIST_WAIT_MS) before taking none for an answer, and say so then. */
    readonly installedBefore?: boolean;
  } = {},
): Promise<RunningCluster | undefined> {
  const topology = topologyOrInputError(inventory);
  let why = '';
  const running = await readRunningCluster(inventory.stateDir, topology, undefined, undefined, {
    ...(options.say !== undefined ? { say: options.say } : {}),
    ...(options.requireRunning !== undefined || options.installedBefore === true
      ? { answerWaitMs: LIST_WAIT_MS, noAnswer: (reasons: string) => void (why = reasons) }
      : {}),
  });
  if (running === undefined && options.requireRunning !== undefined)
    throw new InputError(
      `${inventory.file}: no API server of cluster ${inventory.cluster.name} answered within ${LIST_WAIT_MS / 1000} s (${why}): ${options.requireRunning} works on a running cluster. ` +
        'Start its control planes (kcluster status says what the last run left), or install it with kcluster apply',
    );
  if (running === undefined && options.installedBefore === true)
    options.say?.(
      `no API server of cluster ${inventory.cluster.name} answered within ${LIST_WAIT_MS / 1000} s (${why}), although apply completed here before: planning as for an installation (every task checks its host first)`,
    );
  if (running === undefined) return undefined; // no cluster answers yet: a fresh install
  const refusal =
    versionChangeRefusal(running, inventory.cluster.kubernetesVersion, inventory.file) ??
    (options.addsControlPlanes === true
      ? undefined
      : newControlPlaneRefusal(
          running,
          topology.controlPlanes.map((h) => h.name),
          inventory.file,
        ));
  if (refusal !== undefined) throw new InputError(refusal);
  return running;
}
