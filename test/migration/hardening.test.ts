// Hardening a cluster that exists, on the real path: kcluster as it was before the CIS work
// (BEFORE_HARDENING, built from this repository's history in a git worktree) installs 1 control
// plane + 2 workers from the bundle, with a Secret stored in plain text and a 2-replica web
// Deployment behind a NodePort polled from the controller every 200 ms. Then `kcluster apply`
// with the current code: it must serve every request while it encrypts that Secret, turns the
// audit log, Pod Security admission and the TLS settings on, moves etcd to its own user and
// key folder, and turns on kubelet client certificate rotation; kube-bench then finds no FAIL
// and a second apply changes nothing. Too slow for CI's budget (two installs): run with
// `npm run test:migration` (test/migration/run.sh, which writes the dated result).
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kcluster } from '../integration/support/test-lab.js';
import { bundleDir, bundleEntries, changesIn, kubectlBinary, poller, recapOf, sshTo, until, webDeploymentBehindNodePort } from '../e2e/support/e2e-support.js';
import { cisFailures } from '../e2e/support/kube-bench.js';

const run = promisify(execFile);
const BEFORE_HARDENING = '38c7f6681646900c7496d9d8c1c94f79759c5faa';
const NAME = 'kcemig';
const NET = '10.231.12';
const repo = join(import.meta.dirname, '..', '..');
const labDir = join(homedir(), '.kcluster', 'labs', NAME);
const inventory = join(labDir, 'inventory.yaml');
const work = mkdtempSync(join(tmpdir(), 'kc-mig-'));
const oldTree = join(work, 'kcluster-before-hardening');
const kubeconfig = join(work, 'admin.conf');
const ssh = sshTo(labDir);
const kubectl = (...args: string[]) => run(kubectlBinary(), ['--kubeconfig', kubeconfig, '--request-timeout=20s', ...args]).then((r) => r.stdout);
const etcdctl = (certDir: string) =>
  `/usr/local/bin/etcdctl --endpoints=https://127.0.0.1:2379 --cacert=/etc/kubernetes/pki/etcd/ca.crt --cert=${certDir}/healthcheck-client.crt --key=${certDir}/healthcheck-client.key`;

async function oldKcluster(args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [join(oldTree, 'bin', 'kcluster.js'), ...args], {
      env: { ...process.env, CI: 'true', NO_COLOR: '1' },
      maxBuffer: 64 * 1024 * 1024,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : 1, stdout: e.stdout ?? '', stderr: e.stderr ?? String(error) };
  }
}

beforeAll(async () => {
  bundleDir();
  // kcluster before the hardening, from git history, with this checkout's node_modules.
  await run('git', ['-C', repo, 'worktree', 'add', '--detach', oldTree, BEFORE_HARDENING]);
  symlinkSync(join(repo, 'node_modules'), join(oldTree, 'node_modules'));
  await run('npm', ['run', '--silent', 'build'], { cwd: oldTree });
  await kcluster(['lab', 'down', '--name', NAME]);
  const up = await kcluster(['lab', 'up', '--name', NAME, '--hosts', '3', '--privileged', '--subnet', `${NET}.0/24`, '--bundle', bundleDir()]);
  if (up.code !== 0) throw new Error(`lab up failed: ${up.stderr}`);
});
afterAll(async () => {
  if (!process.env['KCLUSTER_KEEP_E2E_LAB']) await kcluster(['lab', 'down', '--name', NAME]);
  if (existsSync(oldTree)) await run('git', ['-C', repo, 'worktree', 'remove', '--force', oldTree]);
});

describe('hardening a cluster installed before it, under load', () => {
  it('serves every request while apply hardens it; then kube-bench finds no FAIL and a second apply changes nothing', async () => {
    const install = await oldKcluster(['apply', '-i', inventory]);
    expect(install.code, install.stderr + install.stdout.slice(-3000)).toBe(0);
    expect((await kcluster(['kubeconfig', '-i', inventory, '--file', kubeconfig])).code).toBe(0);
    await until('3 nodes Ready', 240_000, async () => {
      const nodes = JSON.parse(await kubectl('get', 'nodes', '-o', 'json')) as { items: { status: { conditions: { type: string; status: string }[] } }[] };
      return nodes.items.length === 3 && nodes.items.every((n) => n.status.conditions.some((c) => c.type === 'Ready' && c.status === 'True'))
        ? true
        : undefined;
    });
    const cp = `${NAME}1`;
    // The old cluster: etcd as root with its keys in /etc/kubernetes/pki/etcd, Secrets in plain text.
    expect(await ssh(cp, 'ps -o user= -C etcd; ls /etc/kubernetes/pki/etcd/server.key')).toBe('root\n/etc/kubernetes/pki/etcd/server.key\n');
    await kubectl('create', 'secret', 'generic', 'before-hardening', '--from-literal=password=plain-before-hardening');
    const stored = () =>
      ssh(cp, `${etcdctl('/etc/kubernetes/pki/etcd')} get /registry/secrets/default/before-hardening --print-value-only | tr -c '[:print:]' '.'`);
    expect(await stored()).toContain('plain-before-hardening');

    const busybox = bundleEntries().find((a) => a.name === 'busybox')!;
    for (const host of [`${NAME}2`, `${NAME}3`]) await ssh(host, 'ctr -n k8s.io images import -', readFileSync(join(bundleDir(), busybox.path)));
    writeFileSync(join(work, 'app.yaml'), webDeploymentBehindNodePort(busybox.reference!));
    await kubectl('apply', '-f', join(work, 'app.yaml'));
    await kubectl('rollout', 'status', 'deployment/web', '--timeout=180s');
    const probe = poller(`http://${NET}.11:30080/`);
    await until('the NodePort answers 10 times in a row', 120_000, async () => (probe.counts.streak >= 10 ? true : undefined));
    await probe.stop();

    const poll = poller(`http://${NET}.11:30080/`);
    const started = Date.now();
    const harden = await kcluster(['apply', '-i', inventory, '--output', 'json']);
    const seconds = (Date.now() - started) / 1000;
    await new Promise((r) => setTimeout(r, 3000));
    await poll.stop();
    expect(harden.code, harden.stderr + harden.stdout.slice(-3000)).toBe(0);
    console.log(
      `hardening apply: ${seconds.toFixed(1)} s, ${poll.counts.ok} answers, ${poll.counts.failed} failures ${JSON.stringify(poll.counts.failures.slice(0, 5))}`,
    );
    console.log(`hardening apply changed: ${changesIn(harden.stdout).split('\n').length} tasks`);
    expect(poll.counts.failed).toBe(0);
    expect(poll.counts.ok).toBeGreaterThan(50);

    // What the hardening did, read on the hosts and through the API.
    expect(await stored()).toMatch(/^k8s:enc:secretbox:v1:key-\d{8}T\d{6}:/);
    expect((await kubectl('get', 'secret', 'before-hardening', '-o', 'jsonpath={.data.password}')).trim()).toBe(
      Buffer.from('plain-before-hardening').toString('base64'),
    );
    expect(await ssh(cp, 'ps -o user= -C etcd; stat -c "%a %U:%G" /var/lib/etcd /etc/kubernetes/etcd; ls /etc/kubernetes/pki/etcd')).toBe(
      'etcd\n700 etcd:etcd\n700 etcd:etcd\nca.crt\nca.key\nhealthcheck-client.crt\nhealthcheck-client.key\n',
    );
    expect(await ssh(cp, 'grep -c before-hardening /var/log/kubernetes/audit/audit.log || true')).not.toBe('0\n');
    expect(await cisFailures(labDir, cp, `${NAME}2`, kubeconfig, kubectlBinary())).toEqual([]);
    const again = await kcluster(['apply', '-i', inventory, '--output', 'json']);
    expect(again.code, again.stderr).toBe(0);
    expect(
      recapOf(again.stdout).map((h) => h.changed),
      changesIn(again.stdout),
    ).toEqual([0, 0, 0]);
  });
});
