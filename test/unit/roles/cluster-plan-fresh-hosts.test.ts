// Every cluster role planned in check mode (apply --check --diff) on fresh hosts, from facts
// recorded on real Debian lab hosts (systemd, nothing of Kubernetes) and replayed by a fake
// connection that runs nothing: per role, which tasks would change on the control plane and on
// a worker, and what the rendered files say. The inputs are real (the parsed inventory, a
// generated PKI, artifacts prepared from a stand-in bundle). Recordings: test/fixtures/facts/,
// refreshed by `npm run record:facts`; test/integration/cluster-roles-plan.test.ts plans the
// same over real SSH.
import { beforeAll, describe, expect, it } from 'vitest';
import { componentVersionsFor } from '../../../src/kubernetes/artifacts/component-versions.js';
import { DEFAULT_KUBERNETES_VERSION } from '../../../src/kubernetes/inventory/defaults.js';
import type { Scenario } from '../../support/plan-scenario.js';
import { planOverRecording } from '../../support/recorded-facts/plan-over-recording.js';

const K8S = DEFAULT_KUBERNETES_VERSION;
const companions = componentVersionsFor(K8S);
const binaries = (...paths: string[]): string[] => paths.map((p) => `binary ${p}`);
const files = (...paths: string[]): string[] => paths.map((p) => `file ${p}`);

describe('cluster roles planned on fresh hosts (check mode, recorded facts through a fake connection)', () => {
  let one: Scenario;
  beforeAll(async () => {
    one = await planOverRecording('empty-debian');
  }, 60_000);

  it('plans every role without a failure, and would change something', () => {
    expect(one.failures).toEqual([]);
    expect(one.exitCode).toBe(3);
  });

  it('artifacts: the node binaries everywhere (kcluster-relay first: 3 hosts fan out), etcdctl and etcdutl on the control plane', () => {
    const node = [
      ...files('/var/lib/kcluster/cluster'),
      ...binaries(
        '/usr/local/bin/kcluster-relay',
        '/usr/local/bin/kubectl',
        '/usr/local/bin/crictl',
        '/opt/cni/bin/bridge',
        '/opt/cni/bin/host-local',
        '/opt/cni/bin/loopback',
        '/opt/cni/bin/portmap',
      ),
    ];
    expect(one.tasks('kcrec2', 'artifacts')).toEqual(node);
    expect(one.tasks('kcrec1', 'artifacts')).toEqual([...node, ...binaries('/usr/local/bin/etcdctl', '/usr/local/bin/etcdutl')]);
  });

  it('containerd: modules, binaries, config with the systemd cgroup driver and the pause image, unit, service', () => {
    expect(one.tasks('kcrec2', 'containerd')).toEqual([
      'kernel module overlay',
      'kernel module br_netfilter',
      ...binaries('/usr/local/bin/containerd', '/usr/local/bin/ctr', '/usr/local/bin/containerd-shim-runc-v2', '/usr/local/sbin/runc'),
      ...files('/etc/containerd/config.toml', '/etc/systemd/system/containerd.service', '/etc/crictl.yaml'),
      'service containerd.service enabled, started',
    ]);
    const config = one.diff('kcrec2', 'file /etc/containerd/config.toml');
    expect(config).toContain('+        SystemdCgroup = true');
    expect(config).toContain(`+    sandbox = "kcluster.local/pause:${companions.pause}"`);
    expect(config).toContain('+        BinaryName = "/usr/local/sbin/runc"');
  });

  it('images: the node images everywhere, the control-plane images on the control plane only', () => {
    const image = (n: string) => `image kcluster.local/${n}`;
    const node = [
      `pause:${companions.pause}`,
      `kube-proxy:${K8S}`,
      `coredns:${companions.coredns}`,
      `flannel:${companions.flannel}`,
      `kube-network-policies:${companions.kubeNetworkPolicies}`,
      `metrics-server:${companions.metricsServer}`,
    ].map(image);
    expect(one.tasks('kcrec2', 'images')).toEqual(node);
    expect([...one.tasks('kcrec1', 'images')].sort()).toEqual(
      [...node, ...[`kube-apiserver:${K8S}`, `kube-controller-manager:${K8S}`, `kube-scheduler:${K8S}`, `etcd:${companions.etcd}`].map(image)].sort(),
    );
  });

  it('kubelet: sysctls, binary, credentials, configuration and unit; the control plane registers with its taint', () => {
    const configured = [
      'sysctl net.ipv4.ip_forward = 1',
      'sysctl net.bridge.bridge-nf-call-iptables = 1',
      ...binaries('/usr/local/bin/kubelet'),
      ...files(
        '/etc/kubernetes/pki/ca.crt',
        '/etc/kubernetes/kubelet.conf',
        '/var/lib/kubelet/pki/kubelet.crt',
        '/var/lib/kubelet/pki/kubelet.key',
        '/var/lib/kubelet/config.yaml',
        '/etc/systemd/system/kubelet.service',
      ),
      // Before the kubelet starts, so that it watches the folder (no 20 s scan interval).
      'directory /etc/kubernetes/manifests',
    ];
    // A fresh install starts the control plane's kubelet with the nodes (it runs the static
    // pods), a worker's once the API server answers (kubeletStartedRole, after the control plane).
    expect(one.tasks('kcrec1', 'kubelet')).toEqual([...configured, 'service kubelet.service enabled, started']);
    expect(one.tasks('kcrec2', 'kubelet')).toEqual(configured);
    expect(one.tasks('kcrec2', 'kubelet-started')).toEqual(['service kubelet.service enabled, started']);
    expect(one.tasks('kcrec1', 'kubelet-started')).toEqual([]);
    const config = one.diff('kcrec2', 'file /var/lib/kubelet/config.yaml');
    for (const line of [
      '+cgroupDriver: systemd',
      '+  - 10.96.0.10',
      '+clusterDomain: cluster.local',
      '+containerRuntimeEndpoint: unix:///run/containerd/containerd.sock',
      '+failSwapOn: true',
    ])
      expect(config).toContain(line);
    expect(config).toContain('+  anonymous:\n+    enabled: false');
    expect(one.diff('kcrec1', 'file /etc/systemd/system/kubelet.service')).toContain(
      '--node-ip=10.231.7.11 --register-with-taints=node-role.kubernetes.io/control-plane:NoSchedule',
    );
    expect(one.diff('kcrec2', 'file /etc/systemd/system/kubelet.service')).not.toContain('--register-with-taints');
    // CIS 4.1.1 and 4.1.9: the unit and the configuration readable by root only.
    const summary = (task: string) => one.planned.find((p) => p.host === 'kcrec2' && p.task === task)?.summary;
    expect(summary('file /etc/systemd/system/kubelet.service')).toBe('create /etc/systemd/system/kubelet.service (mode 0600, root:root)');
    expect(summary('file /var/lib/kubelet/config.yaml')).toBe('create /var/lib/kubelet/config.yaml (mode 0600, root:root)');
  });

  it('control-plane: PKI, kubeconfigs and the four static pods on the control plane only', () => {
    expect(one.tasks('kcrec2', 'control-plane')).toEqual([]);
    const cp = one.tasks('kcrec1', 'control-plane');
    expect(cp).toEqual(
      expect.arrayContaining(
        files(
          '/etc/kubernetes/pki/ca.key',
          '/etc/kubernetes/pki/sa.key',
          '/etc/kubernetes/admin.conf',
          ...['kube-apiserver', 'kube-controller-manager', 'kube-scheduler'].map((p) => `/etc/kubernetes/manifests/${p}.yaml`),
        ),
      ),
    );
    // CIS 1.1.12: etcd runs as a user of its own, made first; its manifest needs that user's uid,
    // so on a fresh host --check cannot render it yet (the e2e suite checks the running etcd).
    expect(cp[0]).toBe('user etcd');
    expect(one.planned.find((p) => p.host === 'kcrec1' && p.task === 'user etcd')?.summary).toBe(
      'create the system user and group etcd (etcd runs as it, owns /var/lib/etcd and its keys)',
    );
    expect(one.skipped.get('kcrec1 file /etc/kubernetes/manifests/etcd.yaml')).toBe('the etcd user does not exist yet (the run creates it first)');
    expect(one.planned.find((p) => p.host === 'kcrec1' && p.task === 'file /etc/kubernetes/etcd/server.key')?.summary).toMatch(
      /^create \/etc\/kubernetes\/etcd\/server\.key \(mode 0600, etcd:etcd; /,
    );
    const apiserver = one.diff('kcrec1', 'file /etc/kubernetes/manifests/kube-apiserver.yaml');
    for (const flag of [
      '--advertise-address=10.231.7.11',
      '--service-cluster-ip-range=10.96.0.0/12',
      '--authorization-mode=Node,RBAC',
      '--enable-admission-plugins=NodeRestriction',
      '--etcd-servers=https://127.0.0.1:2379',
    ])
      expect(apiserver).toContain(`+        - ${flag}\n`);
    // CIS 1.2.15, 1.3.2, 1.4.1 (profiling off) and 1.2.30 (no extended service-account tokens).
    expect(apiserver).toContain('+        - --profiling=false\n+        - --service-account-extend-token-expiration=false\n');
    for (const component of ['kube-controller-manager', 'kube-scheduler'])
      expect(one.diff('kcrec1', `file /etc/kubernetes/manifests/${component}.yaml`)).toContain('+        - --profiling=false\n');
    // CIS 1.1.11: etcd's data directory made 0700 before etcd starts.
    expect(one.planned.find((p) => p.host === 'kcrec1' && p.task === 'directory /var/lib/etcd')?.summary).toBe(
      'create directory /var/lib/etcd (mode 0700, etcd:etcd)',
    );
    // CIS 1.1.19: etcd's own keys in a folder it owns, root's PKI folder holds none of its keys.
    expect(one.planned.find((p) => p.host === 'kcrec1' && p.task === 'directory /etc/kubernetes/etcd')?.summary).toBe(
      'create directory /etc/kubernetes/etcd (mode 0700, etcd:etcd)',
    );
    expect(
      one.planned
        .filter((p) => p.host === 'kcrec1' && /^file \/etc\/kubernetes\/pki\/.*\.key$/.test(p.task))
        .map((p) => p.summary)
        .filter((s) => !s.includes('root:root')),
    ).toEqual([]);
    expect(apiserver).toContain(`image: kcluster.local/kube-apiserver:${K8S}`);
    // CIS 1.2.16-1.2.19 (audit log with rotation), 1.2.27 (Secrets encrypted), 1.2.29 (ciphers).
    for (const flag of [
      '--encryption-provider-config=/etc/kubernetes/encryption/config.yaml',
      '--audit-policy-file=/etc/kubernetes/audit/policy.yaml',
      '--audit-log-path=/var/log/kubernetes/audit/audit.log',
      '--audit-log-maxage=30',
      '--audit-log-maxbackup=10',
      '--audit-log-maxsize=100',
      '--tls-min-version=VersionTLS12',
      '--admission-control-config-file=/etc/kubernetes/admission/config.yaml',
    ]) {
      expect(apiserver).toContain(`+        - ${flag}\n`);
    }
    expect(apiserver).toMatch(/\+ {8}- --tls-cipher-suites=TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,[A-Z0-9_,]+\n/);
    expect(one.diff('kcrec2', 'file /var/lib/kubelet/config.yaml')).toContain('+tlsCipherSuites:\n+  - TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256\n');
    // CIS 4.2.10: the kubelet renews its own client certificate.
    expect(one.diff('kcrec2', 'file /var/lib/kubelet/config.yaml')).toContain('+rotateCertificates: true\n');
    // The encryption key never shows; the audit policy does (it holds no secret).
    expect(one.planned.find((p) => p.task === 'file /etc/kubernetes/encryption/config.yaml')?.summary).toMatch(
      /^create \/etc\/kubernetes\/encryption\/config\.yaml \(mode 0600, root:root; \d+ bytes, secret: content not shown\)$/,
    );
    expect(JSON.stringify(one.planned) + one.log.join('\n')).not.toContain(one.encryption.keys[0]!.secret);
    expect(one.diff('kcrec1', 'file /etc/kubernetes/audit/policy.yaml')).toContain('+  - level: Metadata\n');
    expect(one.planned.find((p) => p.host === 'kcrec1' && p.task === 'directory /var/log/kubernetes/audit')?.summary).toBe(
      'create directory /var/log/kubernetes/audit (mode 0700, root:root)',
    );
  });

  it('addons from the first control plane only: RBAC, kube-proxy, flannel; CoreDNS once they run on every node', () => {
    expect(one.tasks('kcrec1', 'addons')).toEqual([
      'addon cluster-rbac',
      'addon kube-proxy',
      'addon flannel',
      'addon kube-network-policies',
      'addon metrics-server',
      'Secrets encrypted at rest with the current key',
    ]);
    // The waits plan as waits, not changes: kube-proxy and flannel, then CoreDNS once applied.
    expect(one.tasks('kcrec1', 'addons-running')).toEqual(['addon coredns', 'node role labels']);
    expect(one.waits.filter((w) => w.startsWith('kcrec1 addons-running/')).map((w) => w.split(':')[0])).toEqual([
      'kcrec1 addons-running/kube-proxy and the pod network running',
      'kcrec1 addons-running/CoreDNS running',
      'kcrec1 addons-running/node labels and taints',
    ]);
    expect(one.planned.filter((p) => (p.role === 'addons' || p.role === 'addons-running') && p.host !== 'kcrec1')).toEqual([]);
  });

  it('shows no secret in any diff, summary or debug log line (keys and kubeconfigs planned, content hidden)', () => {
    const everything = JSON.stringify(one.planned) + one.log.join('\n');
    expect(everything).not.toMatch(/PRIVATE KEY|client-key-data/);
    expect(one.planned.find((p) => p.host === 'kcrec1' && p.task === 'file /etc/kubernetes/pki/ca.key')?.summary).toMatch(/secret: content not shown/);
    expect(one.planned.find((p) => p.host === 'kcrec2' && p.task === 'file /etc/kubernetes/kubelet.conf')?.summary).toMatch(/secret: content not shown/);
  });
});
