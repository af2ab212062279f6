// The control-plane role: the cluster certificates and keys this control plane needs, the
// kubeconfigs of the admin, controller-manager and scheduler, and etcd, kube-apiserver,
// kube-controller-manager and kube-scheduler as static pods; then it waits until the API
// server is ready, and on timeout shows the components' last log lines with the likely cause.
// A component restarts when its manifest changes, and its manifest carries the sha256 of every
// file it reads, so a renewed certificate restarts exactly the components that use it.
// See README.md beside this file.
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { ClusterInputs } from '../../src/kubernetes/cluster/cluster-inputs.js';
import { imageReference } from '../../src/kubernetes/cluster/cluster-inputs.js';
import { nodeAddress } from '../../src/kubernetes/cluster/topology.js';
import { noChange } from '../../src/orchestrator/engine/change.js';
import type { AnyTask, ApplyContext, HostContext, Role, Task } from '../../src/orchestrator/engine/types.js';
import type { Fact } from '../../src/orchestrator/engine/fact.js';
import { pollUntil } from '../../src/orchestrator/engine/poll-until.js';
import { READY_TIMEOUT_VAR, readyTimeoutMs } from '../../src/kubernetes/cluster/ready-timeout.js';
import { readFacts } from '../../src/orchestrator/engine/read-facts.js';
import { apiReady, type ApiReadiness } from '../../src/kubernetes/facts/api-ready.js';
import { lagging, MANIFESTS_DIR, staticPods, type StaticPods } from '../../src/kubernetes/facts/static-pods.js';
import type { CertAndKey } from '../../src/kubernetes/pki/cluster-pki.js';
import { renderKubeconfig } from '../../src/kubernetes/pki/cluster-pki.js';
import { sh } from '../../src/orchestrator/ssh/quote.js';
import { ENCRYPTION_CONFIG_PATH, renderEncryptionConfig } from '../../src/kubernetes/secrets/encryption-keys.js';
import { AUDIT_LOG_DIR, AUDIT_LOG_PATH, AUDIT_POLICY_PATH } from '../../src/kubernetes/cluster/audit-policy.js';
import { ADMISSION_CONFIG_PATH, renderAdmissionConfig } from '../../src/kubernetes/cluster/admission-config.js';
import { TLS_CIPHER_SUITES } from '../../src/kubernetes/cluster/tls-ciphers.js';
import { componentExtraArgs, type ControlPlaneComponent } from '../../src/kubernetes/cluster/component-args.js';
import { extraFilesDir } from '../../src/kubernetes/cluster/component-files.js';
import { extraFilesPruned, extraFilesWritten } from './extra-files.js';
import { componentReads, PKI } from './component-reads.js';
import { CONTROL_PLANE_MANIFESTS, keepLastGoodManifests, LAST_GOOD_MANIFESTS_DIR, lastGoodManifests, restoreLastGoodManifests } from '../../src/kubernetes/cluster/last-good-manifests.js';
import { directory } from '../../src/orchestrator/tasks/directory.js';
import { managedFile } from '../../src/orchestrator/tasks/managed-file.js';
import { templateFile } from '../../src/orchestrator/tasks/template-file.js';
import { factDerivedFile } from '../../src/orchestrator/tasks/fact-derived-file.js';
import { createEtcdUser, ETCD_DATA_DIR, ETCD_USER, etcdDataOwnership, etcdUser } from '../../src/kubernetes/etcd/etcd-user.js';
import { ETCD_OWN_PKI_DIR, ETCD_OWN_PKI_FILES, ETCD_OWN_PKI_FORMER_DIR } from '../../src/kubernetes/pki/etcd-key-folder.js';
import { fileAbsent } from '../../src/orchestrator/tasks/file-absent.js';
import { execChecked } from '../../src/orchestrator/ssh/connection.js';
import { createTemplateRenderer, type CompiledTemplate } from '../../src/orchestrator/templates/render.js';
import { packageRoot } from '../../src/orchestrator/util/package-root.js';

const templateDir = join(packageRoot(), 'roles', 'control-plane', 'templates');
const READY_TIMEOUT_MS = 300_000;

const sha = (...parts: string[]): string => createHash('sha256').update(parts.join('\0')).digest('hex');

function own(map: ReadonlyMap<string, CertAndKey>, host: string, what: string): CertAndKey {
  const found = map.get(host);
  if (!found) throw new Error(`${host}: no ${what} in the cluster PKI`);
  return found;
}

/** Every file a control-plane host gets, as (path, mode, content for this host). */
export function controlPlaneFiles(inputs: ClusterInputs): { path: string; mode: number; owner?: string; secret?: boolean; content: (ctx: HostContext) => string }[] {
  const { pki, inventory } = inputs;
  const pair = (name: string, value: CertAndKey | ((ctx: HostContext) => CertAndKey), keyOwner?: string) => {
    const get: (ctx: HostContext) => CertAndKey = typeof value === 'function' ? value : () => value;
    const stem = name.startsWith('/') ? name : `${PKI}/${name}`;
    return [
      { path: `${stem}.crt`, mode: 0o644, content: (ctx: HostContext) => get(ctx).cert },
      { path: `${stem}.key`, mode: 0o600, ...(keyOwner ? { owner: keyOwner } : {}), content: (ctx: HostContext) => get(ctx).key },
    ];
  };
  const local = (ctx: HostContext): string => `https://${nodeAddress(ctx.host)}:${inputs.topology.apiPort}`;
  const kubeconfig = (file: string, user: string, creds: CertAndKey, server: (ctx: HostContext) => string) => ({
    path: `/etc/kubernetes/${file}`,
    mode: 0o600,
    content: (ctx: HostContext) => renderKubeconfig({ clusterName: inventory.cluster.name, server: server(ctx), caCert: pki.ca.cert, user, cert: creds.cert, key: creds.key }),
  });
  return [
    ...pair('ca', pki.ca),
    ...pair('front-proxy-ca', pki.frontProxyCa),
    ...pair('etcd/ca', pki.etcdCa),
    ...pair('apiserver', pki.apiServer),
    ...pair('apiserver-kubelet-client', pki.apiServerKubeletClient),
    ...pair('apiserver-etcd-client', pki.apiServerEtcdClient),
    ...pair('front-proxy-client', pki.frontProxyClient),
    ...pair('etcd/healthcheck-client', pki.etcdHealthcheckClient),
    // etcd reads its own keys as the etcd user, from its own folder.
    ...pair(`${ETCD_OWN_PKI_DIR}/server`, (ctx) => own(pki.etcdServer, ctx.host.name, 'etcd server certificate'), ETCD_USER),
    ...pair(`${ETCD_OWN_PKI_DIR}/peer`, (ctx) => own(pki.etcdPeer, ctx.host.name, 'etcd peer certificate'), ETCD_USER),
    { path: `${PKI}/sa.key`, mode: 0o600, content: () => pki.serviceAccount.privateKey },
    { path: `${PKI}/sa.pub`, mode: 0o644, content: () => pki.serviceAccount.publicKey },
    kubeconfig('admin.conf', 'kubernetes-admin', pki.admin, local),
    kubeconfig('controller-manager.conf', 'system:kube-controller-manager', pki.controllerManager, local),
    kubeconfig('scheduler.conf', 'system:kube-scheduler', pki.scheduler, local),
    { path: ENCRYPTION_CONFIG_PATH, mode: 0o600, secret: true, content: () => renderEncryptionConfig(inputs.encryption) },
    { path: AUDIT_POLICY_PATH, mode: 0o600, content: () => inputs.auditPolicy },
    { path: ADMISSION_CONFIG_PATH, mode: 0o600, content: () => renderAdmissionConfig(inventory.cluster.podSecurity) },
  ];
}

/**
 * The last task: the API server answers /readyz and, on a running cluster, every static pod
 * runs the manifest now on disk and is Ready (see src/kubernetes/facts/static-pods.ts: right after a
 * manifest changes, the previous pod still answers /readyz until the kubelet replaces it).
 * Both are read in the role's one fact command, so a converged control plane costs no extra
 * round trip. A fresh install waits for /readyz only: there is no previous pod, and the
 * kubelet creates mirror pods it could not create before the API server was up only at its
 * next periodic sync (up to a minute later), which measured 115 s instead of 51 s for an
 * install from empty hosts.
 */
export function waitForControlPlane(staticPodsCurrent: boolean): Task<{ api: typeof apiReady; pods?: Fact<StaticPods> }, { readonly detail: string }> {
  const pending = (api: ApiReadiness, pods: StaticPods | undefined): string[] => [...(api.ready ? [] : [`/readyz (${api.detail})`]), ...(pods ? lagging(pods) : [])];
  return {
    name: staticPodsCurrent ? 'API server ready, static pods current' : 'API server ready',
    tags: ['control-plane'],
    facts: (ctx) => (staticPodsCurrent ? { api: apiReady, pods: staticPods(ctx.host.name) } : { api: apiReady }),
    plan: (facts) => {
      const waiting = pending(facts.api, facts.pods);
      return waiting.length === 0
        ? noChange(`the API server answers /readyz${staticPodsCurrent ? '; etcd, kube-apiserver, kube-controller-manager and kube-scheduler run their current manifests and are Ready' : ''}`)
        : { kind: 'wait', summary: `wait for ${waiting.join(', ')}`, payload: { detail: waiting.join(', ') } };
    },
    apply: async (_change, ctx) => {
      const pods = staticPods(ctx.host.name);
      const timeoutMs = readyTimeoutMs(ctx.vars, READY_TIMEOUT_MS, ctx.host.name);
      // The debug log gets what is still awaited each time it changes: a slow wait names its component.
      let lastWaiting = '';
      const logWaiting = (waiting: readonly string[]) => {
        const text = waiting.length === 0 ? 'nothing: ready' : waiting.join(', ');
        if (text !== lastWaiting) ctx.log(`control plane: waiting for ${text}`);
        lastWaiting = text;
      };
      const waitUntilReady = () =>
        pollUntil({
          timeoutMs,
          intervalMs: 2000,
          signal: ctx.signal,
          probe: async () => {
            const [api, current] = await readFacts(ctx.connection, staticPodsCurrent ? ([apiReady, pods] as const) : ([apiReady] as const), { label: staticPodsCurrent ? 'probe /readyz and the static pods' : 'probe /readyz', timeoutMs: 30_000 });
            const waiting = pending(api, current);
            logWaiting(waiting);
            return waiting;
          },
          done: (waiting) => waiting.length === 0,
        });
      const outcome = await waitUntilReady();
      if (outcome.reached) {
        await execChecked(ctx.connection, keepLastGoodManifests, { become: true, label: 'keep the manifests that run as the last good ones' });
        return;
      }
      if (outcome.interrupted) throw new Error('interrupted while waiting for the control plane');
      const waiting = outcome.last ?? ['a probe that answers within 30 s'];
      const logs = await ctx.connection.exec(
        sh`for c in etcd kube-apiserver kube-controller-manager kube-scheduler; do id=$(crictl ps -a --name "$c" -q 2>/dev/null | head -n 1); echo "--- $c (container \${id:-none})"; [ -n "$id" ] && crictl logs --tail 15 "$id" 2>&1; done; echo "--- kubelet"; journalctl -u kubelet --no-pager -n 10 2>&1`,
        { become: true, label: 'control-plane logs' },
      );
      const undone = staticPodsCurrent ? await putBackLastGoodManifests(ctx, waitUntilReady) : '';
      throw new Error(
        `the control plane is not ready after ${timeoutMs / 1000} s (var ${READY_TIMEOUT_VAR} sets how long to wait), still waiting for ${waiting.join(', ')}${outcome.slowProbes > 0 ? ` (${outcome.slowProbes} probe(s) ran past 30 s: the host is slow or overloaded)` : ''}.${undone} ${likelyCause(logs.stdout)}\nLast log lines:\n${logs.stdout.trim()}`,
      );
    },
    verify: true,
  };
}

/**
 * A running cluster's control plane did not come back after its manifests changed: put back
 * the manifests that last ran (the change is undone on this host, and the run stops before the
 * next control plane) and wait for the components again. Says what happened, for the error.
 */
async function putBackLastGoodManifests(ctx: ApplyContext, waitUntilReady: () => Promise<{ reached: boolean }>): Promise<string> {
  const restored = await execChecked(ctx.connection, restoreLastGoodManifests, { become: true, label: 'put back the last good manifests' });
  const files = restored.stdout.split('\n').filter((line) => line.endsWith('.yaml'));
  if (files.length === 0) return ` No manifest differs from its last good copy in ${LAST_GOOD_MANIFESTS_DIR}: nothing to put back.`;
  const back = await waitUntilReady();
  const what = `the last good ${files.join(', ')} (from ${LAST_GOOD_MANIFESTS_DIR}) ${files.length === 1 ? 'is' : 'are'} back`;
  return back.reached
    ? ` The change is undone on this host: ${what} and the control plane is ready again; no other control plane was touched. Fix what the log lines below show, then apply again.`
    : ` ${what[0]!.toUpperCase()}${what.slice(1)}, but the control plane is still not ready: the cause is probably not the change.`;
}

/** Running clusters installed before the last good manifests were kept get their copy before any manifest changes. */
function lastGoodManifestsKeptTask(): Task<{ kept: typeof lastGoodManifests }, null> {
  return {
    name: 'last good manifests kept',
    tags: ['control-plane'],
    facts: () => ({ kept: lastGoodManifests }),
    plan: ({ kept }) =>
      kept.kept.length === CONTROL_PLANE_MANIFESTS.length
        ? noChange(`${LAST_GOOD_MANIFESTS_DIR} holds the manifests that last ran`)
        : { kind: 'create', summary: `keep the manifests that run now in ${LAST_GOOD_MANIFESTS_DIR}, to put back if a change keeps a component from starting`, payload: null },
    apply: async (_change, ctx) => {
      await execChecked(ctx.connection, keepLastGoodManifests, { become: true, label: 'keep the last good manifests' });
    },
    invalidates: ['last-good-manifests'],
  };
}

/** The etcd user, made before anything it owns (CIS 1.1.12: etcd does not run as root). */
function etcdUserTask(): Task<{ user: typeof etcdUser }, null> {
  return {
    name: 'user etcd',
    tags: ['control-plane', 'etcd'],
    facts: () => ({ user: etcdUser }),
    plan: ({ user }) => (user.exists ? noChange(`etcd runs as uid ${user.uid}, gid ${user.gid}`) : { kind: 'create', summary: `create the system user and group ${ETCD_USER} (etcd runs as it, owns ${ETCD_DATA_DIR} and its keys)`, payload: null }),
    apply: async (_change, ctx) => {
      await execChecked(ctx.connection, createEtcdUser, { become: true, label: 'create the etcd user' });
    },
    invalidates: ['etcd-user', 'etcd-data-ownership'],
  };
}

/** Everything under the data dir owned by the etcd user (a restore, or etcd once run as root, left root's files). */
function etcdDataOwnedTask(): Task<{ data: typeof etcdDataOwnership }, null> {
  return {
    name: `${ETCD_DATA_DIR} owned by ${ETCD_USER}`,
    tags: ['control-plane', 'etcd'],
    facts: () => ({ data: etcdDataOwnership }),
    plan: ({ data }) => (data.foreign === 0 ? noChange(`everything under ${ETCD_DATA_DIR} belongs to ${ETCD_USER}`) : { kind: 'update', summary: `give ${data.foreign} files under ${ETCD_DATA_DIR} to ${ETCD_USER}:${ETCD_USER}`, payload: null }),
    apply: async (_change, ctx) => {
      await execChecked(ctx.connection, sh`chown -R ${`${ETCD_USER}:${ETCD_USER}`} ${ETCD_DATA_DIR}`, { become: true, label: 'etcd data ownership' });
    },
  };
}

/** The usual suspects, recognised in the components' logs. */
export function likelyCause(logs: string): string {
  if (/failCgroupV1|cgroup v1/.test(logs)) return 'Likely cause: the kubelet refuses cgroup v1 (see the kubelet role README).';
  if (/x509|certificate/.test(logs)) return 'Likely cause: a certificate problem (wrong CA or missing SAN): compare the state folder PKI with /etc/kubernetes/pki.';
  if (/connection refused.*2379|etcdserver|context deadline exceeded/.test(logs)) return 'Likely cause: etcd is not serving (check its log above, ports 2379/2380, and the data dir /var/lib/etcd).';
  if (/ErrImageNeverPull|ImagePull|not found.*image/.test(logs)) return 'Likely cause: a control-plane image is missing from the runtime (rerun the images role).';
  if (/address already in use/.test(logs)) return 'Likely cause: a port is taken by another process (preflight checks 6443, 2379, 2380, 10250, 10257, 10259).';
  return 'Look at the log lines below for the first error.';
}

export interface ControlPlaneRoleOptions {
  /** Also wait until every static pod runs its current manifest (a running cluster: upgrade, certs renew, apply on a running cluster). */
  readonly staticPodsCurrent: boolean;
}

export function controlPlaneRole(inputs: ClusterInputs, options: ControlPlaneRoleOptions): Role {
  const renderer = createTemplateRenderer();
  const { inventory, topology } = inputs;
  const files = controlPlaneFiles(inputs);
  const extraFilesOf = (component: ControlPlaneComponent) => (component === 'etcd' ? [] : (inputs.componentFiles?.[component] ?? []));
  const reads = componentReads(files.map((f) => f.path));
  const contentOf = new Map(files.map((f) => [f.path, f.content]));
  const hashOf = (ctx: HostContext, component: string): string => {
    const paths = reads.get(component);
    if (paths === undefined) throw new Error(`control-plane role: no list of the files ${component} reads in roles/control-plane/component-reads.ts`);
    return sha(...paths.map((path) => contentOf.get(path)!(ctx)));
  };
  const initialCluster = topology.controlPlanes.map((h) => `${h.name}=https://${nodeAddress(h)}:2380`).join(',');
  const etcdServers = topology.controlPlanes.map((h) => `https://${nodeAddress(h)}:2379`).join(',');
  // The annotation hashes the files the component reads and the manifest itself (rendered
  // without the annotation), so any change to either, an image tag included, gives the pod a
  // new hash: what the control plane's wait for current static pods compares with the mirror pod's.
  const manifestData = (component: ControlPlaneComponent, imageName: string, compiled: CompiledTemplate, extra: Readonly<Record<string, unknown>> = {}) => (ctx: HostContext) => {
      const base = {
        ...extra,
        // The operator's flags and the feature gates, each a YAML double-quoted scalar.
        extraArgs: componentExtraArgs(inventory.cluster, component).map((arg) => JSON.stringify(arg)),
        image: imageReference(inputs, imageName),
        inputsHash: '',
        nodeName: ctx.host.name,
        nodeIp: nodeAddress(ctx.host),
        apiPort: topology.apiPort,
        clusterName: inventory.cluster.name,
        clusterDomain: inventory.cluster.clusterDomain,
        serviceCIDR: inventory.cluster.serviceCIDR,
        podCIDR: inventory.cluster.podCIDR,
        initialCluster,
        etcdServers,
        audit: inventory.cluster.audit,
        auditPolicyPath: AUDIT_POLICY_PATH,
        auditLogPath: AUDIT_LOG_PATH,
        encryptionConfigPath: ENCRYPTION_CONFIG_PATH,
        etcdOwnPkiDir: ETCD_OWN_PKI_DIR,
        admissionConfigPath: ADMISSION_CONFIG_PATH,
        tlsCipherSuites: TLS_CIPHER_SUITES.join(','),
        extraFilesDir: component !== 'etcd' && extraFilesOf(component).length > 0 ? extraFilesDir(component) : '',
      };
      return { ...base, inputsHash: sha(hashOf(ctx, component), ...extraFilesOf(component).map((f) => `${f.name}\0${f.content.toString('base64')}`), compiled(base)) };
    };
  const MANIFEST_INVALIDATES = ['api-ready', 'static-pods:*'];
  const manifest = (component: ControlPlaneComponent, imageName: string): AnyTask => {
    const template = join(templateDir, `${component}.yaml.hbs`);
    const data = manifestData(component, imageName, renderer.compile(template));
    return templateFile({ path: `${MANIFESTS_DIR}/${component}.yaml`, template, mode: 0o600, renderer, invalidates: MANIFEST_INVALIDATES, data });
  };
  // etcd's manifest runs it as the etcd user: its uid and gid are the host's, read as a fact.
  const etcdManifest = (): AnyTask => {
    const compiled = renderer.compile(join(templateDir, 'etcd.yaml.hbs'));
    return factDerivedFile({
      path: `${MANIFESTS_DIR}/etcd.yaml`,
      mode: 0o600,
      invalidates: MANIFEST_INVALIDATES,
      facts: () => ({ user: etcdUser }),
      content: ({ user }, ctx) => {
        if (!user.exists) return { skip: `the etcd user does not exist yet (the run creates it first)` };
        return compiled(manifestData('etcd', 'etcd', compiled, { etcdUid: user.uid, etcdGid: user.gid })(ctx));
      },
    });
  };
  return {
    name: 'control-plane',
    templateDir,
    tags: ['control-plane'],
    tasks: [
      etcdUserTask(),
      // CIS 1.1.19: etcd's own keys outside root's /etc/kubernetes/pki, in a folder it owns.
      directory({ path: ETCD_OWN_PKI_DIR, mode: 0o700, owner: ETCD_USER, group: ETCD_USER }),
      ...files.map((f) => managedFile({ path: f.path, mode: f.mode, content: f.content, ...(f.owner ? { owner: f.owner, group: f.owner } : {}), ...(f.secret ? { secret: true } : {}) })),
      // CIS 1.1.11 and 1.1.12: etcd's data dir 0700, owned by the etcd user it runs as.
      directory({ path: ETCD_DATA_DIR, mode: 0o700, owner: ETCD_USER, group: ETCD_USER }),
      etcdDataOwnedTask(),
      // The API server's audit log, readable by root only; collect it from here.
      directory({ path: AUDIT_LOG_DIR, mode: 0o700 }),
      ...(options.staticPodsCurrent ? [lastGoodManifestsKeptTask()] : []),
      // The files the components' flags reference (extraFiles, the OIDC CA), before the manifests that mount them.
      ...extraFilesWritten(inputs.componentFiles),
      etcdManifest(),
      manifest('kube-apiserver', 'kube-apiserver'),
      manifest('kube-controller-manager', 'kube-controller-manager'),
      manifest('kube-scheduler', 'kube-scheduler'),
      waitForControlPlane(options.staticPodsCurrent),
      // Files dropped from the inventory go once the components run manifests that no longer name them.
      ...extraFilesPruned(inputs.componentFiles),
      // Clusters installed before 2026-11-24 kept etcd's keys in root's PKI folder: gone once
      // etcd runs on the ones in its own folder (the wait above).
      ...ETCD_OWN_PKI_FILES.map((f) => fileAbsent({ path: `${ETCD_OWN_PKI_FORMER_DIR}/${f}`, why: `etcd's own keys are in ${ETCD_OWN_PKI_DIR} now` })),
    ],
  };
}
