// End to end, the control plane's life on a running cluster, under traffic: a cluster of one
// control plane and one worker grows to three control planes by `apply` with two more hosts in
// the inventory (an etcd snapshot first, each etcd member added as a learner and promoted, one at a time, its API
// server up before the first control plane restarts for its new certificate); shrinks to two
// by remove-node (refused first: an even member count needs --allow-even), is re-added by the
// apply right after (the API still showing its etcd pod), removed again and grows back; then
// the FIRST control plane's host is destroyed for good, removed with remove-node --unreachable
// through another control plane, and replaced by a new host. Throughout, a 2-replica
// Deployment behind a NodePort is polled from the controller and every API server address is
// polled too: no failed request, some API server answering at every sample, every node Ready,
// and a second apply changes nothing.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kcluster } from '../integration/support/test-lab.js';
import type { HostSettings } from '../../src/orchestrator/inventory/model.js';
import { sshPortAnswers } from '../../src/orchestrator/ssh/first-answering.js';
import {
  apiServersPoller,
  bundleDir,
  bundleEntries,
  convergedAgain,
  kubectlBinary,
  labInventoryWith,
  poller,
  sshTo,
  until,
  webDeploymentBehindNodePort,
} from './support/e2e-support.js';

const run = promisify(execFile);
const NAME = 'kcecp';
const NET = '10.231.12';
const labDir = join(homedir(), '.kcluster', 'labs', NAME);
const work = mkdtempSync(join(tmpdir(), 'kc-cp-'));
const kubeconfig = join(work, 'admin.conf');
const ssh = sshTo(labDir);
const host = (i: number): string => `${NAME}${i}`;
const address = (i: number): string => `${NET}.${10 + i}`;

const kubectl = (...args: string[]) => run(kubectlBinary(), ['--kubeconfig', kubeconfig, '--request-timeout=20s', ...args]).then((r) => r.stdout);

/** The lab's inventory with only these hosts, each with its roles: the cluster as it is at that step. */
const inventoryWith = (file: string, hosts: Record<number, string[]>): string => labInventoryWith(labDir, NAME, file, hosts);

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

/** namespace/name of the pods bound to a node, read through the API server of the third host (alive throughout). */
async function podsBoundTo(node: string): Promise<string[]> {
  const out = await ssh(
    host(3),
    `/usr/local/bin/kubectl --kubeconfig=/etc/kubernetes/admin.conf --request-timeout=20s get pods --all-namespaces --field-selector spec.nodeName=${node} -o json`,
  );
  const pods = JSON.parse(out) as { items: { metadata: { namespace: string; name: string } }[] };
  return pods.items.map((p) => `${p.metadata.namespace}/${p.metadata.name}`).sort();
}

async function nodesReady(): Promise<Record<string, string>> {
  const nodes = JSON.parse(await kubectl('get', 'nodes', '-o', 'json')) as {
    items: { metadata: { name: string; labels: Record<string, string> }; status: { conditions: { type: string; status: string }[] } }[];
  };
  return Object.fromEntries(
    nodes.items.map((n) => [
      n.metadata.name,
      `${n.status.conditions.some((c) => c.type === 'Ready' && c.status === 'True') ? 'Ready' : 'NotReady'}${'node-role.kubernetes.io/control-plane' in n.metadata.labels ? ' control-plane' : ''}`,
    ]),
  );
}

beforeAll(async () => {
  bundleDir();
  await kcluster(['lab', 'down', '--name', NAME]);
  const up = await kcluster(['lab', 'up', '--name', NAME, '--hosts', '5', '--privileged', '--subnet', `${NET}.0/24`, '--bundle', bundleDir()]);
  if (up.code !== 0) throw new Error(`lab up failed: ${up.stderr}`);
});
afterAll(async () => {
  if (!process.env['KCLUSTER_KEEP_E2E_LAB']) await kcluster(['lab', 'down', '--name', NAME]);
});

/** Under the Service and API pollers: the run, its seconds, and what the pollers saw. */
async function underTraffic(what: string, apiHosts: number[], action: () => Promise<{ code: number; stdout: string; stderr: string }>) {
  const service = poller(`http://${address(2)}:30080/`);
  const apis = apiServersPoller(labDir, apiHosts.map(address));
  const started = Date.now();
  const result = await action();
  const seconds = (Date.now() - started) / 1000;
  await new Promise((r) => setTimeout(r, 3000));
  await service.stop();
  await apis.stop();
  console.log(
    `${what}: ${seconds.toFixed(0)} s; service ${service.counts.ok} answers, ${service.counts.failed} failures ${JSON.stringify(service.counts.failures.slice(0, 5))}; API samples ${apis.answers.samples}, none answering ${apis.answers.noneAnswered}`,
  );
  expect(result.code, result.stderr + result.stdout.slice(-3000)).toBe(0);
  expect(service.counts.ok).toBeGreaterThan(20);
  expect(service.counts.failed).toBe(0);
  expect(apis.answers.noneAnswered).toBe(0);
  return result;
}

describe('the control plane grows, shrinks and is replaced on a running cluster, under traffic', () => {
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
    expect(plan.stdout).toMatch(
      new RegExp(`save an etcd snapshot to ${join(labDir, 'state', 'backups')}/etcd-[^ ]+\\.db \\(verified\\) before ${host(3)}, ${host(4)} join`),
    );
    const backupsBefore = existsSync(join(labDir, 'state', 'backups'))
      ? readdirSync(join(labDir, 'state', 'backups')).filter((f) => f.endsWith('.db')).length
      : 0;
    expect(await etcdMembers(1)).toEqual([`${host(1)} started voting`]);

    await underTraffic('grow 1 -> 3 control planes', [1, 3, 4], () => kcluster(['apply', '-i', three, '--output', 'json']));
    expect(await etcdMembers(1)).toEqual([1, 3, 4].map((i) => `${host(i)} started voting`));
    expect(readdirSync(join(labDir, 'state', 'backups')).filter((f) => f.endsWith('.db')).length).toBe(backupsBefore + 1);
    expect(await nodesReady()).toEqual({
      [host(1)]: 'Ready control-plane',
      [host(2)]: 'Ready',
      [host(3)]: 'Ready control-plane',
      [host(4)]: 'Ready control-plane',
    });
    // Every node reaches the API servers through its local proxy now (no load balancer).
    for (const i of [1, 2, 3, 4]) expect(await ssh(host(i), 'grep server: /etc/kubernetes/kubelet.conf')).toContain('https://127.0.0.1:6444');

    await convergedAgain(three, 4);
  });

  it('shrinks to two control planes (an even count only with --allow-even) and grows back to three', async () => {
    const three = join(labDir, 'inventory-3cp.yaml');
    const refused = await kcluster(['remove-node', '-i', three, host(4), '--yes']);
    expect(refused.code, refused.stderr).toBe(4);
    expect(refused.stdout + refused.stderr).toContain(`remove-node ${host(4)} refused: etcd would be left with 2 members, an even number`);
    expect(await etcdMembers(1)).toEqual([1, 3, 4].map((i) => `${host(i)} started voting`));

    await underTraffic('remove-node of a control plane (3 -> 2)', [1, 3], () => kcluster(['remove-node', '-i', three, host(4), '--yes', '--allow-even']));
    expect(await etcdMembers(1)).toEqual([1, 3].map((i) => `${host(i)} started voting`));
    // Re-added at once, the host still listed (issue 40): the API may still show its etcd pod,
    // but etcd's own member list decides, so it joins as a new member in this one apply.
    const readded = await underTraffic('apply right after remove-node, the host still listed', [1, 3, 4], () =>
      kcluster(['apply', '-i', three, '--output', 'json']),
    );
    expect(readded.stdout).toContain('"play":"control planes joining"');
    expect(await etcdMembers(1)).toEqual([1, 3, 4].map((i) => `${host(i)} started voting`));
    await underTraffic('remove-node of the re-added control plane', [1, 3], () => kcluster(['remove-node', '-i', three, host(4), '--yes', '--allow-even']));
    expect(await etcdMembers(1)).toEqual([1, 3].map((i) => `${host(i)} started voting`));
    const two = inventoryWith('inventory-2cp.yaml', { 1: ['control-plane'], 2: ['worker'], 3: ['control-plane'] });
    await underTraffic('apply without the removed control plane', [1, 3], () => kcluster(['apply', '-i', two, '--output', 'json']));
    expect(await ssh(host(2), 'systemctl cat kcluster-apiproxy')).not.toContain(`${address(4)}:6443`);

    await underTraffic('grow 2 -> 3 with the reset host', [1, 3, 4], () => kcluster(['apply', '-i', three, '--output', 'json']));
    expect(await etcdMembers(1)).toEqual([1, 3, 4].map((i) => `${host(i)} started voting`));
    // Its Node was deleted by remove-node: the kubelet registers it again and it turns Ready once its pod network runs.
    const all = { [host(1)]: 'Ready control-plane', [host(2)]: 'Ready', [host(3)]: 'Ready control-plane', [host(4)]: 'Ready control-plane' };
    await until('every node Ready', 120_000, async () => (JSON.stringify(await nodesReady()) === JSON.stringify(all) ? true : undefined));
  });

  it('replaces the first control plane after its host is destroyed: removed through another, a new host joins', async () => {
    const three = join(labDir, 'inventory-3cp.yaml');
    const service = poller(`http://${address(2)}:30080/`);
    const apis = apiServersPoller(labDir, [1, 3, 4, 5].map(address));
    const podsBefore = await podsBoundTo(host(1));
    expect(podsBefore).toContain(`kube-system/kube-apiserver-${host(1)}`);
    // Gone for good: every process of the host killed at once, its network with it.
    await run('sh', ['-c', `echo 1 > /sys/fs/cgroup/unified/kcluster-lab/${host(1)}/cgroup.kill`]);
    await until(`${host(1)} stops answering`, 30_000, async () =>
      (await sshPortAnswers({ ssh: { address: address(1), port: 22 } } as HostSettings, 1_000)) ? undefined : true,
    );

    const plan = await kcluster(['remove-node', '-i', three, host(1), '--unreachable', '--check']);
    expect(plan.code, plan.stderr).toBe(3);
    expect(plan.stderr).toContain(`remove-node works through ${host(3)}`);
    const removed = await kcluster(['remove-node', '-i', three, host(1), '--unreachable', '--yes']);
    expect(removed.code, removed.stderr + removed.stdout.slice(-2000)).toBe(0);
    expect(removed.stderr).toContain(`${host(1)}'s host was not reset (it did not answer)`);
    // The out-of-service taint and the force-deletions (issue 40): right after remove-node, no
    // pod is bound to the dead node any more (not even a static pod's mirror), and the run
    // named every pod it took off it.
    expect(await podsBoundTo(host(1))).toEqual([]);
    for (const pod of podsBefore) expect(removed.stdout, removed.stdout.slice(-3000)).toContain(pod);
    expect(await etcdMembers(3)).toEqual([3, 4].map((i) => `${host(i)} started voting`));

    const replaced = inventoryWith('inventory-replaced.yaml', { 3: ['control-plane'], 4: ['control-plane'], 2: ['worker'], 5: ['control-plane'] });
    expect((await kcluster(['kubeconfig', '-i', replaced, '--file', kubeconfig])).code).toBe(0);
    const join5 = await kcluster(['apply', '-i', replaced, '--output', 'json']);
    await new Promise((r) => setTimeout(r, 3000));
    await service.stop();
    await apis.stop();
    console.log(
      `replace the first control plane: service ${service.counts.ok} answers, ${service.counts.failed} failures ${JSON.stringify(service.counts.failures.slice(0, 5))}; API samples ${apis.answers.samples}, none answering ${apis.answers.noneAnswered}`,
    );
    expect(join5.code, join5.stderr + join5.stdout.slice(-3000)).toBe(0);
    expect(await etcdMembers(3)).toEqual([3, 4, 5].map((i) => `${host(i)} started voting`));
    const all = { [host(2)]: 'Ready', [host(3)]: 'Ready control-plane', [host(4)]: 'Ready control-plane', [host(5)]: 'Ready control-plane' };
    await until('every node Ready', 120_000, async () => (JSON.stringify(await nodesReady()) === JSON.stringify(all) ? true : undefined));
    expect(service.counts.failed).toBe(0);
    expect(apis.answers.noneAnswered).toBe(0);
    await convergedAgain(replaced, 4);
  });
});
