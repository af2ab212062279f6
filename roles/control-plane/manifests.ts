// The four static-pod manifests of a control plane, rendered from the templates beside this
// file. Each carries kcluster.io/inputs-sha256: the sha256 of every file its component reads
// (component-reads.ts), of the operator's extra files, and of the manifest itself rendered
// without the annotation, so any change, an image tag included, gives the pod a new hash: what
// the control plane's wait for current static pods compares with the mirror pod's.
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { ClusterInputs } from '../../src/kubernetes/cluster/cluster-inputs.js';
import { imageReference } from '../../src/kubernetes/cluster/cluster-inputs.js';
import { nodeAddress } from '../../src/kubernetes/cluster/topology.js';
import { podCidrs, serviceCidrs } from '../../src/kubernetes/cluster/dual-stack.js';
import type { AnyTask, HostContext } from '../../src/orchestrator/engine/types.js';
import type { FactMap, FactValues } from '../../src/orchestrator/engine/fact.js';
import { MANIFESTS_DIR } from '../../src/kubernetes/facts/static-pods.js';
import { ENCRYPTION_CONFIG_PATH } from '../../src/kubernetes/secrets/encryption-keys.js';
import { AUDIT_LOG_PATH, AUDIT_POLICY_PATH } from '../../src/kubernetes/cluster/audit-policy.js';
import { ADMISSION_CONFIG_PATH } from '../../src/kubernetes/cluster/admission-config.js';
import { TLS_CIPHER_SUITES } from '../../src/kubernetes/cluster/tls-ciphers.js';
import { componentExtraArgs, type ControlPlaneComponent } from '../../src/kubernetes/cluster/component-args.js';
import { extraFilesDir } from '../../src/kubernetes/cluster/component-files.js';
import { ETCD_OWN_PKI_DIR } from '../../src/kubernetes/pki/etcd-key-folder.js';
import { etcdUser, type EtcdUser } from '../../src/kubernetes/etcd/etcd-user.js';
import { LOCAL_ETCD } from '../../src/kubernetes/etcd/etcdctl.js';
import { templateFile } from '../../src/orchestrator/tasks/template-file.js';
import { factDerivedFile } from '../../src/orchestrator/tasks/fact-derived-file.js';
import { createTemplateRenderer, type CompiledTemplate } from '../../src/orchestrator/templates/render.js';
import { packageRoot } from '../../src/orchestrator/util/package-root.js';
import { componentReads } from './component-reads.js';
import type { ControlPlaneFile } from './files.js';

export const templateDir = join(packageRoot(), 'roles', 'control-plane', 'templates');

const sha = (...parts: string[]): string => createHash('sha256').update(parts.join('\0')).digest('hex');

/** A restarted component's manifest makes the API server's readiness and the static pods' facts stale. */
const MANIFEST_INVALIDATES = ['api-ready', 'static-pods:*'];

/** How this host's etcd member starts: the --initial-cluster and --initial-cluster-state it is given. */
export interface EtcdStart {
  readonly initialCluster: string;
  readonly initialClusterState: 'new' | 'existing';
}

export interface ControlPlaneManifests {
  /** kube-apiserver, kube-controller-manager or kube-scheduler. */
  readonly component: (component: Exclude<ControlPlaneComponent, 'etcd'>) => AnyTask;
  /**
   * etcd's, which runs it as the etcd user (its uid and gid are the host's, read as a fact)
   * and starts it as `start` says (from the facts `startFacts` adds, or a reason to skip).
   */
  readonly etcd: <M extends FactMap>(
    startFacts: (ctx: HostContext) => M,
    start: (facts: FactValues<M>, ctx: HostContext) => EtcdStart | { readonly skip: string },
  ) => AnyTask;
}

export function controlPlaneManifests(inputs: ClusterInputs, files: readonly ControlPlaneFile[]): ControlPlaneManifests {
  const renderer = createTemplateRenderer();
  const { inventory, topology } = inputs;
  const extraFilesOf = (component: ControlPlaneComponent) => (component === 'etcd' ? [] : (inputs.componentFiles?.[component] ?? []));
  const reads = componentReads(files.map((f) => f.path));
  const contentOf = new Map(files.map((f) => [f.path, f.content]));
  const hashOf = (ctx: HostContext, component: string): string => {
    const paths = reads.get(component);
    if (paths === undefined) throw new Error(`control-plane role: no list of the files ${component} reads in roles/control-plane/component-reads.ts`);
    return sha(...paths.map((path) => contentOf.get(path)!(ctx)));
  };
  const manifestData =
    (component: ControlPlaneComponent, compiled: CompiledTemplate, extra: Readonly<Record<string, unknown>> = {}) =>
    (ctx: HostContext) => {
      const base = {
        ...extra,
        // The operator's flags and the feature gates, each a YAML double-quoted scalar.
        extraArgs: componentExtraArgs(inventory.cluster, component, { virtualIp: inventory.cluster.apiEndpoint.virtualIp !== undefined }).map((arg) =>
          JSON.stringify(arg),
        ),
        image: imageReference(inputs, component),
        inputsHash: '',
        nodeName: ctx.host.name,
        nodeIp: nodeAddress(ctx.host),
        apiPort: topology.apiPort,
        clusterName: inventory.cluster.name,
        clusterDomain: inventory.cluster.clusterDomain,
        // Both families in a dual-stack cluster ("v4,v6"), as the flags take them.
        serviceCIDR: serviceCidrs(inventory.cluster),
        podCIDR: podCidrs(inventory.cluster),
        audit: inventory.cluster.audit,
        auditPolicyPath: AUDIT_POLICY_PATH,
        auditLogPath: AUDIT_LOG_PATH,
        encryptionConfigPath: ENCRYPTION_CONFIG_PATH,
        etcdOwnPkiDir: ETCD_OWN_PKI_DIR,
        admissionConfigPath: ADMISSION_CONFIG_PATH,
        tlsCipherSuites: TLS_CIPHER_SUITES.join(','),
        // The local member only, as kubeadm's stacked etcd: a member added, promoted or removed
        // changes no other API server, and no API server ever sends a request to a learner.
        etcdServers: LOCAL_ETCD,
        extraFilesDir: component !== 'etcd' && extraFilesOf(component).length > 0 ? extraFilesDir(component) : '',
      };
      return {
        ...base,
        inputsHash: sha(hashOf(ctx, component), ...extraFilesOf(component).map((f) => `${f.name}\0${f.content.toString('base64')}`), compiled(base)),
      };
    };
  return {
    component: (component) => {
      const template = join(templateDir, `${component}.yaml.hbs`);
      const data = manifestData(component, renderer.compile(template));
      return templateFile({ path: `${MANIFESTS_DIR}/${component}.yaml`, template, mode: 0o600, renderer, invalidates: MANIFEST_INVALIDATES, data });
    },
    etcd: (startFacts, start) => {
      const compiled = renderer.compile(join(templateDir, 'etcd.yaml.hbs'));
      return factDerivedFile({
        path: `${MANIFESTS_DIR}/etcd.yaml`,
        mode: 0o600,
        invalidates: [...MANIFEST_INVALIDATES, 'etcd-join'],
        facts: (ctx) => ({ ...startFacts(ctx), user: etcdUser }),
        content: (facts, ctx) => {
          const user = (facts as unknown as { user: EtcdUser }).user;
          if (!user.exists) return { skip: `the etcd user does not exist yet (the run creates it first)` };
          const how = start(facts, ctx);
          if ('skip' in how) return how;
          return compiled(manifestData('etcd', compiled, { etcdUid: user.uid, etcdGid: user.gid, ...how })(ctx));
        },
      });
    },
  };
}
