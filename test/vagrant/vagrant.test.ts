// Vagrant as documented in vagrant/README.md: two VMs brought up by `vagrant up` (vagrant-libvirt,
// the box vagrant/build-box.sh built offline, real Debian kernels) with the inventory the
// Vagrantfile writes. kcluster must read that inventory as it is, make a cluster of the two VMs
// (1 control plane, 1 worker) loading the kernel modules itself, change nothing on a second
// apply, and serve a Service by name to a pod on the worker from a pod on the control plane. Slow (software emulation here), so not part of `npm test`: `bash test/vagrant/run.sh`,
// which runs `vagrant up` first and `vagrant destroy` after.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { kcluster, parseEvents, repoRoot } from '../integration/support/test-lab.js';
import { bundleDir, bundleEntries, changesIn, kubectlBinary, recapOf, sshCommand, until, webAndClientPods } from '../e2e/support/e2e-support.js';

const run = promisify(execFile);
const inventory = process.env['KCLUSTER_VAGRANT_INVENTORY'] ?? join(repoRoot, 'vagrant', 'inventory.yaml');
const work = mkdtempSync(join(tmpdir(), 'kc-vagrant-'));
const kubeconfig = join(work, 'admin.conf');
const figures: Record<string, number | string> = {};

interface InventoryHost {
  name: string;
  address: string;
  roles: string[];
  keyFile: string;
  become: boolean;
}
const hosts = (): InventoryHost[] => (parse(readFileSync(inventory, 'utf8')) as { hosts: InventoryHost[] }).hosts;
const hostNamed = (name: string): InventoryHost => hosts().find((h) => h.name === name)!;

/** A command as root on a VM, the way the inventory says to log in (the vagrant user, sudo). */
function onVm(name: string, command: string, input?: Buffer): Promise<string> {
  const h = hostNamed(name);
  return sshCommand(
    [
      '-i',
      h.keyFile,
      '-o',
      'BatchMode=yes',
      '-o',
      'StrictHostKeyChecking=accept-new',
      '-o',
      `UserKnownHostsFile=${join(work, 'known_hosts')}`,
      '-o',
      'LogLevel=ERROR',
      `vagrant@${h.address}`,
      `sudo sh -c '${command.replaceAll("'", "'\\''")}'`,
    ],
    input,
  );
}

async function kubectl(...args: string[]): Promise<string> {
  const { stdout } = await run(kubectlBinary(), ['--kubeconfig', kubeconfig, '--request-timeout=30s', ...args], { maxBuffer: 16 * 1024 * 1024 });
  return stdout;
}

type TaskEvent = { type: string; host: string; task: string; status: string; summary?: string };
const tasks = (stdout: string): TaskEvent[] => parseEvents(stdout).filter((e) => e['type'] === 'task-result') as unknown as TaskEvent[];

afterAll(() => {
  console.log(`vagrant figures: ${JSON.stringify(figures)}`);
  if (process.env['KCLUSTER_VAGRANT_FIGURES']) writeFileSync(process.env['KCLUSTER_VAGRANT_FIGURES'], `${JSON.stringify(figures, null, 2)}\n`);
});

describe('kcluster on the VMs of vagrant/Vagrantfile (vagrant-libvirt, offline box, real kernels)', () => {
  it('`vagrant up` wrote an inventory of both VMs that `kcluster facts` reads: real kernels, cgroup v2, no swap', async () => {
    expect(existsSync(inventory), `${inventory}: run test/vagrant/run.sh (it runs vagrant up)`).toBe(true);
    expect(readFileSync(inventory, 'utf8')).toMatch(/^# Written by vagrant\/Vagrantfile after `vagrant up` \(provider libvirt\)\.$/m);
    expect(hosts().map((h) => [h.name, h.roles[0], h.become])).toEqual([
      ['kc1', 'control-plane', true],
      ['kc2', 'worker', true],
    ]);
    for (const h of hosts()) expect(h.keyFile).toMatch(new RegExp(`/vagrant/\\.vagrant/machines/${h.name}/libvirt/private_key$`));
    const facts = await kcluster(['facts', '-i', inventory, '-o', 'json']);
    expect(facts.code, facts.stderr).toBe(0);
    const report = JSON.parse(facts.stdout) as {
      host: string;
      status: string;
      facts: { kernel: string; cgroup: string; swapOn: boolean; init: string; addresses: { address: string }[] };
    }[];
    const ownKernel = (await run('uname', ['-r'])).stdout.trim();
    expect(report.map((r) => r.host)).toEqual(['kc1', 'kc2']);
    for (const r of report) {
      expect(r.status).toBe('ok');
      expect(r.facts.kernel).not.toBe(ownKernel);
      expect(r.facts).toMatchObject({ cgroup: 'v2', swapOn: false, init: 'systemd' });
      expect(r.facts.addresses.map((a) => a.address)).toContain(`${hostNamed(r.host).address}/24`);
    }
    figures['kernel'] = report[0]!.facts.kernel;
    expect((await onVm('kc1', 'lsmod | grep -cE "^(br_netfilter|overlay) " || true')).trim()).toBe('0');
  });

  it('apply makes a cluster of the two VMs, loading and persisting the kernel modules itself', async () => {
    bundleDir();
    const started = Date.now();
    const apply = await kcluster(['apply', '-i', inventory, '--output', 'json']);
    figures['applySeconds'] = (Date.now() - started) / 1000;
    expect(apply.code, `${apply.stderr}\n${apply.stdout.slice(-4000)}`).toBe(0);
    const loaded = tasks(apply.stdout)
      .filter((t) => t.task === 'kernel module br_netfilter' && t.status === 'changed')
      .map((t) => t.host)
      .sort();
    expect(loaded).toEqual(['kc1', 'kc2']);
    expect(tasks(apply.stdout).find((t) => t.task === 'addons running')?.status).toBe('ok');
    for (const name of ['kc1', 'kc2']) {
      expect((await onVm(name, 'lsmod | grep -cE "^(br_netfilter|overlay) "')).trim()).toBe('2');
      expect(await onVm(name, 'cat /etc/modules-load.d/kcluster-br_netfilter.conf')).toMatch(/^br_netfilter$/m);
    }
    const written = await kcluster(['kubeconfig', '-i', inventory, '--file', kubeconfig]);
    expect(written.code, written.stderr).toBe(0);
    const nodes = JSON.parse(await kubectl('get', 'nodes', '-o', 'json')) as {
      items: {
        metadata: { name: string };
        status: { addresses: { type: string; address: string }[]; conditions: { type: string; status: string }[]; nodeInfo: { kernelVersion: string } };
      }[];
    };
    expect(nodes.items.map((n) => n.metadata.name).sort()).toEqual(['kc1', 'kc2']);
    for (const n of nodes.items) {
      expect(n.status.conditions.find((c) => c.type === 'Ready')?.status, n.metadata.name).toBe('True');
      expect(n.status.nodeInfo.kernelVersion).toBe(figures['kernel']);
      // The node is known by the inventory's address (the private network), not the management network's.
      expect(n.status.addresses.find((a) => a.type === 'InternalIP')?.address).toBe(hostNamed(n.metadata.name).address);
    }
  });

  it('a second apply changes nothing', async () => {
    const started = Date.now();
    const again = await kcluster(['apply', '-i', inventory, '--output', 'json']);
    figures['secondApplySeconds'] = (Date.now() - started) / 1000;
    expect(again.code, again.stderr).toBe(0);
    expect(
      recapOf(again.stdout).map((h) => h.changed),
      changesIn(again.stdout),
    ).toEqual([0, 0]);
  });

  it('a pod on the worker resolves a Service by name and reaches the pod behind it on the other VM', async () => {
    const busybox = bundleEntries().find((a) => a.name === 'busybox')!;
    for (const name of ['kc1', 'kc2']) await onVm(name, 'ctr -n k8s.io images import -', readFileSync(join(bundleDir(), busybox.path)));
    const file = join(work, 'pods.yaml');
    // The web pod on the control plane (placed by nodeName, past its taint), the client on the
    // worker: the answer crosses the pod network between the two VMs.
    writeFileSync(file, webAndClientPods(busybox.reference!, 'kc1', 'kc2', 'hello-from-vagrant'));
    await kubectl('apply', '-f', file);
    await kubectl('wait', '--for=condition=Ready', 'pod/web', 'pod/client', '--timeout=600s');
    const exec = (...cmd: string[]) => kubectl('exec', 'client', '--', '/bin/busybox', ...cmd);
    const started = Date.now();
    const lookup = await until('web.default resolves', 300_000, async () => {
      const out = await exec('nslookup', 'web.default.svc.cluster.local');
      return /Address:?\s+10\.\d+\.\d+\.\d+/.test(out.split('Name:')[1] ?? '') ? out : undefined;
    });
    expect(lookup).toContain('web.default.svc.cluster.local');
    expect(
      await until('the Service answers by name', 120_000, async () =>
        (await exec('wget', '-qO-', 'http://web.default.svc.cluster.local/')).includes('hello-from-vagrant') ? 'ok' : undefined,
      ),
    ).toBe('ok');
    figures['serviceByNameSeconds'] = (Date.now() - started) / 1000;
  });
});
