// End to end: a real Kubernetes cluster (1 control plane + 2 workers) on privileged lab hosts
// whose package manager is disabled (apt-get, apt and dpkg moved away: the containerd path needs
// no OS package beyond what the preflight checks for),
// installed by `kcluster apply` from the bundle built from source (`kcluster bundle build`), then
// checked from the controller with the bundle's own kubectl: nodes Ready, DNS through CoreDNS,
// pod-to-pod traffic across workers, a ClusterIP Service; NetworkPolicy enforced (deny, then
// allow, ingress and egress); metrics-server turned off and on
// again, then resource metrics (kubectl top, an HPA scaling up and back down); the default
// StorageClass turned on (a claim keeps its data across pods) and off; a Helm chart of
// cluster.charts installed, upgraded (the diff first) and uninstalled; a second apply changes nothing;
// a scheduled etcd snapshot (the timer active, one run listed and fetched, sha256 checked);
// drift is shown and repaired; certs renew refuses a control plane that is no etcd member yet
// before anything changes (apply adds it: control-plane-lifecycle.test.ts); a kubelet certificate from another CA is refused; and the Conformance selection
// (test/conformance) passes on it.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { kcluster, parseEvents } from '../integration/support/test-lab.js';
import { conformanceSelection } from './support/conformance.js';
import { componentVersionsFor, KUBERNETES_RELEASES } from '../../src/kubernetes/artifacts/component-versions.js';
import { cisFailures } from './support/kube-bench.js';
import {
  bundleDir,
  bundleEntries,
  changesIn,
  kubectlBinary,
  recapOf,
  sshTo,
  until,
  webAndClientPods,
  wgetInPod,
  writeKubeconfigAs,
} from './support/e2e-support.js';

const run = promisify(execFile);
// Lab name and subnet: KCLUSTER_E2E_LAB (default kce2e) and KCLUSTER_E2E_SUBNET (10.231.4.0/24).
const NAME = process.env['KCLUSTER_E2E_LAB'] ?? 'kce2e';
const SUBNET = process.env['KCLUSTER_E2E_SUBNET'] ?? '10.231.4.0/24';
const labDir = join(homedir(), '.kcluster', 'labs', NAME);
const inventory = join(labDir, 'inventory.yaml');
const work = mkdtempSync(join(tmpdir(), 'kc-e2e-'));
const kubeconfig = join(work, 'admin.conf');
const hpaFile = join(work, 'hpa.yaml');
const testChart = join(process.cwd(), 'test', 'fixtures', 'charts', 'kcluster-test');
const kubernetesVersionOf = (file: string): string =>
  (parse(readFileSync(file, 'utf8')) as { cluster: { kubernetesVersion?: string } }).cluster.kubernetesVersion ?? KUBERNETES_RELEASES[0]!;

const lock = bundleEntries;
const kubectlPath = (): string => kubectlBinary();
const ssh = sshTo(labDir);

async function kubectl(...args: string[]): Promise<string> {
  const { stdout } = await run(kubectlPath(), ['--kubeconfig', kubeconfig, '--request-timeout=20s', ...args], { maxBuffer: 16 * 1024 * 1024 });
  return stdout;
}

const timings: Record<string, number> = {};
/** The fresh install's NDJSON events (its run-start names the debug log). */
let installEvents: Record<string, unknown>[] = [];

/** Every file under the state folder's PKI with its sha256: to show a refused run changed nothing. */
function pkiDigest(dir: string): Record<string, string> {
  const files = readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
  return Object.fromEntries(
    files.map((e) => [
      join(e.parentPath, e.name),
      createHash('sha256')
        .update(readFileSync(join(e.parentPath, e.name)))
        .digest('hex'),
    ]),
  );
}

beforeAll(async () => {
  bundleDir();
  await kcluster(['lab', 'down', '--name', NAME]);
  const up = await kcluster(['lab', 'up', '--name', NAME, '--hosts', '3', '--privileged', '--subnet', SUBNET, '--bundle', bundleDir()]);
  if (up.code !== 0) throw new Error(`lab up failed: ${up.stderr}`);
  // Nothing may come from the hosts' package manager: an install that asked for it fails.
  const ssh = sshTo(labDir);
  for (let i = 1; i <= 3; i++)
    await ssh(`${NAME}${i}`, 'for c in apt-get apt dpkg; do p=$(command -v "$c") && mv "$p" "$p.disabled-by-e2e"; done; ! command -v apt-get');
});

afterAll(async () => {
  console.log(`e2e figures: ${JSON.stringify(timings)}`);
  if (!process.env['KCLUSTER_KEEP_E2E_LAB']) await kcluster(['lab', 'down', '--name', NAME]);
});

describe('kcluster apply: a real cluster from the bundle (1 control plane + 2 workers)', () => {
  it('goes from empty hosts to all nodes Ready', async () => {
    const started = Date.now();
    const apply = await kcluster(['apply', '-i', inventory, '--output', 'json']);
    timings['applySeconds'] = (Date.now() - started) / 1000;
    expect(apply.code, `${apply.stderr}\n${apply.stdout.slice(-4000)}`).toBe(0);
    installEvents = parseEvents(apply.stdout);
    const written = await kcluster(['kubeconfig', '-i', inventory, '--file', kubeconfig]);
    expect(written.code, written.stderr).toBe(0);
    const ready = await until('all 3 nodes Ready', 240_000, async () => {
      const nodes = JSON.parse(await kubectl('get', 'nodes', '-o', 'json')) as {
        items: { metadata: { name: string }; status: { conditions: { type: string; status: string }[] } }[];
      };
      const readyNames = nodes.items.filter((n) => n.status.conditions.some((c) => c.type === 'Ready' && c.status === 'True')).map((n) => n.metadata.name);
      return readyNames.length === 3 ? readyNames.sort() : undefined;
    });
    timings['emptyToReadySeconds'] = (Date.now() - started) / 1000;
    expect(ready).toEqual([`${NAME}1`, `${NAME}2`, `${NAME}3`]);
    // ROLES as `kubectl get nodes` shows them
    expect(
      (await kubectl('get', 'nodes', '--no-headers'))
        .split('\n')
        .filter(Boolean)
        .map((l) =>
          l
            .split(/\s+/)
            .slice(0, 3)
            .join(' ')
            .replace(/ (Ready|NotReady) /, ' '),
        ),
    ).toEqual([`${NAME}1 control-plane`, `${NAME}2 worker`, `${NAME}3 worker`]);
  });

  it('fans artifacts out (cluster.artifacts.fanOut, on by default): the controller sends each at most twice, the third host gets relayed copies', async () => {
    const debugLog = installEvents.find((e) => e['type'] === 'run-start')?.['debugLog'];
    expect(typeof debugLog, 'the install names its debug log').toBe('string');
    const lines = readFileSync(debugLog as string, 'utf8').split('\n');
    const relayed = lines.filter((l) => l.includes(': relayed from '));
    const failed = lines.filter((l) => / relay from \S+ \(\S+\) failed: /.test(l));
    expect(failed, 'no relay failed on the lab bridge').toEqual([]);
    expect(relayed.length, 'copies relayed between hosts').toBeGreaterThan(0);
    // "HOST: ROLE: LABEL: sent from the controller (...)": per artifact at most 2 hosts.
    const fromController = new Map<string, number>();
    for (const line of lines) {
      const match = /^\S+ \S+: [\w-]+: (.+): sent from the controller \(/.exec(line);
      if (match) fromController.set(match[1]!, (fromController.get(match[1]!) ?? 0) + 1);
    }
    expect(fromController.size).toBeGreaterThan(0);
    expect([...fromController].filter(([, copies]) => copies > 2)).toEqual([]);
  });

  it('runs pods: DNS through CoreDNS, pod-to-pod across workers, a ClusterIP Service', async () => {
    const busybox = lock().find((a) => a.name === 'busybox')!;
    const archive = readFileSync(join(bundleDir(), busybox.path));
    for (const host of [`${NAME}2`, `${NAME}3`]) {
      await new Promise<void>((resolve, reject) => {
        const child = execFile('ssh', ['-F', join(labDir, 'ssh_config'), host, 'ctr -n k8s.io images import -'], (error) =>
          error ? reject(error) : resolve(),
        );
        child.stdin?.end(archive);
      });
    }
    const manifest = webAndClientPods(busybox.reference!, `${NAME}2`, `${NAME}3`, 'hello-from-web');
    const file = join(work, 'pods.yaml');
    writeFileSync(file, manifest);
    await kubectl('apply', '-f', file);
    await kubectl('wait', '--for=condition=Ready', 'pod/web', 'pod/client', '--timeout=180s');
    const exec = (...cmd: string[]) => kubectl('exec', 'client', '--', '/bin/busybox', ...cmd);
    const fetchBody = (url: string) => kubectl('exec', 'client', '--', ...wgetInPod(url));
    const lookup = await until('kubernetes.default resolves', 120_000, async () => {
      const out = await exec('nslookup', `kubernetes.default.svc.cluster.local`);
      return /Address:?\s+10\.96\.0\.1\b/.test(out) ? out : undefined;
    });
    expect(lookup).toMatch(/10\.96\.0\.1/);
    const webIp = (await kubectl('get', 'pod', 'web', '-o', 'jsonpath={.status.podIP}')).trim();
    expect(
      await until('pod-to-pod across workers', 60_000, async () => ((await fetchBody(`http://${webIp}:8080/`)).includes('hello-from-web') ? 'ok' : undefined)),
    ).toBe('ok');
    expect(
      await until('ClusterIP Service by name', 60_000, async () =>
        (await fetchBody('http://web.default.svc.cluster.local/')).includes('hello-from-web') ? 'ok' : undefined,
      ),
    ).toBe('ok');
  });

  it('enforces NetworkPolicy (kube-network-policies): a default-deny ingress policy blocks pod-to-pod traffic across workers that worked, an allow rule by namespace and pod selector reopens it, a default-deny egress policy blocks it again', async () => {
    const started = Date.now();
    const ns = 'netpol-e2e';
    const busybox = lock().find((a) => a.name === 'busybox')!;
    const file = (name: string, text: string): string => {
      const path = join(work, `${ns}-${name}.yaml`);
      writeFileSync(path, text);
      return path;
    };
    await kubectl('apply', '-f', file('namespace', `apiVersion: v1\nkind: Namespace\nmetadata: { name: ${ns} }\n`));
    await kubectl('-n', ns, 'apply', '-f', file('pods', webAndClientPods(busybox.reference!, `${NAME}2`, `${NAME}3`, 'hello-netpol')));
    await kubectl('-n', ns, 'label', '--overwrite', 'pod', 'client', 'role=client');
    await kubectl('-n', ns, 'wait', '--for=condition=Ready', 'pod/web', 'pod/client', '--timeout=120s');
    const webIp = (await kubectl('-n', ns, 'get', 'pod', 'web', '-o', 'jsonpath={.status.podIP}')).trim();
    const reaches = async (): Promise<boolean> =>
      kubectl('-n', ns, 'exec', 'client', '--', ...wgetInPod(`http://${webIp}:8080/`, 3)).then(
        (out) => out.includes('hello-netpol'),
        () => false,
      );
    const policy = (name: string, spec: string): string =>
      file(name, `apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata: { name: ${name} }\nspec:\n${spec}`);
    const expectReach = async (what: string, want: boolean) =>
      expect(await until(what, 30_000, async () => ((await reaches()) === want ? 'as expected' : undefined))).toBe('as expected');

    await expectReach('client reaches web across workers before any policy', true);
    await kubectl('-n', ns, 'apply', '-f', policy('deny-ingress', '  podSelector: {}\n  policyTypes: [Ingress]\n'));
    await expectReach('a default-deny ingress policy blocks it', false);
    await kubectl(
      '-n',
      ns,
      'apply',
      '-f',
      policy(
        'allow-client',
        `  podSelector: { matchLabels: { app: web } }\n  policyTypes: [Ingress]\n  ingress:\n    - from: [{ namespaceSelector: { matchLabels: { kubernetes.io/metadata.name: ${ns} } }, podSelector: { matchLabels: { role: client } } }]\n      ports: [{ port: 8080, protocol: TCP }]\n`,
      ),
    );
    await expectReach('an allow rule (namespace and pod selector, port) reopens it', true);
    await kubectl('-n', ns, 'apply', '-f', policy('deny-egress', '  podSelector: { matchLabels: { role: client } }\n  policyTypes: [Egress]\n'));
    await expectReach('a default-deny egress policy on the client blocks it', false);
    await kubectl('delete', 'namespace', ns, '--wait=false');
    timings['networkPolicySeconds'] = (Date.now() - started) / 1000;
  });

  it('metrics-server: --check --diff shows it going when turned off, apply deletes it and its record, and brings it back when on; an HPA starts on a CPU-bound Deployment', async () => {
    const started = Date.now();
    const args = await kubectl('-n', 'kube-system', 'get', 'deployment', 'metrics-server', '-o', 'jsonpath={.spec.template.spec.containers[0].args}');
    expect(args).toContain('--kubelet-certificate-authority=');
    expect(args).not.toContain('insecure');
    const doc = parse(readFileSync(inventory, 'utf8')) as { cluster: Record<string, unknown> };
    doc.cluster['metricsServer'] = { enabled: false };
    const off = join(labDir, 'inventory-metrics-server-off.yaml');
    writeFileSync(off, stringify(doc));
    const check = await kcluster(['apply', '-i', off, '--check', '--diff', '--tags', 'metrics-server']);
    expect(check.code, check.stderr).toBe(3);
    expect(check.stdout).toContain('delete metrics-server (turned off in the inventory)');
    expect(check.stdout).toContain('-  name: v1beta1.metrics.k8s.io');
    const removed = await kcluster(['apply', '-i', off, '--tags', 'metrics-server', '--output', 'json']);
    expect(removed.code, removed.stderr + removed.stdout.slice(-3000)).toBe(0);
    expect(
      await kubectl(
        '-n',
        'kube-system',
        'get',
        'apiservice/v1beta1.metrics.k8s.io',
        'deployment/metrics-server',
        'service/metrics-server',
        '--ignore-not-found',
      ),
    ).toBe('');
    expect(await kubectl('-n', 'kube-system', 'get', 'configmap', 'kcluster-addons', '-o', 'jsonpath={.data.metrics-server}')).toBe('');
    // On again (the default): the rest of this file runs on the default cluster.
    const back = await kcluster(['apply', '-i', inventory, '--tags', 'metrics-server', '--output', 'json']);
    expect(back.code, back.stderr + back.stdout.slice(-3000)).toBe(0);
    expect(changesIn(back.stdout)).toContain('apply metrics-server');

    // An HPA on a Deployment whose pods burn CPU (a busybox loop capped at 100m against a 50m
    // request) until /tmp/stop exists: it scales up while the next tests run (checked below,
    // after the Secrets' key rotation), so waiting for metrics costs this file next to nothing.
    const busybox = lock().find((a) => a.name === 'busybox')!;
    writeFileSync(
      hpaFile,
      `apiVersion: apps/v1
kind: Deployment
metadata: { name: load }
spec:
  replicas: 1
  selector: { matchLabels: { app: load } }
  template:
    metadata: { labels: { app: load } }
    spec:
      nodeSelector: { node-role.kubernetes.io/worker: "" }
      terminationGracePeriodSeconds: 0
      containers:
        - name: load
          image: ${busybox.reference!}
          imagePullPolicy: Never
          command: [/bin/busybox, sh, -c, "while [ ! -e /tmp/stop ]; do :; done; exec /bin/busybox sleep 3600"]
          resources: { requests: { cpu: 50m }, limits: { cpu: 100m } }
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: { name: load }
spec:
  scaleTargetRef: { apiVersion: apps/v1, kind: Deployment, name: load }
  minReplicas: 1
  maxReplicas: 2
  metrics: [{ type: Resource, resource: { name: cpu, target: { type: Utilization, averageUtilization: 50 } } }]
  behavior:
    scaleUp: { stabilizationWindowSeconds: 0 }
    scaleDown: { stabilizationWindowSeconds: 5, policies: [{ type: Percent, value: 100, periodSeconds: 15 }] }
`,
    );
    await kubectl('apply', '-f', hpaFile);
    timings['metricsServerOffOnSeconds'] = (Date.now() - started) / 1000;
  });

  it('local-path storage: turned on, claims on the default StorageClass are bound once a pod uses them, data outlives the pod on its node, a deleted claim loses its folder; turned off, the rest stays', async () => {
    const started = Date.now();
    const doc = parse(readFileSync(inventory, 'utf8')) as { cluster: Record<string, unknown> };
    doc.cluster['localPathStorage'] = { enabled: true };
    const on = join(labDir, 'inventory-local-path-on.yaml');
    writeFileSync(on, stringify(doc));
    // images: its image is not on the hosts while it is off (the default).
    const applied = await kcluster(['apply', '-i', on, '--tags', 'images,local-path-storage', '--output', 'json']);
    expect(applied.code, applied.stderr + applied.stdout.slice(-3000)).toBe(0);
    expect(changesIn(applied.stdout)).toContain('apply local-path-storage');
    expect(await kubectl('get', 'storageclass', 'local-path', '-o', 'jsonpath={.metadata.annotations.storageclass\\.kubernetes\\.io/is-default-class}')).toBe(
      'true',
    );

    // Two claims without a class (so the default's), used by one pod on the first worker: "kept"
    // is read again by a second pod on that node, "dropped" is deleted with its folder.
    const busybox = lock().find((a) => a.name === 'busybox')!;
    const node = `${NAME}2`;
    const claim = (name: string): string => `apiVersion: v1
kind: PersistentVolumeClaim
metadata: { name: ${name} }
spec: { accessModes: [ReadWriteOnce], resources: { requests: { storage: 16Mi } } }
`;
    const pod = (name: string, script: string, claims: string[]): string => `apiVersion: v1
kind: Pod
metadata: { name: ${name} }
spec:
  nodeSelector: { kubernetes.io/hostname: ${node} }
  restartPolicy: Never
  terminationGracePeriodSeconds: 0
  containers:
    - name: c
      image: ${busybox.reference!}
      imagePullPolicy: Never
      command: [/bin/busybox, sh, -c, '${script}']
      volumeMounts: [${claims.map((c) => `{ name: ${c}, mountPath: /${c} }`).join(', ')}]
  volumes: [${claims.map((c) => `{ name: ${c}, persistentVolumeClaim: { claimName: ${c} } }`).join(', ')}]
`;
    const file = join(work, 'local-path.yaml');
    writeFileSync(
      file,
      [claim('kept'), claim('dropped'), pod('writer', 'echo written-by-writer > /kept/file && echo x > /dropped/file', ['kept', 'dropped'])].join('---\n'),
    );
    await kubectl('apply', '-f', file);
    expect(await kubectl('get', 'pvc', 'kept', 'dropped', '-o', 'jsonpath={.items[*].spec.storageClassName}')).toBe('local-path local-path');
    await kubectl('wait', '--for=jsonpath={.status.phase}=Succeeded', 'pod/writer', '--timeout=120s');
    expect(await kubectl('get', 'pvc', 'kept', 'dropped', '-o', 'jsonpath={.items[*].status.phase}')).toBe('Bound Bound');
    const volume = (c: string) => kubectl('get', 'pvc', c, '-o', 'jsonpath={.spec.volumeName}');
    const [kept, dropped] = [await volume('kept'), await volume('dropped')];
    const folders = async () => (await ssh(node, 'ls /opt/local-path-provisioner')).split('\n').filter(Boolean);
    expect(await folders()).toEqual([`${dropped}_default_dropped`, `${kept}_default_kept`].sort());

    await kubectl('delete', 'pod', 'writer', '--wait=true');
    writeFileSync(file, pod('reader', 'cat /kept/file', ['kept']));
    await kubectl('apply', '-f', file);
    await kubectl('wait', '--for=jsonpath={.status.phase}=Succeeded', 'pod/reader', '--timeout=60s');
    expect(await kubectl('logs', 'reader')).toBe('written-by-writer\n');
    await kubectl('delete', 'pod', 'reader', '--wait=true');

    // reclaimPolicy Delete: the claim's helper pod deletes its folder, then the volume goes.
    await kubectl('delete', 'pvc', 'dropped', '--wait=true');
    await until(`volume ${dropped} deleted`, 60_000, async () => ((await kubectl('get', 'pv', dropped, '--ignore-not-found')) === '' ? 'gone' : undefined));
    expect(await folders()).toEqual([`${kept}_default_kept`]);

    // Turned off (the default again, so the rest of this file runs on the default cluster): its
    // objects go, the volume it made and the folder on the host stay.
    const check = await kcluster(['apply', '-i', inventory, '--check', '--diff', '--tags', 'local-path-storage']);
    expect(check.code, check.stderr).toBe(3);
    expect(check.stdout).toContain('delete local-path-storage (turned off in the inventory)');
    const removed = await kcluster(['apply', '-i', inventory, '--tags', 'local-path-storage', '--output', 'json']);
    expect(removed.code, removed.stderr + removed.stdout.slice(-3000)).toBe(0);
    expect(await kubectl('get', 'storageclass/local-path', 'clusterrole/local-path-provisioner-role', '--ignore-not-found')).toBe('');
    expect(await kubectl('get', 'namespace', 'local-path-storage', '--ignore-not-found', '-o', 'jsonpath={.status.phase}')).not.toBe('Active');
    expect(await kubectl('get', 'configmap', '-n', 'kube-system', 'kcluster-addons', '-o', 'jsonpath={.data.local-path-storage}')).toBe('');
    expect(await kubectl('get', 'pvc', 'kept', '-o', 'jsonpath={.status.phase}')).toBe('Bound');
    expect(await ssh(node, `cat /opt/local-path-provisioner/${kept}_default_kept/file`)).toBe('written-by-writer\n');
    // Left for the operator: here the test cleans up after itself.
    await kubectl('delete', 'pvc', 'kept', '--wait=false');
    await kubectl('delete', 'pv', kept, '--wait=false');
    await ssh(node, 'rm -rf /opt/local-path-provisioner');
    timings['localPathStorageSeconds'] = (Date.now() - started) / 1000;
  });

  it('admits pods by Pod Security: baseline enforced and restricted warned by default, a namespace label wins, kube-system exempt', async () => {
    const pod = (name: string, namespace: string, securityContext: string): string => {
      const file = join(work, `${namespace}-${name}.yaml`);
      writeFileSync(
        file,
        `apiVersion: v1\nkind: Pod\nmetadata: { name: ${name}, namespace: ${namespace} }\nspec:\n  containers:\n    - { name: c, image: busybox, command: [sleep, "1"]${securityContext} }\n`,
      );
      return file;
    };
    const dryRun = (file: string) => run(kubectlPath(), ['--kubeconfig', kubeconfig, '--request-timeout=20s', 'apply', '--dry-run=server', '-f', file]);
    const privileged = ', securityContext: { privileged: true }';
    await expect(dryRun(pod('root-of-host', 'default', privileged))).rejects.toThrow(/violates PodSecurity "baseline:latest": privileged/);
    const plain = await dryRun(pod('plain', 'default', ''));
    expect(plain.stdout).toContain('(server dry run)');
    expect(plain.stderr).toMatch(/would violate PodSecurity "restricted:latest"/);
    await kubectl('create', 'namespace', 'node-agents');
    await kubectl('label', 'namespace', 'node-agents', 'pod-security.kubernetes.io/enforce=privileged');
    expect((await dryRun(pod('root-of-host', 'node-agents', privileged))).stdout).toContain('(server dry run)');
    expect((await dryRun(pod('root-of-host', 'kube-system', privileged))).stdout).toContain('(server dry run)');
    await kubectl('delete', 'namespace', 'node-agents', '--wait=false');
  });

  it('renders manifests and configs that this Kubernetes version accepts strictly', async () => {
    // Static pods: server-side dry run with strict field validation (unknown or duplicate fields fail).
    for (const component of ['etcd', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler']) {
      const file = join(work, `${component}.yaml`);
      writeFileSync(file, await ssh(`${NAME}1`, `cat /etc/kubernetes/manifests/${component}.yaml`));
      const out = await kubectl('apply', '--dry-run=server', '--validate=strict', '-f', file);
      expect(out).toContain('(server dry run)');
    }
    // The addons went through server-side apply, strict by default: a warning would be an error.
    // The kubelet and kube-proxy read their configuration files strictly: no decoding complaints.
    for (const host of [`${NAME}1`, `${NAME}2`]) {
      expect(await ssh(host, "journalctl -u kubelet --no-pager | grep -ci 'strict decoding\\|unknown field' || true")).toBe('0\n');
    }
    const proxyLogs = await kubectl('logs', '-n', 'kube-system', '-l', 'k8s-app=kube-proxy', '--tail=-1');
    expect(proxyLogs).not.toMatch(/strict decoding|unknown field/i);
  });

  it('an apply encrypts the Secrets of a cluster that had no encryption; Secrets are stored encrypted and audited without their data', async () => {
    const cp = `${NAME}1`;
    const etcdctl =
      '/usr/local/bin/etcdctl --endpoints=https://127.0.0.1:2379 --cacert=/etc/kubernetes/pki/etcd/ca.crt --cert=/etc/kubernetes/pki/etcd/healthcheck-client.crt --key=/etc/kubernetes/pki/etcd/healthcheck-client.key';
    // The whole stored value, non-printable bytes as dots (a Secret's data comes after its metadata).
    const stored = (name: string): Promise<string> => ssh(cp, `${etcdctl} get /registry/secrets/default/${name} --print-value-only | tr -c '[:print:]' '.'`);
    // A cluster installed before encryption at rest: its API server without the flag stores
    // Secrets in plain text (this cluster has no Secret yet that it could not read); the next
    // apply restores the flag and rewrites them encrypted.
    expect(await ssh(cp, `${etcdctl} get /registry/secrets/ --prefix --keys-only | grep -c . || true`)).toBe('0\n');
    await ssh(cp, "sed -i '/--encryption-provider-config=/d' /etc/kubernetes/manifests/kube-apiserver.yaml");
    // Each round starts from no Secret, deleted in etcd itself: a Secret whose create reached the
    // API server that still encrypted is one the API server without the key cannot read, nor
    // delete ("corrupt object").
    await until('the API server without encryption', 180_000, async () => {
      await ssh(cp, `${etcdctl} del /registry/secrets/default/e2e-plain >/dev/null`);
      await kubectl('create', 'secret', 'generic', 'e2e-plain', '--from-literal=password=plain-value-e2e');
      return (await stored('e2e-plain')).includes('plain-value-e2e') ? true : undefined;
    });
    const fix = await kcluster(['apply', '-i', inventory, '--output', 'json']);
    expect(fix.code, fix.stderr + fix.stdout.slice(-3000)).toBe(0);
    expect(changesIn(fix.stdout)).toMatch(
      new RegExp(
        `${cp} addons/Secrets encrypted at rest with the current key: rewrite 1 of 1 Secrets so that secretbox:key-\\d{8}T\\d{6} encrypts them \\(now: 1 \\(plain text\\)\\)`,
      ),
    );
    expect(await stored('e2e-plain')).toMatch(/^k8s:enc:secretbox:v1:key-\d{8}T\d{6}:/);
    expect((await kubectl('get', 'secret', 'e2e-plain', '-o', 'jsonpath={.data.password}')).trim()).toBe(Buffer.from('plain-value-e2e').toString('base64'));

    // A new Secret is stored encrypted; the audit log records who created it, never its data.
    await kubectl('create', 'secret', 'generic', 'e2e-encrypted', '--from-literal=password=s3cr3t-value-e2e');
    const raw = await stored('e2e-encrypted');
    expect(raw).toMatch(/^k8s:enc:secretbox:v1:key-\d{8}T\d{6}:/);
    expect(raw).not.toContain('s3cr3t');
    const audit = await until(
      'the Secret in the audit log',
      60_000,
      async () => (await ssh(cp, 'grep -h e2e-encrypted /var/log/kubernetes/audit/audit.log || true')).trim() || undefined,
    );
    expect(audit).toContain('"level":"Metadata"');
    expect(
      await ssh(cp, `grep -c -e s3cr3t-value-e2e -e ${Buffer.from('s3cr3t-value-e2e').toString('base64')} /var/log/kubernetes/audit/audit.log || true`),
    ).toBe('0\n');
    expect(await ssh(cp, 'stat -c %a /var/log/kubernetes/audit /etc/kubernetes/encryption/config.yaml')).toBe('700\n600\n');
    // etcd runs as its own user, which owns its 0700 data dir (CIS 1.1.11, 1.1.12).
    expect(await ssh(cp, 'stat -c "%a %U:%G" /var/lib/etcd; ps -o user= -C etcd')).toBe('700 etcd:etcd\netcd\n');
    await kubectl('delete', 'secret', 'e2e-plain', 'e2e-encrypted');
  });

  it('rotates the key of Secrets at rest: the new key encrypts every Secret, the old one is gone, the Secrets read the same', async () => {
    const cp = `${NAME}1`;
    const keysFile = join(labDir, 'state', 'encryption', 'keys.json');
    const keyNames = (): string[] => (JSON.parse(readFileSync(keysFile, 'utf8')) as { keys: { name: string }[] }).keys.map((k) => k.name);
    expect(keyNames(), `${keysFile}: a fresh lab cluster has one key`).toHaveLength(1);
    const [before] = keyNames();
    await kubectl('create', 'secret', 'generic', 'e2e-rotate', '--from-literal=token=rotate-me');
    const preview = await kcluster(['secrets', 'rotate-key', '-i', inventory, '--check', '--output', 'json']);
    expect(preview.code, preview.stderr).toBe(3);
    expect(keyNames()).toEqual([before]);
    // It rewrites every Secret: without --yes and without a terminal to ask on, it refuses and changes nothing.
    const unconfirmed = await kcluster(['secrets', 'rotate-key', '-i', inventory]);
    expect(unconfirmed.code, unconfirmed.stderr).toBe(2);
    expect(unconfirmed.stderr).toContain('refusing without --yes');
    expect(keyNames()).toEqual([before]);
    await new Promise((r) => setTimeout(r, 1100)); // key names carry the second
    const started = Date.now();
    const rotate = await kcluster(['secrets', 'rotate-key', '-i', inventory, '--yes', '--output', 'json']);
    timings['rotateKeySeconds'] = (Date.now() - started) / 1000;
    expect(rotate.code, rotate.stderr + rotate.stdout.slice(-3000)).toBe(0);
    const after = keyNames();
    expect(after).toHaveLength(1);
    expect(after[0]).not.toBe(before);
    expect(changesIn(rotate.stdout)).toMatch(
      new RegExp(`${cp} secrets/Secrets encrypted at rest with the current key: rewrite \\d+ of \\d+ Secrets so that secretbox:${after[0]} encrypts them`),
    );
    const etcdctl =
      '/usr/local/bin/etcdctl --endpoints=https://127.0.0.1:2379 --cacert=/etc/kubernetes/pki/etcd/ca.crt --cert=/etc/kubernetes/pki/etcd/healthcheck-client.crt --key=/etc/kubernetes/pki/etcd/healthcheck-client.key';
    expect(await ssh(cp, `${etcdctl} get /registry/secrets/default/e2e-rotate --print-value-only | head -c 60 | tr -c '[:print:]' '.'`)).toMatch(
      new RegExp(`^k8s:enc:secretbox:v1:${after[0]}:`),
    );
    expect(await ssh(cp, 'grep -c "name: key-" /etc/kubernetes/encryption/config.yaml')).toBe('1\n');
    expect((await kubectl('get', 'secret', 'e2e-rotate', '-o', 'jsonpath={.data.token}')).trim()).toBe(Buffer.from('rotate-me').toString('base64'));
    await kubectl('delete', 'secret', 'e2e-rotate');
  });

  it("serves resource metrics, verifying the kubelets' certificates: kubectl top answers, the HPA has scaled up under load and scales back down without", async () => {
    const started = Date.now();
    // Every node's kubelet answered over TLS verified against the cluster CA (a node it cannot
    // verify would be missing here).
    const nodes = await until('kubectl top nodes lists the 3 nodes', 180_000, async () => {
      const rows = (await kubectl('top', 'nodes', '--no-headers'))
        .split('\n')
        .filter(Boolean)
        .map((l) => l.split(/\s+/)[0]);
      return rows.length === 3 ? rows.sort() : undefined;
    });
    expect(nodes).toEqual([`${NAME}1`, `${NAME}2`, `${NAME}3`]);
    expect(
      await until('kubectl top pods -A lists CoreDNS', 60_000, async () =>
        (await kubectl('top', 'pods', '-A', '--no-headers')).includes('coredns') ? true : undefined,
      ),
    ).toBe(true);
    // No kubelet certificate it could not verify. A scrape refused while an API server restarted
    // (the kubelet's webhook authentication answers 401 then, as during the key rotation above)
    // is not a TLS failure, and the lists above show every node scraped since.
    expect(await kubectl('-n', 'kube-system', 'logs', 'deployment/metrics-server')).not.toMatch(
      /x509|failed to verify|certificate signed by unknown authority|tls: /i,
    );
    const readyReplicas = async (): Promise<number> => Number((await kubectl('get', 'deployment', 'load', '-o', 'jsonpath={.status.readyReplicas}')) || '0');
    expect(await until('the HPA scales load up to 2 under CPU load', 240_000, async () => ((await readyReplicas()) === 2 ? true : undefined))).toBe(true);
    timings['metricsTopAndScaleUpSeconds'] = (Date.now() - started) / 1000;
    for (const pod of (await kubectl('get', 'pods', '-l', 'app=load', '-o', 'jsonpath={.items[*].metadata.name}')).split(/\s+/).filter(Boolean)) {
      await kubectl('exec', pod, '--', '/bin/busybox', 'touch', '/tmp/stop');
    }
    const downStarted = Date.now();
    expect(
      await until('the HPA scales load back down to 1 without load', 240_000, async () =>
        (await kubectl('get', 'deployment', 'load', '-o', 'jsonpath={.spec.replicas}')) === '1' ? true : undefined,
      ),
    ).toBe(true);
    timings['hpaDownSeconds'] = (Date.now() - downStarted) / 1000;
    await kubectl('delete', '-f', hpaFile, '--wait=false');
  });

  it('passes the CIS Kubernetes Benchmark (kube-bench): no FAIL on a control plane, a worker or the policies', async () => {
    expect(await cisFailures(labDir, `${NAME}1`, `${NAME}2`, kubeconfig, kubectlPath())).toEqual([]);
  });

  it('kubelets renew their own client certificates through CSRs the controller-manager approves for their own identity', async () => {
    interface Row {
      location: string;
      path: string;
      subjectCn: string;
      issuerCn: string;
      fingerprint256: string;
      daysLeft: number;
    }
    const certificates = async (): Promise<Row[]> => {
      const check = await kcluster(['certs', 'check', '-i', inventory, '--output', 'json']);
      expect(check.code, check.stderr).toBe(0);
      return (JSON.parse(check.stdout) as { certificates: Row[] }).certificates;
    };
    const issuedAndCurrent = (rows: Row[], host: string) => [
      rows.find((r) => r.location === host && r.path === '/etc/kubernetes/kubelet.conf'),
      rows.find((r) => r.location === host && r.path === '/var/lib/kubelet/pki/kubelet-client-current.pem'),
    ];
    // Every kubelet keeps the certificate it runs on in its own store, for its own identity.
    for (const host of [`${NAME}1`, `${NAME}2`, `${NAME}3`]) {
      const [issued, current] = issuedAndCurrent(await certificates(), host);
      expect([issued?.subjectCn, current?.subjectCn, current?.issuerCn], host).toEqual([`system:node:${host}`, `system:node:${host}`, 'kubernetes']);
    }
    // What the kubelet does at 70-90% of a certificate's life, and after kcluster gives it a new
    // kubelet.conf: start from the issued one, and ask for its own at once.
    const worker = `${NAME}3`;
    await ssh(worker, 'rm -f /var/lib/kubelet/pki/kubelet-client-*.pem && systemctl restart kubelet');
    const rotated = await until(`${worker} on a certificate it asked for`, 120_000, async () => {
      const [issued, current] = issuedAndCurrent(await certificates(), worker);
      return current && issued && current.fingerprint256 !== issued.fingerprint256 ? current : undefined;
    });
    expect([rotated.subjectCn, rotated.issuerCn, rotated.daysLeft > 300]).toEqual([`system:node:${worker}`, 'kubernetes', true]);
    const csrs = JSON.parse(await kubectl('get', 'csr', '-o', 'json')) as {
      items: { spec: { username: string; signerName: string }; status: { conditions?: { type: string }[] } }[];
    };
    expect(
      csrs.items.some(
        (c) =>
          c.spec.username === `system:node:${worker}` &&
          c.spec.signerName === 'kubernetes.io/kube-apiserver-client-kubelet' &&
          c.status.conditions?.some((x) => x.type === 'Approved'),
      ),
    ).toBe(true);
    await until(`${worker} still Ready`, 120_000, async () =>
      (await kubectl('get', 'node', worker, '-o', 'jsonpath={.status.conditions[?(@.type=="Ready")].status}')) === 'True' ? true : undefined,
    );
  });

  it('Helm charts (cluster.charts): a version mismatch refused at its line before any host is touched; the test chart installed, a second apply unchanged; new values shown by --check --diff, then upgraded; removed from the inventory, uninstalled', async () => {
    const started = Date.now();
    const pause = lock().find((a) => a.name === 'pause' && a.type === 'image' && a.version === componentVersionsFor(kubernetesVersionOf(inventory)).pause)!;
    const chartOf = (values: Record<string, unknown>, version = '0.1.0'): string => {
      const doc = parse(readFileSync(inventory, 'utf8')) as { cluster: Record<string, unknown> };
      doc.cluster['charts'] = [{ release: 'kctest', namespace: 'kcluster-charts', chart: testChart, version, values: { image: pause.reference!, ...values } }];
      return stringify(doc);
    };
    const withChart = join(labDir, 'inventory-chart.yaml');
    const pods = async (): Promise<string> =>
      kubectl('-n', 'kcluster-charts', 'get', 'deployment', 'kctest', '-o', 'jsonpath={.status.readyReplicas}/{.spec.replicas}');

    writeFileSync(withChart, chartOf({}, '0.2.0'));
    const refused = await kcluster(['apply', '-i', withChart, '--tags', 'charts']);
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr).toMatch(/inventory-chart\.yaml:\d+:\d+: cluster\.charts\[0\]\.version: .* is chart version 0\.1\.0, not 0\.2\.0/);

    writeFileSync(withChart, chartOf({ greeting: 'hello' }));
    const installed = await kcluster(['apply', '-i', withChart, '--tags', 'charts', '--output', 'json']);
    expect(installed.code, installed.stderr + installed.stdout.slice(-3000)).toBe(0);
    expect(changesIn(installed.stdout)).toContain('helm install kcluster-charts/kctest (chart version 0.1.0)');
    expect(await pods()).toBe('1/1');
    expect(await kubectl('-n', 'kcluster-charts', 'get', 'configmap', 'kctest-greeting', '-o', 'jsonpath={.data.greeting}')).toBe('hello');
    const again = await kcluster(['apply', '-i', withChart, '--tags', 'charts', '--output', 'json']);
    expect(again.code, again.stderr).toBe(0);
    expect(changesIn(again.stdout)).toBe('');

    writeFileSync(withChart, chartOf({ greeting: 'bonjour', replicas: 2 }));
    const diff = await kcluster(['apply', '-i', withChart, '--check', '--diff', '--tags', 'charts']);
    expect(diff.code, diff.stderr).toBe(3);
    expect(diff.stdout).toContain('helm upgrade kcluster-charts/kctest');
    expect(diff.stdout).toContain('-  greeting: "hello"');
    expect(diff.stdout).toContain('+  greeting: "bonjour"');
    expect(diff.stdout).toContain('+  replicas: 2');
    const upgraded = await kcluster(['apply', '-i', withChart, '--tags', 'charts', '--output', 'json']);
    expect(upgraded.code, upgraded.stderr + upgraded.stdout.slice(-3000)).toBe(0);
    expect(await pods()).toBe('2/2');
    expect(await kubectl('-n', 'kcluster-charts', 'get', 'configmap', 'kctest-greeting', '-o', 'jsonpath={.data.greeting}')).toBe('bonjour');

    const removal = await kcluster(['apply', '-i', inventory, '--check', '--diff', '--tags', 'charts']);
    expect(removal.code, removal.stderr).toBe(3);
    expect(removal.stdout).toContain('helm uninstall kcluster-charts/kctest (no longer in cluster.charts');
    const removed = await kcluster(['apply', '-i', inventory, '--tags', 'charts', '--output', 'json']);
    expect(removed.code, removed.stderr + removed.stdout.slice(-3000)).toBe(0);
    expect(await kubectl('-n', 'kcluster-charts', 'get', 'deployment,configmap,secret', '-l', 'app.kubernetes.io/instance=kctest', '-o', 'name')).toBe('');
    expect(await kubectl('-n', 'kcluster-charts', 'get', 'secret', '-l', 'owner=helm', '-o', 'name')).toBe('');
    await kubectl('delete', 'namespace', 'kcluster-charts', '--wait=false');
    timings['chartsSeconds'] = (Date.now() - started) / 1000;
  });

  it('leaves no staged image archive and no relay server behind (each deletes its archive when it exits, 45 s after its last client)', async () => {
    // Each relay server deletes its staged archive when it exits, 45 s after its last client.
    const left = await until('no staged image archive left', 120_000, async () => {
      const counts = await Promise.all(
        [1, 2, 3].map((i) => ssh(`${NAME}${i}`, 'ls /var/lib/kcluster/images 2>/dev/null | wc -l; pgrep -c -x kcluster-relay || true')),
      );
      return counts.every((c) =>
        c
          .trim()
          .split(/\s+/)
          .every((n) => n === '0'),
      )
        ? counts
        : undefined;
    });
    expect(left).toHaveLength(3);
  });

  it('a second apply changes nothing, and says so', async () => {
    const started = Date.now();
    const again = await kcluster(['apply', '-i', inventory, '--output', 'json']);
    timings['secondApplySeconds'] = (Date.now() - started) / 1000;
    expect(again.code, again.stderr).toBe(0);
    const recap = recapOf(again.stdout);
    expect(
      recap.map((h) => [h.host, h.changed, h.failed]),
      changesIn(again.stdout),
    ).toEqual([`${NAME}1`, `${NAME}2`, `${NAME}3`].map((h) => [h, 0, 0]));
    for (const h of recap) timings[`roundTrips:${h.host}`] = h.roundTrips;
  });

  it('takes scheduled etcd snapshots: the timer runs on the control plane; a run is listed with a sane size and fetched with its sha256 checked', async () => {
    const cp = `${NAME}1`;
    expect(
      (await ssh(cp, 'systemctl is-active kcluster-etcd-snapshot.timer; systemctl is-enabled kcluster-etcd-snapshot.timer')).split('\n').filter(Boolean),
    ).toEqual(['active', 'enabled']);
    await ssh(cp, 'systemctl start kcluster-etcd-snapshot.service');
    const list = await kcluster(['etcd', 'snapshot', 'list', '-i', inventory, '-o', 'json']);
    expect(list.code, list.stderr).toBe(0);
    const hosts = (
      JSON.parse(list.stdout) as { hosts: { host: string; status: string; snapshots: { name: string; kind: string; bytes: number; ageSeconds: number }[] }[] }
    ).hosts;
    expect(hosts.map((h) => [h.host, h.status])).toEqual([[cp, 'ok']]);
    const newest = hosts[0]!.snapshots.find((s) => s.kind === 'scheduled');
    expect(newest?.name).toMatch(new RegExp(`^etcd-scheduled-${cp}-\\d{4}-\\d\\d-\\d\\dT\\d\\d-\\d\\d-\\d\\dZ\\.db$`));
    expect(newest!.bytes).toBeGreaterThan(100_000);
    expect(newest!.bytes).toBeLessThan(512 * 1024 * 1024);
    expect(newest!.ageSeconds).toBeLessThan(300);
    const remote = `/var/lib/kcluster/backups/scheduled/${newest!.name}`;
    expect(await ssh(cp, `stat -c %a /var/lib/kcluster/backups/scheduled ${remote}`)).toBe('700\n600\n');
    const file = join(work, newest!.name);
    const fetched = await kcluster(['etcd', 'snapshot', 'fetch', '-i', inventory, '--from', cp, newest!.name, '--file', file]);
    expect(fetched.code, fetched.stderr).toBe(0);
    expect(fetched.stdout.trim()).toBe(file);
    const local = createHash('sha256').update(readFileSync(file)).digest('hex');
    expect((await ssh(cp, `sha256sum < ${remote}`)).split(/\s+/)[0]).toBe(local);
    expect(fetched.stderr).toContain(`sha256 ${local}`);
  });

  it('shows drift with --check --diff, refuses a plan file made stale by a hand edit, and carries out a reviewed one that repairs it, restarting only what depends on it', async () => {
    const worker = `${NAME}3`;
    await ssh(worker, "sed -i 's/^clusterDomain: .*/clusterDomain: drifted.example/' /var/lib/kubelet/config.yaml");
    const before = (await ssh(worker, 'systemctl show -p ActiveEnterTimestampMonotonic --value kubelet')).trim();
    const apiserverBefore = (await ssh(`${NAME}1`, 'crictl ps --name kube-apiserver -q')).trim();
    // The repair is reviewed as a plan file, and that plan is what apply carries out.
    const planFile = join(work, 'drift-plan.json');
    const check = await kcluster(['apply', '-i', inventory, '--check', '--diff', '--plan-out', planFile]);
    expect(check.code, check.stderr).toBe(3);
    expect(check.stdout).toContain('-clusterDomain: drifted.example');
    expect(check.stdout).toContain('+clusterDomain: cluster.local');
    const shown = await kcluster(['plan', 'show', planFile]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain('+clusterDomain: cluster.local');
    // A hand edit after the review makes the plan stale: refused, exit 2, nothing changed.
    await ssh(worker, "sed -i 's/^clusterDomain: .*/clusterDomain: drifted-again.example/' /var/lib/kubelet/config.yaml");
    const stale = await kcluster(['apply', '-i', inventory, '--plan', planFile]);
    expect(stale.code, stale.stderr).toBe(2);
    expect(stale.stderr).toContain('is stale, nothing was changed');
    expect(stale.stderr).toMatch(new RegExp(`${worker}: [^\\n]*/var/lib/kubelet/config\\.yaml[^\\n]* changed since the plan`));
    expect(await ssh(worker, 'grep ^clusterDomain: /var/lib/kubelet/config.yaml')).toContain('drifted-again.example');
    expect((await kcluster(['apply', '-i', inventory, '--check', '--plan-out', planFile])).code).toBe(3);
    const fix = await kcluster(['apply', '-i', inventory, '--plan', planFile, '--output', 'json']);
    expect(fix.code, fix.stderr).toBe(0);
    expect(fix.stderr).toContain('matches every host');
    const recap = recapOf(fix.stdout);
    expect(recap.find((h) => h.host === worker)?.changed).toBe(1);
    expect(recap.filter((h) => h.host !== worker).map((h) => h.changed)).toEqual([0, 0]);
    const handlers = parseEvents(fix.stdout).filter((e) => e['type'] === 'handler-result');
    expect(handlers.map((e) => [e['host'], e['handler']])).toEqual([[worker, 'restart kubelet']]);
    expect((await ssh(worker, 'systemctl show -p ActiveEnterTimestampMonotonic --value kubelet')).trim()).not.toBe(before);
    expect((await ssh(`${NAME}1`, 'crictl ps --name kube-apiserver -q')).trim()).toBe(apiserverBefore);
  });

  it('certs renew refuses a control plane that is no etcd member yet (apply adds it), and changes nothing', async () => {
    const doc = parse(readFileSync(inventory, 'utf8')) as { hosts: { name: string; address: string; roles: string[] }[] };
    doc.hosts.push({ name: `${NAME}9`, address: '10.231.4.99', roles: ['control-plane'] });
    const grown = join(labDir, 'inventory-new-control-plane.yaml');
    writeFileSync(grown, stringify(doc));
    const pki = join(labDir, 'state', 'pki');
    const before = pkiDigest(pki);
    const refused = await kcluster(['certs', 'renew', '-i', grown, '--yes']);
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr).toContain(`${NAME}9 is a control plane in the inventory, but the running cluster's etcd members are ${NAME}1`);
    expect(refused.stderr).toContain(`this command does not add control planes. Nothing was changed. Run kcluster apply -i ${grown} first`);
    expect(pkiDigest(pki)).toEqual(before);
  });

  it('refuses a kubelet certificate signed by an unrelated CA', async () => {
    const d = mkdtempSync(join(work, 'forged-'));
    const o = (...args: string[]) => run('openssl', args, { cwd: d });
    await o('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '2', '-subj', '/CN=not-the-cluster-ca');
    await o('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'node.key', '-out', 'node.csr', '-subj', `/O=system:nodes/CN=system:node:${NAME}2`);
    await o('x509', '-req', '-in', 'node.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'node.crt', '-days', '1');
    const forged = writeKubeconfigAs(kubeconfig, join(d, 'forged.conf'), { clientCertificate: join(d, 'node.crt'), clientKey: join(d, 'node.key') });
    const attempt = await run(kubectlPath(), ['--kubeconfig', forged, '--request-timeout=20s', 'get', 'node', `${NAME}2`]).then(
      () => 'allowed',
      (e: { stderr?: string }) => e.stderr ?? '',
    );
    expect(attempt).toMatch(/Unauthorized|must be logged in/);
  });

  // Last, on the cluster every step above changed and converged again. Four specs at a time: most
  // of a spec's time is spent waiting for pods, not on this machine's two cores (measured in
  // test/conformance/results).
  it("passes the Conformance selection (test/conformance/selection.txt), built and run by the project's own tooling", async () => {
    const selection = readFileSync(join(import.meta.dirname, '..', 'conformance', 'selection.txt'), 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== '' && !l.trim().startsWith('#'));
    const result = await conformanceSelection(inventory, join(work, 'conformance'), 4);
    timings['conformanceSeconds'] = result.seconds;
    console.log(result.line);
    expect(result.failures, result.logTail).toEqual([]);
    expect([result.failed, result.passed + result.skipped], result.line).toEqual([0, selection.length]);
    expect(result.passed).toBeGreaterThanOrEqual(80);
  }, 2_400_000);
});
