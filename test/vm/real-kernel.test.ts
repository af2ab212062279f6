// A cluster on a real kernel: one QEMU VM with a stock Debian kernel (`kcluster lab up --vm`,
// brought up by test/vm/run.sh), cgroup v2, AppArmor on, overlay and br_netfilter not loaded.
// `kcluster apply` from the bundle must load and persist the modules itself, install a
// single-node cluster (control plane without its taint) that runs plain runc under the systemd
// cgroup driver, change nothing on a second apply, resolve and reach a Service by name from a
// pod, and come back after a reboot with the modules loaded at boot and nothing to change.
// Slow (software emulation: minutes), so not part of `npm test`: `bash test/vm/run.sh`.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { kcluster, parseEvents } from '../integration/support/test-lab.js';
import { bundleDir, bundleEntries, changesIn, kubectlBinary, recapOf, sshTo, until, webAndClientPods } from '../e2e/support/e2e-support.js';

const run = promisify(execFile);
const NAME = process.env['KCLUSTER_VM_LAB'] ?? 'kcvm';
const labDir = join(homedir(), '.kcluster', 'labs', NAME);
const inventory = join(labDir, 'inventory.yaml');
const HOST = `${NAME}1`;
const work = mkdtempSync(join(tmpdir(), 'kc-vm-'));
const kubeconfig = join(work, 'admin.conf');
const ssh = sshTo(labDir);
const figures: Record<string, number | string> = {};

async function kubectl(...args: string[]): Promise<string> {
  const { stdout } = await run(kubectlBinary(), ['--kubeconfig', kubeconfig, '--request-timeout=30s', ...args], { maxBuffer: 16 * 1024 * 1024 });
  return stdout;
}

type TaskEvent = { type: string; host: string; task: string; status: string; summary?: string; reason?: string };
const tasks = (stdout: string): TaskEvent[] => parseEvents(stdout).filter((e) => e['type'] === 'task-result') as unknown as TaskEvent[];

afterAll(() => {
  writeFileSync(join(work, 'figures.json'), JSON.stringify(figures));
  console.log(`vm figures: ${JSON.stringify(figures)}`);
  if (process.env['KCLUSTER_VM_FIGURES']) writeFileSync(process.env['KCLUSTER_VM_FIGURES'], `${JSON.stringify(figures, null, 2)}\n`);
});

describe('a cluster on a real kernel (QEMU VM, stock Debian kernel)', () => {
  it('the VM is a real machine: its own kernel, cgroup v2, AppArmor on, overlay and br_netfilter not loaded', async () => {
    bundleDir();
    figures['kernel'] = (await ssh(HOST, 'uname -r')).trim();
    expect(figures['kernel']).not.toBe((await run('uname', ['-r'])).stdout.trim());
    expect((await ssh(HOST, 'stat -fc %T /sys/fs/cgroup')).trim()).toBe('cgroup2fs');
    expect((await ssh(HOST, 'cat /sys/module/apparmor/parameters/enabled')).trim()).toBe('Y');
    expect((await ssh(HOST, 'lsmod | grep -cE "^(br_netfilter|overlay) " || true')).trim()).toBe('0');
  });

  it('apply installs a single-node cluster, loading and persisting the kernel modules itself', async () => {
    const started = Date.now();
    const apply = await kcluster(['apply', '-i', inventory, '--output', 'json']);
    figures['applySeconds'] = (Date.now() - started) / 1000;
    expect(apply.code, `${apply.stderr}\n${apply.stdout.slice(-4000)}`).toBe(0);
    const byName = new Map(tasks(apply.stdout).map((t) => [t.task, t]));
    expect(byName.get('preflight kernel')?.reason).toBe('overlay and br_netfilter will be loaded by the container runtime role (and at every boot)');
    expect(byName.get('kernel module overlay')).toMatchObject({ status: 'changed', summary: expect.stringContaining('load overlay (modprobe)') });
    expect(byName.get('kernel module br_netfilter')).toMatchObject({ status: 'changed', summary: expect.stringContaining('load br_netfilter (modprobe)') });
    // The addons' waits (roles/addons/running.ts) report ok once what they await runs.
    expect([byName.get('kube-proxy and the pod network running')?.status, byName.get('CoreDNS running')?.status]).toEqual(['ok', 'ok']);
    expect((await ssh(HOST, 'lsmod | grep -cE "^(br_netfilter|overlay) "')).trim()).toBe('2');
    expect(await ssh(HOST, 'cat /etc/modules-load.d/kcluster-overlay.conf /etc/modules-load.d/kcluster-br_netfilter.conf')).toMatch(
      /^overlay$[\s\S]*^br_netfilter$/m,
    );
    expect((await ssh(HOST, 'cat /proc/sys/net/bridge/bridge-nf-call-iptables /proc/sys/net/ipv4/ip_forward')).split('\n').slice(0, 2)).toEqual(['1', '1']);
    // Real-machine defaults: the systemd cgroup driver, no cgroup v1 escape hatch, plain runc.
    const kubeletConfig = await ssh(HOST, 'cat /var/lib/kubelet/config.yaml');
    expect(kubeletConfig).toMatch(/^cgroupDriver: systemd$/m);
    expect(kubeletConfig).not.toMatch(/failCgroupV1/);
    const containerd = await ssh(HOST, 'cat /etc/containerd/config.toml');
    expect(containerd).toMatch(/SystemdCgroup = true/);
    expect(containerd).toMatch(/BinaryName = "\/usr\/local\/sbin\/runc"/);
    const written = await kcluster(['kubeconfig', '-i', inventory, '--file', kubeconfig]);
    expect(written.code, written.stderr).toBe(0);
    const node = JSON.parse(await kubectl('get', 'node', HOST, '-o', 'json')) as {
      spec: { taints?: unknown[] };
      status: { conditions: { type: string; status: string }[]; nodeInfo: { kernelVersion: string } };
    };
    expect(node.status.conditions.find((c) => c.type === 'Ready')?.status).toBe('True');
    expect(node.status.nodeInfo.kernelVersion).toBe(figures['kernel']);
    expect(node.spec.taints ?? []).toEqual([]);
  });

  it('a second apply changes nothing', async () => {
    const started = Date.now();
    const again = await kcluster(['apply', '-i', inventory, '--output', 'json']);
    figures['secondApplySeconds'] = (Date.now() - started) / 1000;
    expect(again.code, again.stderr).toBe(0);
    expect(
      recapOf(again.stdout).map((h) => h.changed),
      changesIn(again.stdout),
    ).toEqual([0]);
  });

  it('a pod resolves a Service by name and reaches it', async () => {
    const busybox = bundleEntries().find((a) => a.name === 'busybox')!;
    await ssh(HOST, 'ctr -n k8s.io images import -', readFileSync(join(bundleDir(), busybox.path)));
    const file = join(work, 'pods.yaml');
    writeFileSync(file, webAndClientPods(busybox.reference!, HOST, HOST, 'hello-from-a-real-kernel'));
    await kubectl('apply', '-f', file);
    await kubectl('wait', '--for=condition=Ready', 'pod/web', 'pod/client', '--timeout=300s');
    const exec = (...cmd: string[]) => kubectl('exec', 'client', '--', '/bin/busybox', ...cmd);
    const lookup = await until('web.default resolves', 180_000, async () => {
      const out = await exec('nslookup', 'web.default.svc.cluster.local');
      return /Address:?\s+10\.\d+\.\d+\.\d+/.test(out.split('Name:')[1] ?? '') ? out : undefined;
    });
    expect(lookup).toContain('web.default.svc.cluster.local');
    expect(
      await until('the Service answers by name', 120_000, async () =>
        (await exec('wget', '-qO-', 'http://web.default.svc.cluster.local/')).includes('hello-from-a-real-kernel') ? 'ok' : undefined,
      ),
    ).toBe('ok');
  });

  it('after a reboot the modules are loaded at boot, the node is Ready again, and apply changes nothing', async () => {
    await ssh(HOST, 'systemctl reboot').catch(() => undefined); // the session may end before it answers
    const started = Date.now();
    await new Promise((r) => setTimeout(r, 10_000));
    await until('ssh after the reboot', 600_000, async () => ((await ssh(HOST, 'cat /proc/uptime')).trim() !== '' ? 'up' : undefined));
    expect((await ssh(HOST, 'lsmod | grep -cE "^(br_netfilter|overlay) "')).trim()).toBe('2');
    expect((await ssh(HOST, 'cat /proc/sys/net/bridge/bridge-nf-call-iptables')).trim()).toBe('1');
    await until('node Ready after the reboot', 600_000, async () => {
      const ready = await kubectl('get', 'node', HOST, '-o', 'jsonpath={.status.conditions[?(@.type=="Ready")].status}');
      return ready.trim() === 'True' ? 'ready' : undefined;
    });
    figures['rebootToReadySeconds'] = (Date.now() - started) / 1000;
    const after = await kcluster(['apply', '-i', inventory, '--output', 'json']);
    expect(after.code, after.stderr).toBe(0);
    expect(
      recapOf(after.stdout).map((h) => h.changed),
      changesIn(after.stdout),
    ).toEqual([0]);
  });
});
