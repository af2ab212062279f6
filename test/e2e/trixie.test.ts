// End to end on Debian 13 (trixie) lab hosts (issue 42): `kcluster lab up --suite trixie`, the
// hosts' package manager disabled (apt-get, apt and dpkg moved away: the bundle alone installs),
// 1 control plane + 2 workers installed from the bundle, every Node Ready and reporting trixie,
// a pod on one worker reaches a pod on the other through a Service name resolved by CoreDNS,
// and a second apply changes nothing. The hosts run trixie's systemd (257) on this machine's
// kernel and cgroup hierarchy: the lab's cgroupfs exception, as on bookworm lab hosts; real
// trixie kernels with cgroup v2 are proven by test/vm (SUITE=trixie).
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { kcluster } from '../integration/support/test-lab.js';
import { bundleDir, bundleEntries, convergedAgain, kubectlBinary, sshTo, until, useE2eLab, webAndClientPods, wgetInPod } from './support/e2e-support.js';

const run = promisify(execFile);
const NAME = 'kcetrix';
const labDir = join(homedir(), '.kcluster', 'labs', NAME);
const inventory = join(labDir, 'inventory.yaml');
const work = mkdtempSync(join(tmpdir(), 'kc-trixie-'));
const kubeconfig = join(work, 'admin.conf');
const ssh = sshTo(labDir);
const kubectl = (...args: string[]) => run(kubectlBinary(), ['--kubeconfig', kubeconfig, '--request-timeout=20s', ...args]).then((r) => r.stdout);
const HOSTS = [1, 2, 3].map((i) => `${NAME}${i}`);

useE2eLab(NAME, ['--hosts', '3', '--suite', 'trixie', '--subnet', '10.231.31.0/24']);

describe('a cluster on Debian 13 (trixie) hosts without a package manager', () => {
  it('runs trixie with its own systemd on every host, and no apt', async () => {
    for (const host of HOSTS) {
      await ssh(host, 'for c in apt-get apt dpkg; do p=$(command -v "$c") && mv "$p" "$p.disabled-by-e2e"; done; true');
      expect(await ssh(host, '. /etc/os-release; echo "$VERSION_CODENAME"; command -v apt-get dpkg || true')).toBe('trixie\n');
      expect(Number(/systemd (\d+)/.exec(await ssh(host, 'systemctl --version'))?.[1])).toBeGreaterThanOrEqual(257);
    }
  });

  it('installs from the bundle alone: all Nodes Ready and on trixie, DNS and a Service across workers, a second apply changes nothing', async () => {
    const started = Date.now();
    const apply = await kcluster(['apply', '-i', inventory]);
    expect(apply.code, apply.stderr + apply.stdout.slice(-3000)).toBe(0);
    expect((await kcluster(['kubeconfig', '-i', inventory, '--file', kubeconfig])).code).toBe(0);
    const images = await until('3 Nodes Ready', 240_000, async () => {
      const nodes = JSON.parse(await kubectl('get', 'nodes', '-o', 'json')) as {
        items: { status: { conditions: { type: string; status: string }[]; nodeInfo: { osImage: string } } }[];
      };
      const ready = nodes.items.filter((n) => n.status.conditions.some((c) => c.type === 'Ready' && c.status === 'True'));
      return nodes.items.length === 3 && ready.length === 3 ? nodes.items.map((n) => n.status.nodeInfo.osImage) : undefined;
    });
    console.log(`trixie: empty hosts to 3 Nodes Ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    expect(images).toEqual(Array.from({ length: 3 }, () => 'Debian GNU/Linux 13 (trixie)'));

    const busybox = bundleEntries().find((a) => a.name === 'busybox')!;
    for (const host of HOSTS.slice(1)) await ssh(host, 'ctr -n k8s.io images import - >/dev/null', readFileSync(join(bundleDir(), busybox.path)));
    const manifest = join(work, 'pods.yaml');
    writeFileSync(manifest, webAndClientPods(busybox.reference!, HOSTS[1]!, HOSTS[2]!, 'hello-from-trixie'));
    await kubectl('apply', '-f', manifest);
    await kubectl('wait', '--for=condition=Ready', 'pod/web', 'pod/client', '--timeout=180s');
    const answer = await until('the Service, by name, from the other worker', 120_000, async () => {
      const out = await kubectl('exec', 'client', '--', ...wgetInPod('http://web.default.svc.cluster.local/'));
      return out.includes('hello-from-trixie') ? out : undefined;
    });
    expect(answer).toContain('hello-from-trixie');

    await convergedAgain(inventory, 3);
  });
});
