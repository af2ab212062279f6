// End to end, the API's virtual IP (cluster.apiEndpoint.virtualIp, issue 43): 3 control planes
// and 1 worker from the bundle, the API at 10.231.26.250, which keepalived holds on one control
// plane at a time. Every kubelet and the admin kubeconfig use that address. Under traffic (a
// 2-replica Deployment on the worker behind a NodePort, and the API asked through the address
// every 50 ms), the host holding it is destroyed: the unchanged admin kubeconfig answers again
// within 5 s, no Service request fails. The dead control plane is removed with remove-node
// --unreachable and replaced by a new host; the address stays, answering throughout, and a
// second apply changes nothing.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { kcluster } from '../integration/support/test-lab.js';
import { apiClient } from '../../src/kubernetes/kube/api-client.js';
import {
  bundleDir,
  bundleEntries,
  convergedAgain,
  kubectlBinary,
  poller,
  labInventoryWith,
  sshTo,
  until,
  useE2eLab,
  webDeploymentBehindNodePort,
} from './support/e2e-support.js';

const run = promisify(execFile);
const NAME = 'kcevip';
const NET = '10.231.26';
const VIP = `${NET}.250`;
const labDir = join(homedir(), '.kcluster', 'labs', NAME);
const work = mkdtempSync(join(tmpdir(), 'kc-vip-'));
const kubeconfig = join(work, 'admin.conf');
const ssh = sshTo(labDir);
const host = (i: number): string => `${NAME}${i}`;
const address = (i: number): string => `${NET}.${10 + i}`;
const kubectl = (...args: string[]) => run(kubectlBinary(), ['--kubeconfig', kubeconfig, '--request-timeout=10s', ...args]).then((r) => r.stdout);

useE2eLab(NAME, ['--hosts', '5', '--subnet', `${NET}.0/24`]);

/** The lab's inventory with these hosts and roles, the API at the virtual IP. */
const inventoryWith = (file: string, hosts: Record<number, string[]>): string =>
  labInventoryWith(labDir, NAME, file, hosts, (doc) => {
    doc.cluster['apiEndpoint'] = { host: VIP, virtualIp: { routerId: 26 } };
  });

/** Which of these hosts has the virtual IP on an interface (several would be a split brain). */
async function holders(hosts: readonly number[]): Promise<string[]> {
  const held = await Promise.all(hosts.map(async (i) => ((await ssh(host(i), 'ip -o -4 addr show')).includes(` ${VIP}/32 `) ? host(i) : undefined)));
  return held.filter((h): h is string => h !== undefined);
}

/** Asks GET /version through the virtual IP every 50 ms (500 ms timeout) with the admin credentials: when it answered, and how often not. */
function vipPoller() {
  const pki = join(labDir, 'state', 'pki');
  const api = apiClient(
    {
      server: `https://${VIP}:6443`,
      caCert: readFileSync(join(pki, 'ca.crt'), 'utf8'),
      clientCert: readFileSync(join(pki, 'admin.crt'), 'utf8'),
      clientKey: readFileSync(join(pki, 'admin.key'), 'utf8'),
    },
    500,
  );
  const seen = { ok: 0, failed: 0, answeredAt: [] as number[] };
  let polling = true;
  const loop = (async () => {
    while (polling) {
      try {
        await api.get('/version');
        seen.ok++;
        seen.answeredAt.push(Date.now());
      } catch {
        seen.failed++;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
  return { seen, stop: async () => ((polling = false), await loop) };
}

describe('the API at a virtual IP that survives any control plane', () => {
  it('installs with every node and the admin at the virtual IP, held by exactly one control plane', async () => {
    const three = inventoryWith('inventory-vip.yaml', { 1: ['control-plane'], 2: ['control-plane'], 3: ['control-plane'], 4: ['worker'] });
    const install = await kcluster(['apply', '-i', three]);
    expect(install.code, install.stderr + install.stdout.slice(-3000)).toBe(0);
    expect((await kcluster(['kubeconfig', '-i', three, '--file', kubeconfig])).code).toBe(0);
    expect(readFileSync(kubeconfig, 'utf8')).toContain(`server: https://${VIP}:6443`);
    for (const i of [1, 2, 3, 4]) expect(await ssh(host(i), 'grep server: /etc/kubernetes/kubelet.conf')).toContain(`https://${VIP}:6443`);
    // no node-local proxy with an API address
    for (const i of [1, 4]) expect(await ssh(host(i), 'systemctl is-active kcluster-apiproxy.service || true')).not.toMatch(/^active/m);
    expect(await holders([1, 2, 3])).toHaveLength(1);
    expect(await kubectl('get', 'nodes', '-o', 'name')).toContain(`node/${host(4)}`);

    await convergedAgain(three, 4);
  });

  it('moves to another control plane within 5 s when the host holding it is destroyed; no Service request fails', async () => {
    const busybox = bundleEntries().find((a) => a.name === 'busybox')!;
    await ssh(host(4), 'ctr -n k8s.io images import -', readFileSync(join(bundleDir(), busybox.path)));
    const app = join(work, 'app.yaml');
    writeFileSync(app, webDeploymentBehindNodePort(busybox.reference!));
    await kubectl('apply', '-f', app);
    await kubectl('rollout', 'status', 'deployment/web', '--timeout=180s');
    // Warmed up first: kube-proxy writes the Service's rules a moment after its pods are Ready, and
    // refuses connections until then. Only the requests from then on count.
    const warm = poller(`http://${address(4)}:30080/`);
    await until('the NodePort answers 10 times in a row', 120_000, async () => (warm.counts.streak >= 10 ? true : undefined));
    await warm.stop();
    const service = poller(`http://${address(4)}:30080/`);

    const [holder] = await holders([1, 2, 3]);
    const api = vipPoller();
    await until('the API answers through the virtual IP', 30_000, async () => (api.seen.ok >= 5 ? true : undefined));
    const killedAt = Date.now();
    await run('sh', ['-c', `echo 1 > /sys/fs/cgroup/unified/kcluster-lab/${holder}/cgroup.kill`]);
    await until('the API answers through the virtual IP again', 60_000, async () => (api.seen.answeredAt.some((t) => t > killedAt + 200) ? true : undefined));
    const recoveredMs = api.seen.answeredAt.find((t) => t > killedAt + 200)! - killedAt;
    // kubectl itself, with the admin kubeconfig as it was written before
    expect(await kubectl('get', '--raw', '/readyz')).toBe('ok');
    await new Promise((r) => setTimeout(r, 5000));
    await api.stop();
    await service.stop();
    const alive = [1, 2, 3].filter((i) => host(i) !== holder);
    const now = await holders(alive);
    console.log(
      `virtual IP: ${holder} destroyed, ${now.join(',')} answered through ${VIP} after ${recoveredMs} ms; API ${api.seen.ok} answers, ${api.seen.failed} failures; service ${service.counts.ok} answers, ${service.counts.failed} failures ${JSON.stringify(service.counts.failures.slice(0, 5))}`,
    );
    expect(now).toHaveLength(1);
    expect(recoveredMs).toBeLessThanOrEqual(5_000);
    expect(service.counts.failed).toBe(0);
    writeFileSync(join(work, 'destroyed'), holder!);
  });

  it('keeps the address while the dead control plane is removed and a new host takes its place; a second apply changes nothing', async () => {
    const destroyed = readFileSync(join(work, 'destroyed'), 'utf8');
    const dead = Number(destroyed.slice(NAME.length));
    const three = join(labDir, 'inventory-vip.yaml');
    const service = poller(`http://${address(4)}:30080/`);
    const api = vipPoller();
    const removed = await kcluster(['remove-node', '-i', three, destroyed, '--unreachable', '--yes']);
    expect(removed.code, removed.stderr + removed.stdout.slice(-2000)).toBe(0);
    const roles: Record<number, string[]> = { 4: ['worker'], 5: ['control-plane'] };
    for (const i of [1, 2, 3].filter((n) => n !== dead)) roles[i] = ['control-plane'];
    const replaced = inventoryWith('inventory-vip-replaced.yaml', roles);
    const joined = await kcluster(['apply', '-i', replaced, '--output', 'json']);
    await new Promise((r) => setTimeout(r, 3000));
    await api.stop();
    await service.stop();
    console.log(
      `replace ${destroyed} by ${host(5)} behind ${VIP}: API ${api.seen.ok} answers, ${api.seen.failed} failures; service ${service.counts.ok} answers, ${service.counts.failed} failures`,
    );
    expect(joined.code, joined.stderr + joined.stdout.slice(-3000)).toBe(0);
    const controlPlanes = [1, 2, 3, 5].filter((n) => n !== dead);
    expect(await holders(controlPlanes)).toHaveLength(1);
    // the new control plane's keepalived knows the others, and theirs know it
    for (const i of controlPlanes) {
      const config = await ssh(host(i), 'cat /etc/kcluster/keepalived.conf');
      for (const peer of controlPlanes.filter((n) => n !== i)) expect(config).toContain(`        ${address(peer)}\n`);
      expect(config).not.toContain(`        ${address(dead)}\n`);
    }
    expect(api.seen.failed).toBe(0);
    expect(service.counts.failed).toBe(0);
    expect(await kubectl('get', 'nodes', '-o', 'name')).toContain(`node/${host(5)}`);
    await convergedAgain(replaced, 4);
  });
});
