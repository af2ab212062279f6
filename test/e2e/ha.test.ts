// End to end, HA without a load balancer: 3 control planes (stacked etcd) + 1 worker, every
// node reaching the API servers through kcluster-apiproxy. With the first control plane
// stopped (kubelet, containerd and every container on it), the cluster keeps answering: reads
// and writes through another control plane, and the worker stays Ready through its proxy.
// Before that, on the running cluster, an API server flag the API server refuses is undone on
// the first control plane (its last good manifest put back) with the others untouched; the
// flag fixed is rolled out by apply one control plane at a time; some API server answers
// throughout, and a second apply changes nothing.
import { execFile } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { apiClient } from '../../src/kubernetes/kube/api-client.js';
import { kcluster, parseEvents } from '../integration/support/test-lab.js';
import { bundleDir, kubectlBinary, recapOf, sshTo, until } from './support/e2e-support.js';

const run = promisify(execFile);
const NAME = 'kceha';
const labDir = join(homedir(), '.kcluster', 'labs', NAME);
const inventory = join(labDir, 'inventory.yaml');
const work = mkdtempSync(join(tmpdir(), 'kc-ha-'));

const kubectlPath = (): string => kubectlBinary();
const ssh = sshTo(labDir);

beforeAll(async () => {
  bundleDir();
  await kcluster(['lab', 'down', '--name', NAME]);
  const up = await kcluster(['lab', 'up', '--name', NAME, '--hosts', '4', '--control-planes', '3', '--privileged', '--subnet', '10.231.6.0/24', '--bundle', bundleDir()]);
  if (up.code !== 0) throw new Error(`lab up failed: ${up.stderr}`);
});
afterAll(async () => {
  if (!process.env['KCLUSTER_KEEP_E2E_LAB']) await kcluster(['lab', 'down', '--name', NAME]);
});

describe('HA: 3 control planes without a load balancer, 1 worker', () => {
  it('installs, rolls a control-plane change one node at a time, and keeps answering with the first control plane stopped', async () => {
    const started = Date.now();
    const apply = await kcluster(['apply', '-i', inventory]);
    expect(apply.code, `${apply.stderr}\n${apply.stdout.slice(-3000)}`).toBe(0);
    const adminFile = join(work, 'admin.conf');
    expect((await kcluster(['kubeconfig', '-i', inventory, '-o', adminFile])).code).toBe(0);
    // The same credentials through the second control plane.
    const viaCp2 = join(work, 'cp2.conf');
    writeFileSync(viaCp2, readFileSync(adminFile, 'utf8').replace(/server: https:\/\/[^:]+:6443/, 'server: https://10.231.6.12:6443'));
    const kubectl = (config: string, ...args: string[]) => run(kubectlPath(), ['--kubeconfig', config, '--request-timeout=15s', ...args]).then((r) => r.stdout);
    const readyNodes = async (config: string): Promise<string[]> => {
      const nodes = JSON.parse(await kubectl(config, 'get', 'nodes', '-o', 'json')) as { items: { metadata: { name: string }; status: { conditions: { type: string; status: string }[] } }[] };
      return nodes.items.filter((n) => n.status.conditions.some((c) => c.type === 'Ready' && c.status === 'True')).map((n) => n.metadata.name).sort();
    };
    await until('4 nodes Ready', 240_000, async () => ((await readyNodes(adminFile)).length === 4 ? true : undefined));
    console.log(`ha: empty hosts to 4 nodes Ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    expect((await ssh(`${NAME}4`, 'systemctl is-active kcluster-apiproxy')).trim()).toBe('active');
    expect(await ssh(`${NAME}4`, 'grep server: /etc/kubernetes/kubelet.conf')).toContain('https://127.0.0.1:6444');

    // The operator's API server flags on a running cluster, under polling of every API server.
    const cps = [1, 2, 3].map((i) => `${NAME}${i}`);
    const answers = { samples: 0, noneAnswered: 0, someDown: 0 };
    let polling = true;
    const poller = (async () => {
      const pki = join(homedir(), '.kcluster', NAME, 'pki');
      const credentials = { caCert: readFileSync(join(pki, 'ca.crt'), 'utf8'), clientCert: readFileSync(join(pki, 'admin.crt'), 'utf8'), clientKey: readFileSync(join(pki, 'admin.key'), 'utf8') };
      const apis = [11, 12, 13].map((i) => apiClient({ server: `https://10.231.6.${i}:6443`, ...credentials }, 2_000));
      while (polling) {
        const results = await Promise.allSettled(apis.map((api) => api.get('/version')));
        const up = results.filter((r) => r.status === 'fulfilled').length;
        answers.samples++;
        if (up === 0) answers.noneAnswered++;
        if (up < 3) answers.someDown++;
        await new Promise((r) => setTimeout(r, 250));
      }
    })();
    const original = parse(readFileSync(inventory, 'utf8')) as { cluster: Record<string, unknown>; vars?: Record<string, unknown> };
    const withApiServerArgs = (extraArgs: Record<string, string>, certSANs: string[] = []) =>
      writeFileSync(inventory, stringify({ ...original, cluster: { ...original.cluster, apiServer: { extraArgs, certSANs } }, vars: { ...original.vars, readyTimeoutSeconds: 60 } }));
    const manifestSums = async () => Promise.all(cps.map(async (h) => (await ssh(h, 'sha256sum /etc/kubernetes/manifests/kube-apiserver.yaml')).split(' ')[0]));
    const before = await manifestSums();

    // A flag the API server refuses: the first control plane does not come back, so its last
    // good manifest goes back, it comes back, and the run stops before the second one.
    withApiServerArgs({ 'event-ttl': '2h0m0s', 'no-such-flag': 'on' });
    const refused = await kcluster(['apply', '-i', inventory, '--output', 'json']);
    expect(refused.code, refused.stderr).toBe(4);
    const failure = parseEvents(refused.stdout).find((e) => e['type'] === 'task-result' && e['status'] === 'failed') as { host: string; task: string; error: string } | undefined;
    expect(failure?.host).toBe(`${NAME}1`);
    expect(failure?.task).toBe('API server ready, static pods current');
    expect(failure?.error).toContain('The change is undone on this host: the last good kube-apiserver.yaml (from /etc/kubernetes/manifests-last-good) is back and the control plane is ready again; no other control plane was touched.');
    expect(failure?.error).toContain('unknown flag: --no-such-flag');
    expect(await manifestSums()).toEqual(before);
    expect(parseEvents(refused.stdout).filter((e) => e['play'] === 'control plane' && e['type'] === 'host-start').map((e) => e['host'])).toEqual([`${NAME}1`]);

    // The flag fixed, and a name added to the API server's certificate: apply reissues it and
    // rolls both out one control plane at a time, each back before the next.
    withApiServerArgs({ 'event-ttl': '2h0m0s' }, ['api.kceha.example', '10.231.6.100']);
    const rolled = await kcluster(['apply', '-i', inventory, '--output', 'json']);
    polling = false;
    await poller;
    expect(rolled.code, rolled.stderr).toBe(0);
    // Per control plane: the certificate and its key, the manifest, and (usually) the wait for its new pod.
    expect(recapOf(rolled.stdout).map((h) => [h.host, h.changed >= 3 && h.changed <= 4 ? 'changed' : h.changed])).toEqual([...cps.map((h) => [h, 'changed']), [`${NAME}4`, 0]]);
    for (const h of cps) {
      const sans = new X509Certificate(await ssh(h, 'cat /etc/kubernetes/pki/apiserver.crt')).subjectAltName ?? '';
      expect(sans).toContain('DNS:api.kceha.example');
      expect(sans).toContain('IP Address:10.231.6.100');
    }
    const order = parseEvents(rolled.stdout).filter((e) => e['play'] === 'control plane' && (e['type'] === 'host-start' || e['type'] === 'host-end'));
    expect(order.map((e) => `${String(e['type'])} ${String(e['host'])}`)).toEqual(cps.flatMap((h) => [`host-start ${h}`, `host-end ${h}`]));
    for (const h of cps) expect(await ssh(h, 'ps -eo args | grep "^kube-apiserver "')).toContain(' --event-ttl=2h0m0s');
    console.log(`ha: a refused API server flag undone, then a flag rolled out: ${answers.samples} samples, ${answers.someDown} with a server down, ${answers.noneAnswered} with none answering`);
    expect(answers.someDown).toBeGreaterThan(0);
    expect(answers.noneAnswered).toBe(0);
    const again = await kcluster(['apply', '-i', inventory, '--output', 'json']);
    expect(again.code, again.stderr).toBe(0);
    expect(recapOf(again.stdout).map((h) => h.changed)).toEqual([0, 0, 0, 0]);

    // For one host: a kubelet setting (vars.kubeletConfig), a label and a taint on its Node.
    // Only that host's kubelet changes; the first control plane sets the label and the taint.
    const current = parse(readFileSync(inventory, 'utf8')) as { hosts: { name: string; vars?: Record<string, unknown> }[] };
    const worker = current.hosts.find((h) => h.name === `${NAME}4`)!;
    worker.vars = { ...worker.vars, kubeletConfig: { maxPods: 150 }, nodeLabels: { tier: 'gpu' }, nodeTaints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }] };
    writeFileSync(inventory, stringify(current));
    const tuned = await kcluster(['apply', '-i', inventory, '--output', 'json']);
    expect(tuned.code, tuned.stderr).toBe(0);
    expect(recapOf(tuned.stdout).map((h) => [h.host, h.changed > 0])).toEqual([[`${NAME}1`, true], [`${NAME}2`, false], [`${NAME}3`, false], [`${NAME}4`, true]]);
    expect(await ssh(`${NAME}4`, 'cat /var/lib/kubelet/config.yaml')).toMatch(/^# The operator's settings \(vars\.kubeletConfig\):\nmaxPods: 150$/m);
    await until('the worker reports 150 pods as its capacity', 120_000, async () => ((await kubectl(adminFile, 'get', 'node', `${NAME}4`, '-o', 'jsonpath={.status.capacity.pods}')).trim() === '150' ? true : undefined));
    type NodeView = { metadata: { labels: Record<string, string> }; spec: { taints?: { key: string; value?: string; effect: string }[] } };
    const node4 = async (): Promise<NodeView> => JSON.parse(await kubectl(adminFile, 'get', 'node', `${NAME}4`, '-o', 'json')) as NodeView;
    expect((await node4()).metadata.labels['tier']).toBe('gpu');
    expect((await node4()).spec.taints).toContainEqual({ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' });
    // Taken off again when they leave the inventory; a label somebody else set stays.
    await kubectl(adminFile, 'label', 'node', `${NAME}4`, 'team=a');
    worker.vars = { ...worker.vars, nodeLabels: {}, nodeTaints: [] };
    writeFileSync(inventory, stringify(current));
    const untouched = await kcluster(['apply', '-i', inventory, '--output', 'json']);
    expect(untouched.code, untouched.stderr).toBe(0);
    expect(recapOf(untouched.stdout).map((h) => [h.host, h.changed > 0])).toEqual([[`${NAME}1`, true], [`${NAME}2`, false], [`${NAME}3`, false], [`${NAME}4`, false]]);
    const after = await node4();
    expect(after.metadata.labels['tier']).toBeUndefined();
    expect(after.metadata.labels['team']).toBe('a');
    expect(after.spec.taints ?? []).not.toContainEqual(expect.objectContaining({ key: 'dedicated' }));

    await ssh(`${NAME}1`, 'systemctl stop kubelet; crictl stop $(crictl ps -q) >/dev/null 2>&1; systemctl stop containerd; pkill containerd-shim || true');
    await until('the first control plane is down', 60_000, async () => (await run('bash', ['-c', 'exec 3<>/dev/tcp/10.231.6.11/6443']).then(() => undefined, () => true)));
    // Writes need etcd quorum (2 of 3): they still work through the second control plane.
    await until('a write through cp2', 120_000, async () => ((await kubectl(viaCp2, 'create', 'configmap', 'ha-probe', '--from-literal=k=v')).includes('created') ? true : undefined));
    expect(await kubectl(viaCp2, 'get', 'configmap', 'ha-probe', '-o', 'jsonpath={.data.k}')).toBe('v');
    // The worker keeps renewing its lease through its proxy; give it well past a lease period.
    await new Promise((r) => setTimeout(r, 50_000));
    const ready = await readyNodes(viaCp2);
    expect(ready).toContain(`${NAME}4`);
    const lease = JSON.parse(await kubectl(viaCp2, 'get', 'lease', '-n', 'kube-node-lease', `${NAME}4`, '-o', 'json')) as { spec: { renewTime: string } };
    expect(Date.now() - Date.parse(lease.spec.renewTime)).toBeLessThan(30_000);
  });
});
