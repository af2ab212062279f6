// End to end, the Docker runtime: 1 control plane + 2 workers with `containerRuntime: docker`
// (Docker Engine from Debian's packages, cri-dockerd from the bundle, images loaded with
// `docker load`): all nodes Ready, a pod on one worker reaches a pod on the other through a
// Service name resolved by CoreDNS (kube-proxy in nftables mode), Docker runs the Kubernetes containers, a second apply
// changes nothing, kube-bench finds no FAIL, and reset removes the Kubernetes containers while Docker Engine stays.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kcluster } from '../integration/support/test-lab.js';
import { cisFailures } from './support/kube-bench.js';
import { bundleDir, bundleEntries, changesIn, kubectlBinary, recapOf, sshTo, until, webAndClientPods, wgetInPod } from './support/e2e-support.js';

const run = promisify(execFile);
const NAME = 'kcedock';
const labDir = join(homedir(), '.kcluster', 'labs', NAME);
const inventory = join(labDir, 'inventory.yaml');
const work = mkdtempSync(join(tmpdir(), 'kc-docker-'));
const kubeconfig = join(work, 'admin.conf');
const ssh = sshTo(labDir);
const kubectl = (...args: string[]) => run(kubectlBinary(), ['--kubeconfig', kubeconfig, '--request-timeout=20s', ...args]).then((r) => r.stdout);

beforeAll(async () => {
  bundleDir();
  await kcluster(['lab', 'down', '--name', NAME]);
  const up = await kcluster(['lab', 'up', '--name', NAME, '--hosts', '3', '--privileged', '--subnet', '10.231.11.0/24', '--bundle', bundleDir()]);
  if (up.code !== 0) throw new Error(`lab up failed: ${up.stderr}`);
  // kube-proxy in nftables mode on this cluster (cluster.kubeProxy.mode): the Service test below runs through it.
  writeFileSync(inventory, readFileSync(inventory, 'utf8').replace(/^cluster:\n/m, 'cluster:\n  containerRuntime: docker\n  kubeProxy: { mode: nftables }\n'));
});
afterAll(async () => {
  if (!process.env['KCLUSTER_KEEP_E2E_LAB']) await kcluster(['lab', 'down', '--name', NAME]);
});

describe('the Docker runtime (Docker Engine + cri-dockerd)', () => {
  it('installs a cluster whose pods run in Docker, converges, and resets', async () => {
    const started = Date.now();
    const apply = await kcluster(['apply', '-i', inventory]);
    expect(apply.code, apply.stderr + apply.stdout.slice(-3000)).toBe(0);
    expect((await kcluster(['kubeconfig', '-i', inventory, '--file', kubeconfig])).code).toBe(0);
    await until('3 nodes Ready', 240_000, async () => {
      const nodes = JSON.parse(await kubectl('get', 'nodes', '-o', 'json')) as {
        items: { status: { conditions: { type: string; status: string }[]; nodeInfo: { containerRuntimeVersion: string } } }[];
      };
      return nodes.items.length === 3 &&
        nodes.items.every(
          (n) =>
            n.status.conditions.some((c) => c.type === 'Ready' && c.status === 'True') && n.status.nodeInfo.containerRuntimeVersion.startsWith('docker://'),
        )
        ? true
        : undefined;
    });
    console.log(`docker runtime: empty hosts to 3 nodes Ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);

    const busybox = bundleEntries().find((a) => a.name === 'busybox')!;
    for (const host of [`${NAME}2`, `${NAME}3`]) await ssh(host, 'docker load >/dev/null', readFileSync(join(bundleDir(), busybox.path)));
    const manifest = join(work, 'pods.yaml');
    writeFileSync(manifest, webAndClientPods(busybox.reference!, `${NAME}2`, `${NAME}3`, 'hello-from-docker'));
    await kubectl('apply', '-f', manifest);
    await kubectl('wait', '--for=condition=Ready', 'pod/web', 'pod/client', '--timeout=180s');
    const answer = await until('the Service, by name, from the other worker', 120_000, async () => {
      const out = await kubectl('exec', 'client', '--', ...wgetInPod('http://web.default.svc.cluster.local/'));
      return out.includes('hello-from-docker') ? out : undefined;
    });
    // The Service answered through kube-proxy's nftables rules: its table is there, with the Service in it.
    const table = await kubectl('-n', 'kube-system', 'exec', 'ds/kube-proxy', '--', 'nft', 'list', 'table', 'ip', 'kube-proxy');
    expect(table).toContain('default/web');
    expect(answer).toContain('hello-from-docker');
    expect(await ssh(`${NAME}2`, "docker ps --filter name=k8s_web --format '{{.Names}}'")).toMatch(/^k8s_web_web_default_/m);
    expect(JSON.parse(await ssh(`${NAME}2`, 'cat /etc/docker/daemon.json'))).toMatchObject({ bridge: 'none', iptables: false });

    // The CIS benchmark on this runtime too: no FAIL.
    expect(await cisFailures(labDir, `${NAME}1`, `${NAME}2`, kubeconfig, kubectlBinary())).toEqual([]);

    const again = await kcluster(['apply', '-i', inventory, '--output', 'json']);
    expect(again.code, again.stderr).toBe(0);
    expect(
      recapOf(again.stdout).map((h) => h.changed),
      changesIn(again.stdout),
    ).toEqual([0, 0, 0]);

    const reset = await kcluster(['reset', '-i', inventory, '--yes']);
    expect(reset.code, reset.stderr + reset.stdout.slice(-3000)).toBe(0);
    for (const host of [`${NAME}1`, `${NAME}2`, `${NAME}3`]) {
      // Docker Engine (and the containerd it runs on) stays, running; the Kubernetes parts go.
      expect(
        await ssh(
          host,
          'docker ps -aq --filter name=^k8s_ | wc -l; systemctl is-active cri-docker 2>/dev/null || true; ls /etc/kubernetes /var/lib/kubelet 2>/dev/null | wc -l; systemctl is-active docker containerd',
        ),
      ).toBe('0\ninactive\n0\nactive\nactive\n');
    }
  });
});
