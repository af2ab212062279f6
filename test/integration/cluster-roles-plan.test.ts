// Every cluster role planned in check mode against fresh lab hosts over real SSH: the facts are
// a real Debian host's, with systemd and nothing of Kubernetes; the inputs are real (the parsed
// inventory, a generated PKI, artifacts prepared from a stand-in bundle). Per role, which tasks
// would change on a control plane and on a worker, and what the rendered files say: a template,
// flag or task change shows here in seconds, without a cluster; the upgrade playbook's order
// (snapshot, control plane, then each worker drained before its kubelet) too. Nothing changes.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { prepareArtifacts } from '../../src/kubernetes/artifacts/prepare-artifacts.js';
import { requiredArtifacts } from '../../src/kubernetes/artifacts/required-artifacts.js';
import type { ClusterInputs } from '../../src/kubernetes/cluster/cluster-inputs.js';
import { pkiSpecOf } from '../../src/kubernetes/cluster/pki-spec.js';
import { topologyOf } from '../../src/kubernetes/cluster/topology.js';
import { DEFAULT_AUDIT_POLICY } from '../../src/kubernetes/cluster/audit-policy.js';
import { TLS_CIPHER_SUITES } from '../../src/kubernetes/cluster/tls-ciphers.js';
import { EncryptionKeyStore, type EncryptionKeys } from '../../src/kubernetes/secrets/encryption-keys.js';
import type { RunEvent } from '../../src/orchestrator/engine/events.js';
import { runPlaybook } from '../../src/orchestrator/engine/run-playbook.js';
import { loadInventory } from '../../src/orchestrator/inventory/load-inventory.js';
import type { Inventory } from '../../src/orchestrator/inventory/model.js';
import { ensureClusterPki } from '../../src/kubernetes/pki/cluster-pki.js';
import { createSshConnector } from '../../src/orchestrator/ssh/connector.js';
import { hostKeyPolicyFor } from '../../src/orchestrator/ssh/host-key-policy-for.js';
import type { Playbook } from '../../src/orchestrator/engine/types.js';
import { clusterPlaybook } from '../../playbooks/cluster.js';
import { upgradePlaybook } from '../../playbooks/upgrade.js';
import { snapshotRestorePlaybook } from '../../playbooks/etcd-snapshot.js';
import { certsRenewPlaybook } from '../../playbooks/certs-renew.js';
import { writeStandInBundle } from '../support/stand-in-bundle.js';
import { sharedPkiStateDir } from '../support/shared-pki.js';
import { inventoryVariant, sshHost, testLab, type TestLab } from './support/test-lab.js';
import { componentVersionsFor } from '../../src/kubernetes/artifacts/component-versions.js';
import { registryAuthFrom } from '../../src/kubernetes/cluster/registries.js';
import { loadOperatorManifests } from '../../src/kubernetes/cluster/operator-manifests.js';
import { loadComponentFiles } from '../../src/kubernetes/cluster/component-files.js';
import { DEFAULT_KUBERNETES_VERSION } from '../../src/orchestrator/inventory/defaults.js';

const K8S = DEFAULT_KUBERNETES_VERSION;
const companions = componentVersionsFor(K8S);

interface Planned {
  readonly host: string;
  readonly role: string;
  readonly task: string;
  readonly summary: string;
  readonly diff?: string;
}

interface Scenario {
  readonly planned: Planned[];
  /** host task -> why it was skipped */
  readonly skipped: Map<string, string>;
  /** In order: "host role/task: would wait for ..." (a wait is planned as ok, not as a change). */
  readonly waits: string[];
  readonly encryption: EncryptionKeys;
  readonly failures: string[];
  readonly exitCode: number;
  readonly log: string[];
  tasks(host: string, role: string): string[];
  diff(host: string, task: string): string;
}

async function load(file: string): Promise<Inventory> {
  const result = await loadInventory(file, { env: process.env });
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return result.inventory;
}

/** Plans the cluster playbook (without preflight: lab hosts share this machine's cgroup v1 kernel) in check mode. */
async function planScenario(lab: TestLab, edit: (doc: Record<string, unknown>) => void, build: (inputs: ClusterInputs) => Playbook = (inputs) => clusterPlaybook(inputs, { running: false })): Promise<Scenario> {
  const work = mkdtempSync(join(tmpdir(), 'kc-roles-plan-'));
  const bundle = join(work, 'bundle');
  const variant = (stateDir: string) =>
    inventoryVariant(lab, (doc) => {
      edit(doc);
      doc['stateDir'] = stateDir;
      doc['cluster'] = { ...(doc['cluster'] as object), artifacts: { source: 'bundle', bundle, cacheDir: join(work, 'cache') } };
    });
  const first = await load(variant(join(work, 'state')));
  writeStandInBundle(bundle, requiredArtifacts(first));
  const stateDir = await sharedPkiStateDir(pkiSpecOf(first, topologyOf(first)));
  const inventory = await load(variant(stateDir));
  const topology = topologyOf(inventory);
  const pki = await ensureClusterPki(stateDir, pkiSpecOf(inventory, topology));
  const artifacts = await prepareArtifacts(inventory, {});
  const encryption = await new EncryptionKeyStore(stateDir).ensure();
  const inputs: ClusterInputs = {
    inventory,
    topology,
    artifacts,
    pki,
    encryption,
    auditPolicy: DEFAULT_AUDIT_POLICY,
    ignorePreflight: new Set(),
    controllerEpochSeconds: Math.floor(Date.now() / 1000),
    registryAuth: registryAuthFrom(inventory.cluster.registries, process.env),
    operatorManifests: await loadOperatorManifests(inventory.cluster.manifests),
    componentFiles: await loadComponentFiles(inventory.cluster),
  };
  const playbook = build(inputs);
  const log: string[] = [];
  const connector = createSshConnector({ inventory, env: process.env, hostKeys: hostKeyPolicyFor(inventory, process.env), log: (line) => log.push(line) });
  const events: RunEvent[] = [];
  const summary = await runPlaybook({
    inventory,
    playbook: { ...playbook, plays: playbook.plays.filter((p) => !p.name.startsWith('preflight')) },
    connect: (host, signal) => connector.connect(host, signal),
    concurrency: 8,
    check: true,
    diff: true,
    events: { emit: (e) => events.push(e) },
    signal: new AbortController().signal,
    log: (line) => log.push(line),
  });
  const planned = events.flatMap((e) => (e.type === 'task-result' && e.status === 'changed' ? [{ host: e.host, role: e.role, task: e.task, summary: e.summary ?? '', ...(e.diff ? { diff: e.diff } : {}) }] : []));
  const failures = events.flatMap((e) => (e.type === 'task-result' && e.status === 'failed' ? [`${e.host}: ${e.task}: ${e.error ?? ''}`] : e.type === 'host-failed' ? [`${e.host}: ${e.error}`] : []));
  const skipped = new Map(events.flatMap((e) => (e.type === 'task-result' && e.status === 'skipped' ? [[`${e.host} ${e.task}`, e.reason ?? ''] as const] : [])));
  const waits = events.flatMap((e) => (e.type === 'task-result' && e.status === 'ok' && (e.reason ?? '').startsWith('would ') ? [`${e.host} ${e.role}/${e.task}: ${e.reason}`] : []));
  return {
    planned,
    skipped,
    waits,
    encryption,
    failures,
    exitCode: summary.exitCode,
    log,
    tasks: (host, role) => planned.filter((p) => p.host === host && p.role === role).map((p) => p.task),
    diff: (host, task) => planned.find((p) => p.host === host && p.task === task)?.diff ?? '',
  };
}

const binaries = (...paths: string[]): string[] => paths.map((p) => `binary ${p}`);
const files = (...paths: string[]): string[] => paths.map((p) => `file ${p}`);

describe('cluster roles planned on fresh lab hosts (check mode, real SSH)', () => {
  let lab: TestLab;
  let one: Scenario;
  beforeAll(async () => {
    lab = testLab();
    one = await planScenario(lab, () => undefined);
  }, 180_000);

  it('plans every role without a failure, and would change something', () => {
    expect(one.failures).toEqual([]);
    expect(one.exitCode).toBe(3);
  });

  it('artifacts: the node binaries everywhere, etcdctl and etcdutl on the control plane', () => {
    const node = [...files('/var/lib/kcluster/cluster'), ...binaries('/usr/local/bin/kubectl', '/usr/local/bin/crictl', '/opt/cni/bin/bridge', '/opt/cni/bin/host-local', '/opt/cni/bin/loopback', '/opt/cni/bin/portmap')];
    expect(one.tasks('kctest2', 'artifacts')).toEqual(node);
    expect(one.tasks('kctest1', 'artifacts')).toEqual([...node, ...binaries('/usr/local/bin/etcdctl', '/usr/local/bin/etcdutl')]);
  });

  it('containerd: modules, binaries, config with the systemd cgroup driver and the pause image, unit, service', () => {
    expect(one.tasks('kctest2', 'containerd')).toEqual([
      'kernel module overlay',
      'kernel module br_netfilter',
      ...binaries('/usr/local/bin/containerd', '/usr/local/bin/ctr', '/usr/local/bin/containerd-shim-runc-v2', '/usr/local/sbin/runc'),
      ...files('/etc/containerd/config.toml', '/etc/systemd/system/containerd.service', '/etc/crictl.yaml'),
      'service containerd.service enabled, started',
    ]);
    const config = one.diff('kctest2', 'file /etc/containerd/config.toml');
    expect(config).toContain('+        SystemdCgroup = true');
    expect(config).toContain(`+    sandbox = "kcluster.local/pause:${companions.pause}"`);
    expect(config).toContain('+        BinaryName = "/usr/local/sbin/runc"');
  });

  it('images: the node images everywhere, the control-plane images on the control plane only', () => {
    const image = (n: string) => `image kcluster.local/${n}`;
    const node = [`pause:${companions.pause}`, `kube-proxy:${K8S}`, `coredns:${companions.coredns}`, `flannel:${companions.flannel}`].map(image);
    expect(one.tasks('kctest2', 'images')).toEqual(node);
    expect([...one.tasks('kctest1', 'images')].sort()).toEqual([...node, ...[`kube-apiserver:${K8S}`, `kube-controller-manager:${K8S}`, `kube-scheduler:${K8S}`, `etcd:${companions.etcd}`].map(image)].sort());
  });

  it('kubelet: sysctls, binary, credentials, configuration and unit; the control plane registers with its taint', () => {
    expect(one.tasks('kctest2', 'kubelet')).toEqual([
      'sysctl net.ipv4.ip_forward = 1',
      'sysctl net.bridge.bridge-nf-call-iptables = 1',
      ...binaries('/usr/local/bin/kubelet'),
      ...files('/etc/kubernetes/pki/ca.crt', '/etc/kubernetes/kubelet.conf', '/var/lib/kubelet/pki/kubelet.crt', '/var/lib/kubelet/pki/kubelet.key', '/var/lib/kubelet/config.yaml', '/etc/systemd/system/kubelet.service'),
      'service kubelet.service enabled, started',
    ]);
    const config = one.diff('kctest2', 'file /var/lib/kubelet/config.yaml');
    for (const line of ['+cgroupDriver: systemd', '+  - 10.96.0.10', '+clusterDomain: cluster.local', '+containerRuntimeEndpoint: unix:///run/containerd/containerd.sock', '+failSwapOn: true']) expect(config).toContain(line);
    expect(config).toContain('+  anonymous:\n+    enabled: false');
    expect(one.diff('kctest1', 'file /etc/systemd/system/kubelet.service')).toContain('--node-ip=10.231.0.11 --register-with-taints=node-role.kubernetes.io/control-plane:NoSchedule');
    expect(one.diff('kctest2', 'file /etc/systemd/system/kubelet.service')).not.toContain('--register-with-taints');
    // CIS 4.1.1 and 4.1.9: the unit and the configuration readable by root only.
    const summary = (task: string) => one.planned.find((p) => p.host === 'kctest2' && p.task === task)?.summary;
    expect(summary('file /etc/systemd/system/kubelet.service')).toBe('create /etc/systemd/system/kubelet.service (mode 0600, root:root)');
    expect(summary('file /var/lib/kubelet/config.yaml')).toBe('create /var/lib/kubelet/config.yaml (mode 0600, root:root)');
  });

  it('control-plane: PKI, kubeconfigs and the four static pods on the control plane only', () => {
    expect(one.tasks('kctest2', 'control-plane')).toEqual([]);
    const cp = one.tasks('kctest1', 'control-plane');
    expect(cp).toEqual(expect.arrayContaining(files('/etc/kubernetes/pki/ca.key', '/etc/kubernetes/pki/sa.key', '/etc/kubernetes/admin.conf', ...['kube-apiserver', 'kube-controller-manager', 'kube-scheduler'].map((p) => `/etc/kubernetes/manifests/${p}.yaml`))));
    // CIS 1.1.12: etcd runs as a user of its own, made first; its manifest needs that user's uid,
    // so on a fresh host --check cannot render it yet (the e2e suite checks the running etcd).
    expect(cp[0]).toBe('user etcd');
    expect(one.planned.find((p) => p.host === 'kctest1' && p.task === 'user etcd')?.summary).toBe('create the system user and group etcd (etcd runs as it, owns /var/lib/etcd and its keys)');
    expect(one.skipped.get('kctest1 file /etc/kubernetes/manifests/etcd.yaml')).toBe('the etcd user does not exist yet (the run creates it first)');
    expect(one.planned.find((p) => p.host === 'kctest1' && p.task === 'file /etc/kubernetes/etcd/server.key')?.summary).toMatch(/^create \/etc\/kubernetes\/etcd\/server\.key \(mode 0600, etcd:etcd; /);
    const apiserver = one.diff('kctest1', 'file /etc/kubernetes/manifests/kube-apiserver.yaml');
    for (const flag of ['--advertise-address=10.231.0.11', '--service-cluster-ip-range=10.96.0.0/12', '--authorization-mode=Node,RBAC', '--enable-admission-plugins=NodeRestriction', '--etcd-servers=https://10.231.0.11:2379']) expect(apiserver).toContain(`+        - ${flag}\n`);
    // CIS 1.2.15, 1.3.2, 1.4.1 (profiling off) and 1.2.30 (no extended service-account tokens).
    expect(apiserver).toContain('+        - --profiling=false\n+        - --service-account-extend-token-expiration=false\n');
    for (const component of ['kube-controller-manager', 'kube-scheduler']) expect(one.diff('kctest1', `file /etc/kubernetes/manifests/${component}.yaml`)).toContain('+        - --profiling=false\n');
    // CIS 1.1.11: etcd's data directory made 0700 before etcd starts.
    expect(one.planned.find((p) => p.host === 'kctest1' && p.task === 'directory /var/lib/etcd')?.summary).toBe('create directory /var/lib/etcd (mode 0700, etcd:etcd)');
    // CIS 1.1.19: etcd's own keys in a folder it owns, root's PKI folder holds none of its keys.
    expect(one.planned.find((p) => p.host === 'kctest1' && p.task === 'directory /etc/kubernetes/etcd')?.summary).toBe('create directory /etc/kubernetes/etcd (mode 0700, etcd:etcd)');
    expect(one.planned.filter((p) => p.host === 'kctest1' && /^file \/etc\/kubernetes\/pki\/.*\.key$/.test(p.task)).map((p) => p.summary).filter((s) => !s.includes('root:root'))).toEqual([]);
    expect(apiserver).toContain(`image: kcluster.local/kube-apiserver:${K8S}`);
    // CIS 1.2.16-1.2.19 (audit log with rotation), 1.2.27 (Secrets encrypted), 1.2.29 (ciphers).
    for (const flag of ['--encryption-provider-config=/etc/kubernetes/encryption/config.yaml', '--audit-policy-file=/etc/kubernetes/audit/policy.yaml', '--audit-log-path=/var/log/kubernetes/audit/audit.log', '--audit-log-maxage=30', '--audit-log-maxbackup=10', '--audit-log-maxsize=100', '--tls-min-version=VersionTLS12', '--admission-control-config-file=/etc/kubernetes/admission/config.yaml']) {
      expect(apiserver).toContain(`+        - ${flag}\n`);
    }
    expect(apiserver).toMatch(/\+ {8}- --tls-cipher-suites=TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,[A-Z0-9_,]+\n/);
    expect(one.diff('kctest2', 'file /var/lib/kubelet/config.yaml')).toContain('+tlsCipherSuites:\n+  - TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256\n');
    // CIS 4.2.10: the kubelet renews its own client certificate.
    expect(one.diff('kctest2', 'file /var/lib/kubelet/config.yaml')).toContain('+rotateCertificates: true\n');
    // The encryption key never shows; the audit policy does (it holds no secret).
    expect(one.planned.find((p) => p.task === 'file /etc/kubernetes/encryption/config.yaml')?.summary).toMatch(/^create \/etc\/kubernetes\/encryption\/config\.yaml \(mode 0600, root:root; \d+ bytes, secret: content not shown\)$/);
    expect(JSON.stringify(one.planned) + one.log.join('\n')).not.toContain(one.encryption.keys[0]!.secret);
    expect(one.diff('kctest1', 'file /etc/kubernetes/audit/policy.yaml')).toContain('+  - level: Metadata\n');
    expect(one.planned.find((p) => p.host === 'kctest1' && p.task === 'directory /var/log/kubernetes/audit')?.summary).toBe('create directory /var/log/kubernetes/audit (mode 0700, root:root)');
  });

  it('addons from the first control plane only: RBAC, kube-proxy, flannel, CoreDNS', () => {
    expect(one.tasks('kctest1', 'addons')).toEqual(['addon cluster-rbac', 'addon kube-proxy', 'addon flannel', 'addon coredns', 'Secrets encrypted at rest with the current key']);
    expect(one.planned.filter((p) => p.role === 'addons' && p.host !== 'kctest1')).toEqual([]);
  });

  it('shows no secret in any diff, summary or debug log line (keys and kubeconfigs planned, content hidden)', () => {
    const everything = JSON.stringify(one.planned) + one.log.join('\n');
    expect(everything).not.toMatch(/PRIVATE KEY|client-key-data/);
    expect(one.planned.find((p) => p.host === 'kctest1' && p.task === 'file /etc/kubernetes/pki/ca.key')?.summary).toMatch(/secret: content not shown/);
    expect(one.planned.find((p) => p.host === 'kctest2' && p.task === 'file /etc/kubernetes/kubelet.conf')?.summary).toMatch(/secret: content not shown/);
  });

  describe("the operator's component flags and feature gates", () => {
    let flags: Scenario;
    beforeAll(async () => {
      flags = await planScenario(lab, (doc) => {
        doc['cluster'] = {
          ...(doc['cluster'] as object),
          featureGates: { InPlacePodVerticalScaling: true, AnonymousAuthConfigurableEndpoints: false },
          apiServer: { extraArgs: { 'oidc-issuer-url': 'https://login.example/realms/a b', 'max-requests-inflight': 800 } },
          scheduler: { extraArgs: { v: 4 } },
        };
        doc['vars'] = { ...(doc['vars'] as object | undefined), kubeletConfig: { maxPods: 150, systemReserved: { cpu: '500m' } } };
      });
    }, 180_000);

    it("go on each command line after kcluster's flags, quoted, sorted, the gates last; into the kubelet's configuration as a map, before the operator's own fields", () => {
      expect(flags.failures).toEqual([]);
      const gates = '--feature-gates=AnonymousAuthConfigurableEndpoints=false,InPlacePodVerticalScaling=true';
      expect(flags.diff('kctest1', 'file /etc/kubernetes/manifests/kube-apiserver.yaml')).toContain(
        `+        - --tls-cipher-suites=${TLS_CIPHER_SUITES.join(',')}\n+        - "--max-requests-inflight=800"\n+        - "--oidc-issuer-url=https://login.example/realms/a b"\n+        - "${gates}"\n`,
      );
      expect(flags.diff('kctest1', 'file /etc/kubernetes/manifests/kube-scheduler.yaml')).toContain(`+        - "--v=4"\n+        - "${gates}"\n`);
      expect(flags.diff('kctest1', 'file /etc/kubernetes/manifests/kube-controller-manager.yaml')).toContain(`+        - "${gates}"\n`);
      expect(flags.diff('kctest2', 'file /var/lib/kubelet/config.yaml')).toContain(
        "+featureGates:\n+  AnonymousAuthConfigurableEndpoints: false\n+  InPlacePodVerticalScaling: true\n+# The operator's settings (vars.kubeletConfig):\n+maxPods: 150\n+systemReserved:\n+  cpu: 500m\n",
      );
    });

    it('without any, the manifests and configuration files have no such line', () => {
      expect(one.diff('kctest1', 'file /etc/kubernetes/manifests/kube-apiserver.yaml')).not.toContain('feature-gates');
      expect(one.diff('kctest2', 'file /var/lib/kubelet/config.yaml')).not.toContain('featureGates');
    });
  });

  describe("the operator's registries, proxy and manifests", () => {
    let settings: Scenario;
    const password = 'plan-test-password';
    beforeAll(async () => {
      process.env['KC_PLAN_REGISTRY_USER'] = 'robot';
      process.env['KC_PLAN_REGISTRY_PASSWORD'] = password;
      const own = mkdtempSync(join(tmpdir(), 'kc-plan-manifests-'));
      writeFileSync(join(own, 'ns.yaml'), 'apiVersion: v1\nkind: Namespace\nmetadata: { name: team-a }\n');
      execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', join(own, '..', 'oidc.key'), '-out', join(own, '..', 'oidc-ca.pem'), '-subj', '/CN=issuer', '-days', '2'], { stdio: 'ignore' });
      writeFileSync(join(own, '..', 'admission.yaml'), 'apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins: []\n');
      // A file an earlier inventory listed (and one still listed, with other content): only the first goes.
      const placed = await sshHost(lab, 'kctest1', 'mkdir -p /etc/kubernetes/extra/kube-apiserver && echo old > /etc/kubernetes/extra/kube-apiserver/old-webhook.conf && echo old > /etc/kubernetes/extra/kube-apiserver/admission.yaml');
      expect(placed.code, placed.stderr).toBe(0);
      settings = await planScenario(lab, (doc) => {
        doc['cluster'] = {
          ...(doc['cluster'] as object),
          apiServer: { extraFiles: [join(own, '..', 'admission.yaml')], oidc: { issuerUrl: 'https://login.example', clientId: 'kubernetes', caFile: join(own, '..', 'oidc-ca.pem') } },
          registries: { 'registry.corp.example': { mirrors: ['http://10.231.3.1:5000'], usernameEnv: 'KC_PLAN_REGISTRY_USER', passwordEnv: 'KC_PLAN_REGISTRY_PASSWORD' } },
          proxy: { http: 'http://proxy.corp.example:3128', noProxy: ['.corp.example'] },
          manifests: [own],
        };
      });
      await sshHost(lab, 'kctest1', 'rm -rf /etc/kubernetes/extra');
    }, 180_000);

    it('plans a hosts.toml per registry (secret), the proxy drop-ins, the API server\'s files for OIDC and admission, and never shows the credentials', () => {
      expect(settings.failures).toEqual([]);
      for (const host of ['kctest1', 'kctest2', 'kctest3']) {
        expect(settings.planned.find((p) => p.host === host && p.task === 'registry registry.corp.example')?.summary).toMatch(/^create \/etc\/containerd\/certs\.d\/registry\.corp\.example\/hosts\.toml \(mode 0600, root:root; \d+ bytes, secret: content not shown\)$/);
        expect(settings.diff(host, 'proxy for containerd.service')).toContain('+Environment="HTTP_PROXY=http://proxy.corp.example:3128"\n');
        expect(settings.diff(host, 'proxy for kubelet.service')).toMatch(/\+Environment="NO_PROXY=localhost,127\.0\.0\.1,10\.244\.0\.0\/16,10\.96\.0\.0\/12,\.svc,\.cluster\.local,kctest1,[0-9.]+,kctest2,[0-9.]+,kctest3,[0-9.]+,\.corp\.example"\n/);
      }
      expect(settings.diff('kctest1', 'file /etc/containerd/config.toml')).toContain('+    config_path = "/etc/containerd/certs.d"\n');
      const everything = JSON.stringify(settings.planned) + settings.log.join('\n');
      expect(everything).not.toContain(password);
      expect(everything).not.toContain(Buffer.from(`robot:${password}`).toString('base64'));
      // The API server's files for its flags: on the control plane only, content hidden, mounted read-only.
      expect(settings.planned.filter((p) => p.task.startsWith('file /etc/kubernetes/extra/')).map((p) => [p.host, p.task, /secret: content not shown|content \(secret: not shown\)/.test(p.summary)])).toEqual([
        ['kctest1', 'file /etc/kubernetes/extra/kube-apiserver/admission.yaml', true],
        ['kctest1', 'file /etc/kubernetes/extra/kube-apiserver/oidc-ca.crt', true],
      ]);
      const apiserver = settings.diff('kctest1', 'file /etc/kubernetes/manifests/kube-apiserver.yaml');
      expect(apiserver).toContain('+        - "--oidc-ca-file=/etc/kubernetes/extra/kube-apiserver/oidc-ca.crt"\n+        - "--oidc-client-id=kubernetes"\n+        - "--oidc-issuer-url=https://login.example"\n');
      expect(apiserver).toContain('+        - name: extra-files\n+          mountPath: /etc/kubernetes/extra/kube-apiserver\n+          readOnly: true\n');
      expect(settings.diff('kctest1', 'file /etc/kubernetes/manifests/kube-scheduler.yaml')).not.toContain('extra-files');
      // A file no longer listed is removed after the control plane's wait; a listed one is rewritten, not removed.
      expect(settings.planned.filter((p) => p.task === 'no extra files the inventory no longer lists').map((p) => [p.host, p.summary])).toEqual([
        ['kctest1', 'remove /etc/kubernetes/extra/kube-apiserver/old-webhook.conf (no longer in cluster.<component>.extraFiles or oidc.caFile)'],
      ]);
      // Without a proxy nothing is written, and nothing is there to remove.
      expect(one.planned.filter((p) => p.task.startsWith('proxy for') || p.task.includes('kcluster-proxy.conf'))).toEqual([]);
    });
  });

  describe('two control planes without a load balancer, on Docker', () => {
    let ha: Scenario;
    beforeAll(async () => {
      ha = await planScenario(lab, (doc) => {
        const hosts = doc['hosts'] as { name: string; roles: string[] }[];
        hosts[1]!.roles = ['control-plane'];
        doc['cluster'] = { ...(doc['cluster'] as object), containerRuntime: 'docker' };
      });
    }, 180_000);

    it('plans without a failure', () => {
      expect(ha.failures).toEqual([]);
      expect(ha.exitCode).toBe(3);
    });

    it('api-proxy: every node balances across both API servers, through a local port the kubelet uses', () => {
      for (const host of ['kctest1', 'kctest2', 'kctest3']) {
        expect(ha.tasks(host, 'api-proxy')).toEqual(['binary /usr/local/bin/kcluster-apiproxy', 'file /etc/systemd/system/kcluster-apiproxy.service', 'service kcluster-apiproxy.service enabled, started']);
      }
      const unit = ha.diff('kctest3', 'file /etc/systemd/system/kcluster-apiproxy.service');
      expect(unit).toContain('10.231.0.11:6443');
      expect(unit).toContain('10.231.0.12:6443');
      expect(one.tasks('kctest2', 'api-proxy')).toEqual([]);
    });

    it('docker: Docker Engine from the OS packages, cri-dockerd, the kubelet on cri-dockerd; no containerd role', () => {
      expect(ha.tasks('kctest3', 'docker')).toEqual([
        'kernel module overlay',
        'kernel module br_netfilter',
        'file /etc/docker/daemon.json',
        'Docker Engine packages present',
        'binary /usr/local/bin/cri-dockerd',
        'file /etc/systemd/system/cri-docker.service',
        'file /etc/crictl.yaml',
        'service docker.service enabled, started',
        'service cri-docker.service enabled, started',
      ]);
      expect(ha.tasks('kctest3', 'containerd')).toEqual([]);
      expect(ha.diff('kctest3', 'file /etc/docker/daemon.json')).toContain('native.cgroupdriver=systemd');
      expect(ha.diff('kctest3', 'file /var/lib/kubelet/config.yaml')).toContain('+containerRuntimeEndpoint: unix:///run/cri-dockerd.sock');
    });

    it('control-plane on both control planes, each with its own address', () => {
      expect(ha.diff('kctest2', 'file /etc/kubernetes/manifests/kube-apiserver.yaml')).toContain('+        - --advertise-address=10.231.0.12\n');
      expect(ha.diff('kctest2', 'file /etc/kubernetes/manifests/kube-apiserver.yaml')).toContain('--etcd-servers=https://10.231.0.11:2379,https://10.231.0.12:2379');
      expect(ha.tasks('kctest3', 'control-plane')).toEqual([]);
    });
  });

  describe('the upgrade playbook', () => {
    let up: Scenario;
    beforeAll(async () => {
      up = await planScenario(lab, () => undefined, (inputs) => upgradePlaybook(inputs, { maxUnavailable: 1, drainTimeoutMs: 60_000 }));
    }, 180_000);

    it('plans the etcd snapshot first on the first control plane, then the control plane, then each worker drained before its kubelet changes', () => {
      expect(up.failures).toEqual([]);
      expect(up.exitCode).toBe(3);
      expect(up.tasks('kctest1', 'etcd-backup')).toEqual(['etcd snapshot before the upgrade']);
      const index = (host: string, role: string) => up.planned.findIndex((p) => p.host === host && p.role === role);
      expect(index('kctest1', 'etcd-backup')).toBe(0);
      expect(index('kctest1', 'control-plane')).toBeGreaterThan(0);
      expect(up.tasks('kctest1', 'drain')).toEqual([]);
      for (const worker of ['kctest2', 'kctest3']) {
        expect(up.tasks(worker, 'drain')).toEqual(['cordon and drain']);
        expect(index(worker, 'drain')).toBeGreaterThan(index('kctest1', 'control-plane'));
        expect(index(worker, 'drain')).toBeLessThan(index(worker, 'kubelet'));
      }
      // A running cluster's control plane keeps the manifests that run before any changes, to put them back if a component does not come back.
      const cp = up.tasks('kctest1', 'control-plane');
      expect(cp.indexOf('last good manifests kept')).toBeGreaterThanOrEqual(0);
      expect(cp.indexOf('last good manifests kept')).toBeLessThan(cp.indexOf('file /etc/kubernetes/manifests/kube-apiserver.yaml'));
      expect(up.planned.find((p) => p.task === 'last good manifests kept')?.summary).toBe('keep the manifests that run now in /etc/kubernetes/manifests-last-good, to put back if a change keeps a component from starting');
      expect(one.tasks('kctest1', 'control-plane')).not.toContain('last good manifests kept');
      expect(up.planned.find((p) => p.role === 'drain')?.summary).toBe(`cordon and drain before the kubelet becomes ${K8S} (PodDisruptionBudgets respected, 60 s at most)`);
    });
  });

  describe('the etcd snapshot restore playbook', () => {
    let restore: Scenario;
    beforeAll(async () => {
      // a stand-in file: check mode uploads nothing and never reads it on a host
      const file = join(mkdtempSync(join(tmpdir(), 'kc-restore-plan-')), 'etcd-stand-in.db');
      writeFileSync(file, 'not a real snapshot\n');
      restore = await planScenario(lab, () => undefined, (inputs) => snapshotRestorePlaybook(inputs.inventory, { localFile: file, sha256: 'a'.repeat(64), stamp: '2026-11-24T00-00-00-000Z' }));
    }, 180_000);

    it('plans each step on the control plane only, in order, with the cleanup finding nothing to undo', () => {
      expect(restore.failures).toEqual([]);
      expect(restore.exitCode).toBe(3);
      const steps = restore.planned.filter((p) => p.role.startsWith('etcd-restore'));
      expect(steps.map((p) => `${p.host} ${p.task}`)).toEqual([
        'kctest1 the snapshot on the control plane',
        'kctest1 build the restored etcd data dir',
        'kctest1 stop the control plane',
        'kctest1 swap in the restored data dir',
        'kctest1 start the control plane',
      ]);
      expect(steps[0]!.summary).toBe('upload etcd-stand-in.db to /var/lib/kcluster/backups/etcd-stand-in.db (sha256 checked)');
      expect(steps[1]!.summary).toBe('etcdutl snapshot restore into /var/lib/etcd.restoring as member kctest1 of 1');
      expect(steps[3]!.summary).toBe('move /var/lib/etcd to /var/lib/etcd.before-restore-2026-11-24T00-00-00-000Z, the restored data dir to /var/lib/etcd');
    });
  });

  describe('the certs renew playbook', () => {
    let renew: Scenario;
    beforeAll(async () => {
      renew = await planScenario(lab, () => undefined, (inputs) => certsRenewPlaybook(inputs));
    }, 180_000);

    it('the control plane first: its files, the kubelet, then waits for the static pods to be current; then the other nodes', () => {
      expect(renew.failures).toEqual([]);
      const order = renew.planned.map((p) => `${p.host} ${p.role}`).filter((v, i, all) => all.indexOf(v) === i);
      // The control plane's two roles first, in order; the other nodes after it, in parallel (any order).
      expect(order.slice(0, 2)).toEqual(['kctest1 control-plane', 'kctest1 kubelet']);
      expect(order.slice(2).sort()).toEqual(['kctest2 kubelet', 'kctest3 kubelet']);
      expect(renew.waits.filter((w) => w.startsWith('kctest1 static-pods-current/'))).toEqual([expect.stringMatching(/^kctest1 static-pods-current\/API server ready, static pods current: would wait for \/readyz/)]);
      expect(renew.planned.filter((p) => p.role === 'addons')).toEqual([]);
    });
  });
});

