// End to end, a dual-stack cluster (issue 43): a lab with IPv6 (`lab up --ipv6`: the bridge and
// every host get a unique-local address, the inventory has an IPv6 range in podCIDR and
// serviceCIDR and each host's ipv6Address), 1 control plane + 2 workers from the bundle.
// Checked: every Node has an InternalIP and a pod range of each family; a pod gets an address of
// each; a pod reaches a pod on another node over IPv6; a RequireDualStack Service answers on
// both its cluster IPs from a pod and on the NodePort of each node's IPv6 address from this
// machine; a NetworkPolicy blocks and then allows a client over IPv6; upstream's
// [Feature:IPv6DualStack] specs pass (SCTP's excepted); a second apply changes nothing.
// kube-proxy runs in its default iptables mode, or in nftables mode with
// KCLUSTER_E2E_PROXY_MODE=nftables (flannel follows it).
// Results: test/e2e/results/*-dual-stack.md.
// Not in npm test (CI's budget): `npm run test:extended` runs it (test/run-extended.sh).
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kcluster } from '../integration/support/test-lab.js';
import { conformanceSelection } from './support/conformance.js';
import { answersHello, bundleDir, bundleEntries, convergedAgain, kubectlBinary, sshTo, until, wgetInPod } from './support/e2e-support.js';

const extended = process.env['KCLUSTER_E2E_EXTENDED'] === '1';
/** kube-proxy's (and flannel's) packet filter: iptables, kcluster's default, or nftables (KCLUSTER_E2E_PROXY_MODE=nftables). */
const PROXY_MODE = process.env['KCLUSTER_E2E_PROXY_MODE'] ?? 'iptables';
// A misspelt mode must not run the other one silently.
if (PROXY_MODE !== 'iptables' && PROXY_MODE !== 'nftables') throw new Error(`KCLUSTER_E2E_PROXY_MODE must be iptables or nftables (got "${PROXY_MODE}")`);
const run = promisify(execFile);
const NAME = 'kceds';
const NET = '10.231.30';
const NET6 = 'fd00:231:30::';
const HOSTS = [1, 2, 3].map((i) => `${NAME}${i}`);
const labDir = join(homedir(), '.kcluster', 'labs', NAME);
const inventory = join(labDir, 'inventory.yaml');
const work = mkdtempSync(join(tmpdir(), 'kc-dual-stack-'));
const kubeconfig = join(work, 'admin.conf');
const ssh = sshTo(labDir);
const kubectl = (...args: string[]) => run(kubectlBinary(), ['--kubeconfig', kubeconfig, '--request-timeout=20s', ...args]).then((r) => r.stdout);
const json = async <T>(...args: string[]): Promise<T> => JSON.parse(await kubectl(...args, '-o', 'json')) as T;
const figures: Record<string, number | string> = {};

/** A web Deployment on both workers behind a RequireDualStack NodePort Service, and a client pod on the first worker. */
const workloads = (image: string) => `
apiVersion: apps/v1
kind: Deployment
metadata: { name: web }
spec:
  replicas: 2
  selector: { matchLabels: { app: web } }
  template:
    metadata: { labels: { app: web } }
    spec:
      affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: web } }, topologyKey: kubernetes.io/hostname }] } }
      tolerations: [{ operator: Exists }]
      containers:
        - name: web
          image: ${image}
          imagePullPolicy: Never
          command: [/bin/busybox, sh, -c, "mkdir -p /www && echo hello > /www/index.html && exec /bin/busybox httpd -f -p 8080 -h /www"]
          readinessProbe: { tcpSocket: { port: 8080 }, periodSeconds: 1 }
---
apiVersion: v1
kind: Service
metadata: { name: web }
spec:
  type: NodePort
  ipFamilyPolicy: RequireDualStack
  selector: { app: web }
  ports: [{ port: 80, targetPort: 8080, nodePort: 30081 }]
---
apiVersion: v1
kind: Pod
metadata: { name: client, labels: { role: client } }
spec:
  nodeName: ${NAME}2
  containers:
    - { name: client, image: ${image}, imagePullPolicy: Never, command: [/bin/busybox, sleep, "3600"] }
`;

const DENY_WEB = `
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: { name: web-deny }
spec: { podSelector: { matchLabels: { app: web } }, policyTypes: [Ingress] }
`;
const ALLOW_CLIENT = `
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: { name: web-allow-client }
spec:
  podSelector: { matchLabels: { app: web } }
  policyTypes: [Ingress]
  ingress: [{ from: [{ podSelector: { matchLabels: { role: client } } }], ports: [{ port: 8080 }] }]
`;

/** What the client pod gets from `url` (empty when the request failed). */
const fromClient = (url: string): Promise<string> =>
  kubectl('exec', 'client', '--', ...wgetInPod(url)).then(
    (out) => out.trim(),
    () => '',
  );

interface NodeObject {
  metadata: { name: string };
  spec: { podCIDRs?: string[] };
  status: { addresses: { type: string; address: string }[] };
}
interface PodObject {
  metadata: { name: string };
  spec: { nodeName: string };
  status: { podIPs?: { ip: string }[] };
}

beforeAll(async () => {
  if (!extended) return;
  bundleDir();
  await kcluster(['lab', 'down', '--name', NAME]);
  const up = await kcluster(['lab', 'up', '--name', NAME, '--hosts', '3', '--privileged', '--ipv6', '--subnet', `${NET}.0/24`, '--bundle', bundleDir()]);
  if (up.code !== 0) throw new Error(`lab up failed: ${up.stderr}`);
  if (PROXY_MODE === 'nftables')
    writeFileSync(inventory, readFileSync(inventory, 'utf8').replace(/^cluster:\n/m, 'cluster:\n  kubeProxy: { mode: nftables }\n'));
});
afterAll(async () => {
  if (extended) console.log(`dual-stack e2e figures (kube-proxy ${PROXY_MODE} mode): ${JSON.stringify(figures)}`);
  if (extended && !process.env['KCLUSTER_KEEP_E2E_LAB']) await kcluster(['lab', 'down', '--name', NAME]);
});

describe.runIf(extended)('a dual-stack cluster', () => {
  it('installs: every Node has an InternalIP and a pod range of each family, IPv4 first', async () => {
    expect(readFileSync(inventory, 'utf8')).toContain('fd00:10:244::/56');
    const started = Date.now();
    const apply = await kcluster(['apply', '-i', inventory]);
    expect(apply.code, apply.stderr + apply.stdout.slice(-3000)).toBe(0);
    figures['installSeconds'] = (Date.now() - started) / 1000;
    expect((await kcluster(['kubeconfig', '-i', inventory, '--file', kubeconfig])).code).toBe(0);
    const nodes = (await json<{ items: NodeObject[] }>('get', 'nodes')).items;
    expect(nodes.map((n) => n.metadata.name).sort()).toEqual(HOSTS);
    for (const [i, node] of nodes.sort((a, b) => a.metadata.name.localeCompare(b.metadata.name)).entries()) {
      const internal = node.status.addresses.filter((a) => a.type === 'InternalIP').map((a) => a.address);
      expect(internal).toEqual([`${NET}.${11 + i}`, `${NET6}${11 + i}`]);
      expect(node.spec.podCIDRs).toHaveLength(2);
      expect(node.spec.podCIDRs![0]).toMatch(/^10\.244\.\d+\.0\/24$/);
      expect(node.spec.podCIDRs![1]).toMatch(/^fd00:10:244:([0-9a-f]{1,4}:)?:\/64$/);
    }
  });

  it('pods get both families; a pod reaches a pod on another node over IPv6; the Service answers on both cluster IPs, both are in DNS, and its NodePort answers on both addresses of every node', async () => {
    const busybox = bundleEntries().find((a) => a.name === 'busybox')!;
    for (const host of HOSTS) await ssh(host, 'ctr -n k8s.io images import -', readFileSync(join(bundleDir(), busybox.path)));
    writeFileSync(join(work, 'workloads.yaml'), workloads(busybox.reference!));
    await kubectl('apply', '-f', join(work, 'workloads.yaml'));
    await kubectl('rollout', 'status', 'deployment/web', '--timeout=180s');
    await kubectl('wait', 'pod/client', '--for=condition=Ready', '--timeout=120s');
    const pods = (await json<{ items: PodObject[] }>('get', 'pods', '-l', 'app=web')).items;
    for (const pod of pods) {
      const ips = (pod.status.podIPs ?? []).map((p) => p.ip);
      expect(ips, pod.metadata.name).toHaveLength(2);
      expect(ips[0]).toMatch(/^10\.244\./);
      expect(ips[1]).toMatch(/^fd00:10:244:/);
    }
    const remote = pods.find((p) => p.spec.nodeName !== `${NAME}2`)!;
    const remoteIpv6 = remote.status.podIPs![1]!.ip;
    expect(
      await until(
        `the client reaches ${remote.metadata.name} at [${remoteIpv6}]`,
        60_000,
        async () => (await fromClient(`http://[${remoteIpv6}]:8080/`)) || undefined,
      ),
    ).toBe('hello');
    const service = await json<{ spec: { clusterIPs: string[]; ipFamilies: string[] } }>('get', 'service', 'web');
    expect(service.spec.ipFamilies).toEqual(['IPv4', 'IPv6']);
    const [clusterIp4, clusterIp6] = service.spec.clusterIPs;
    expect(clusterIp4).toMatch(/^10\.(9[6-9]|10[0-9]|11[01])\./);
    expect(clusterIp6).toMatch(/^fd00:10:96::/);
    for (const address of [clusterIp4!, `[${clusterIp6!}]`])
      expect(await until(`the Service at ${address} from the client`, 60_000, async () => (await fromClient(`http://${address}/`)) || undefined)).toBe('hello');
    for (const i of [1, 2, 3]) {
      await until(`the NodePort on [${NET6}${10 + i}]`, 120_000, () => answersHello(`http://[${NET6}${10 + i}]:30081/`));
      await until(`the NodePort on ${NET}.${10 + i}`, 120_000, () => answersHello(`http://${NET}.${10 + i}:30081/`));
    }
    // CoreDNS (its Service is IPv4) answers for the Service's IPv6 address too.
    const lookup = await until('both cluster IPs in DNS from the client', 60_000, async () => {
      const out = await kubectl('exec', 'client', '--', '/bin/busybox', 'nslookup', '-type=AAAA', 'web.default.svc.cluster.local').catch(() => '');
      return out.includes(clusterIp6!) ? out : undefined;
    });
    expect(lookup).toContain(clusterIp6!);
    const lookup4 = await kubectl('exec', 'client', '--', '/bin/busybox', 'nslookup', '-type=A', 'web.default.svc.cluster.local');
    expect(lookup4).toContain(clusterIp4!);
    figures['serviceClusterIps'] = service.spec.clusterIPs.join(',');
  });

  it('a NetworkPolicy blocks the client over IPv6, and another lets it through again', async () => {
    const pods = (await json<{ items: PodObject[] }>('get', 'pods', '-l', 'app=web')).items;
    const target = `http://[${pods[0]!.status.podIPs![1]!.ip}]:8080/`;
    writeFileSync(join(work, 'deny.yaml'), DENY_WEB);
    await kubectl('apply', '-f', join(work, 'deny.yaml'));
    // The agent applies a policy within a second or two; blocked means three misses in a row.
    let misses = 0;
    await until('the client blocked over IPv6', 60_000, async () => ((misses = (await fromClient(target)) === '' ? misses + 1 : 0) >= 3 ? true : undefined));
    writeFileSync(join(work, 'allow.yaml'), ALLOW_CLIENT);
    await kubectl('apply', '-f', join(work, 'allow.yaml'));
    expect(await until('the client allowed again over IPv6', 60_000, async () => (await fromClient(target)) || undefined)).toBe('hello');
    await kubectl('delete', '-f', join(work, 'deny.yaml'), '-f', join(work, 'allow.yaml'));
  });

  it("passes upstream's [Feature:IPv6DualStack] specs (SCTP's excepted)", async () => {
    const result = await conformanceSelection(inventory, join(work, 'conformance'), 2, {
      focus: '\\[Feature:IPv6DualStack\\]',
      skip: '\\[Serial\\]|\\[Disruptive\\]|SCTP|sctp',
      numNodes: 3,
    });
    console.log(result.line);
    figures['dualStackSpecs'] = result.line;
    expect(result.failures, result.logTail).toEqual([]);
    expect(result.failed).toBe(0);
    // 23 specs less SCTP's, which the --skip above leaves out (counted as not selected); a
    // skipped one would say the cluster lacks something ("Requires at least 2 nodes", say).
    expect(result.passed).toBe(22);
    expect(result.skipped).toBe(0);
  }, 3_600_000);

  it.runIf(PROXY_MODE === 'nftables')("in nftables mode, kube-proxy's and flannel's IPv6 tables are on every host", async () => {
    // Read with the nft of the node's kube-proxy container (host network; lab hosts have no nft).
    const listTables = `c=$(crictl ps -q --state running --name '^kube-proxy$' | head -n 1); [ -n "$c" ] && crictl exec "$c" nft list tables`;
    for (const host of HOSTS) {
      const tables = (await ssh(host, listTables)).split('\n').map((l) => l.replace(/^table /, '').trim());
      expect(tables, host).toEqual(expect.arrayContaining(['ip kube-proxy', 'ip6 kube-proxy', 'ip flannel-ipv4', 'ip6 flannel-ipv6']));
    }
  });

  it('a second apply changes nothing', async () => {
    await convergedAgain(inventory, 3);
  });
});
