// End to end, the control plane's life on a running cluster, under traffic: a cluster of one
// control plane and one worker grows to three control planes by `apply` with two more hosts in
// the inventory (each etcd member added as a learner and promoted, one at a time, its API
// server up before the first control plane restarts for its new certificate), while a
// 2-replica Deployment behind a NodePort is polled from the controller and every API server
// address is polled too: no failed request, some API server answering at every sample, every
// node Ready, and a second apply changes nothing.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { kcluster } from '../integration/support/test-lab.js';
import { apiServersPoller, bundleDir, bundleEntries, changesIn, kubectlBinary, poller, recapOf, sshTo, until, webDeploymentBehindNodePort } from './support/e2e-support.js';

const run = promisify(execFile);
const NAME = 'kcecp';
const NET = '10.231.12';
const labDir = join(homedir(), '.kcluster', 'labs', NAME);
const labInventory = join(labDir, 'inventory.yaml');
const work = mkdtempSync(join(tmpdir(), 'kc-cp-'));
const kubeconfig = join(work, 'admin.conf');
const ssh = sshTo(labDir);
const host = (i: number): string => `${NAME}${i}`;
const address = (i: number): string => `${NET}.${10 + i}`;

const kubectl = (...args: string[]) => run(kubectlBinary(), ['--kubeconfig', kubeconfig, '--request-timeout=20s', ...args]).then((r) => r.stdout);

interface InventoryDoc {
  hosts: { name: string; address: string; roles: string[] }[];
}

/** The lab's inventory with only these hosts, each with its roles: the cluster as it is at that step. */
function inventoryWith(file: string, hosts: Record<number, string[]>): string {
  const doc = parse(readFileSync(labInventory, 'utf8')) as InventoryDoc;
  doc.hosts = Object.entries(hosts).map(([i, roles]) => ({ ...doc.hosts.find((h) => h.name === host(Number(i)))!, roles }));
  const path = join(labDir, file);
  writeFileSync(path, stringify(doc));
  return path;
}

async function etcdMembers(through: number): Promise<string[]> {
  const out = await ssh(
    host(through),
    '/usr/local/bin/etcdctl --endpoints=https://127.0.0.1:2379 --cacert=/etc/kubernetes/pki/etcd/ca.crt --cert=/etc/kubernetes/pki/etcd/healthcheck-client.crt --key=/etc/kubernetes/pki/etcd/healthcheck-client.key member list -w simple',
  );
  // "ID, STATUS, NAME, PEER ADDRS, CLIENT ADDRS, IS LEARNER" -> "NAME STATUS learner|voting"
  return out
    .trim()
    .split('\n')
    .map((line) => line.split(',').map((f) => f.trim()))
    .map((f) => `${f[2]} ${f[1]} ${f[5] === 'true' ? 'learner' : 'voting'}`)
    .sort();
}

async function nodesReady(): Promise<Record<string, string>> {
  const nodes = JSON.parse(await kubectl('get', 'nodes', '-o', 'json')) as { items: { metadata: { name: string; labels: Record<string, string> }; status: { conditions: { type: string; status: string }[] } }[] };
  return Object.fromEntries(
    nodes.items.map((n) => [n.metadata.name, `${n.status.conditions.some((c) => c.type === 'Ready' && c.status === 'True') ? 'Ready' : 'NotReady'}${'node-role.kubernetes.io/control-plane' in n.metadata.labels ? ' control-plane' : ''}`]),
  );
}

beforeAll(async () => {
  bundleDir();
  await kcluster(['lab', 'down', '--name', NAME]);
  const up = await kcluster(['lab', 'up', '--name', NAME, '--hosts', '4', '--privileged', '--subnet', `${NET}.0/24`, '--bundle', bundleDir()]);
  if (up.code !== 0) throw new Error(`lab up failed: ${up.stderr}`);
});
afterAll(async () => {
  if (!process.env['KCLUSTER_KEEP_E2E_LAB']) await kcluster(['lab', 'down', '--name', NAME]);
});

describe('the control plane grows on a running cluster, under traffic', () => {
  it('grows from one control plane to three: etcd learners promoted one at a time, no failed request, a second apply changes nothing', async () => {
    const one = inventoryWith('inventory-1cp.yaml', { 1: ['control-plane'], 2: ['worker'] });
    const install = await kcluster(['apply', '-i', one]);
    expect(install.code, install.stderr + install.stdout.slice(-3000)).toBe(0);
    expect((await kcluster(['kubeconfig', '-i', one, '--file', kubeconfig])).code).toBe(0);

    const busybox = bundleEntries().find((a) => a.name === 'busybox')!;
    await ssh(host(2), 'ctr -n k8s.io images import -', readFileSync(join(bundleDir(), busybox.path)));
    const app = join(work, 'app.yaml');
    writeFileSync(app, webDeploymentBehindNodePort(busybox.reference!));
    await kubectl('apply', '-f', app);
    await kubectl('rollout', 'status', 'deployment/web', '--timeout=180s');
    const warm = poller(`http://${address(2)}:30080/`);
    await until('the NodePort answers 10 times in a row', 120_000, async () => (warm.counts.streak >= 10 ? true : undefined));
    await warm.stop();

    const three = inventoryWith('inventory-3cp.yaml', { 1: ['control-plane'], 2: ['worker'], 3: ['control-plane'], 4: ['control-plane'] });
    const plan = await kcluster(['apply', '-i', three, '--check', '--diff']);
    expect(plan.code, plan.stderr).toBe(3); // changes pending
    for (const i of [3, 4]) expect(plan.stdout).toContain(`add ${host(i)} (https://${address(i)}:2380) to etcd as a learner`);
    expect(plan.stdout).toContain('control planes joining');
    expect(await etcdMembers(1)).toEqual([`${host(1)} started voting`]);

    const service = poller(`http://${address(2)}:30080/`);
    const apis = apiServersPoller(labDir, [1, 3, 4].map(address));
    const started = Date.now();
    const grow = await kcluster(['apply', '-i', three, '--output', 'json']);
    const seconds = (Date.now() - started) / 1000;
    await new Promise((r) => setTimeout(r, 3000));
    await service.stop();
    await apis.stop();
    console.log(`grow 1 -> 3 control planes: ${seconds.toFixed(0)} s; service ${service.counts.ok} answers, ${service.counts.failed} failures ${JSON.stringify(service.counts.failures.slice(0, 5))}; API samples ${apis.answers.samples}, none answering ${apis.answers.noneAnswered}`);
    expect(grow.code, grow.stderr + grow.stdout.slice(-3000)).toBe(0);
    expect(await etcdMembers(1)).toEqual([1, 3, 4].map((i) => `${host(i)} started voting`));
    expect(await nodesReady()).toEqual({ [host(1)]: 'Ready control-plane', [host(2)]: 'Ready', [host(3)]: 'Ready control-plane', [host(4)]: 'Ready control-plane' });
    expect(service.counts.ok).toBeGreaterThan(50);
    expect(service.counts.failed).toBe(0);
    expect(apis.answers.noneAnswered).toBe(0);
    // Every node reaches the API servers through its local proxy now (no load balancer).
    for (const i of [1, 2, 3, 4]) expect(await ssh(host(i), 'grep server: /etc/kubernetes/kubelet.conf')).toContain('https://127.0.0.1:6444');

    const again = await kcluster(['apply', '-i', three, '--output', 'json']);
    expect(again.code, again.stderr).toBe(0);
    expect(recapOf(again.stdout).map((h) => h.changed), changesIn(again.stdout)).toEqual([0, 0, 0, 0]);
  });
});
