// The CIS Kubernetes Benchmark on a lab cluster, for the e2e suite: kube-bench built through the
// Go module proxy (test/cis/build-kube-bench.sh, cached), copied to each host and run there as
// root; the `policies` target reads the API only, so it runs here with the admin kubeconfig.
import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { sshTo } from './e2e-support.js';

const run = promisify(execFile);
const VERSION = 'v0.15.1';
const BENCHMARK = 'cis-1.12';
const root = join(import.meta.dirname, '..', '..', '..');

export interface BenchResult {
  where: string;
  targets: string;
  pass: number;
  fail: number;
  warn: number;
  info: number;
  failed: string[];
}
interface KubeBenchJson {
  Totals: { total_pass: number; total_fail: number; total_warn: number; total_info: number };
  Controls: { tests: { results: { test_number: string; status: string }[] }[] }[];
}

async function kubeBenchCache(): Promise<string> {
  const { stdout } = await run('bash', [join(root, 'test', 'cis', 'build-kube-bench.sh')], {
    env: { ...process.env, KUBE_BENCH_VERSION: VERSION },
    maxBuffer: 16 * 1024 * 1024,
  });
  return stdout.trim().split('\n').at(-1)!;
}

function resultOf(where: string, targets: string, json: string): BenchResult {
  const report = JSON.parse(json) as KubeBenchJson;
  const failed = report.Controls.flatMap((c) => c.tests.flatMap((g) => g.results.filter((r) => r.status === 'FAIL').map((r) => r.test_number)));
  const t = report.Totals;
  return { where, targets, pass: t.total_pass, fail: t.total_fail, warn: t.total_warn, info: t.total_info, failed };
}

/** Runs kube-bench on `host` (as root, over the lab's ssh_config) for the given targets. */
export async function kubeBenchOnHost(labDir: string, host: string, targets: string): Promise<BenchResult> {
  const cache = await kubeBenchCache();
  const ssh = sshTo(labDir);
  const { stdout: archive } = await run('tar', ['-C', cache, '-cf', '-', `bin/kube-bench-${VERSION}`, `cfg-${VERSION}`], {
    encoding: 'buffer',
    maxBuffer: 256 * 1024 * 1024,
  });
  await ssh(host, 'rm -rf /opt/kube-bench && mkdir -p /opt/kube-bench && tar -C /opt/kube-bench -xf -', archive);
  const json = await ssh(
    host,
    `PATH=/usr/local/bin:$PATH /opt/kube-bench/bin/kube-bench-${VERSION} run --config-dir /opt/kube-bench/cfg-${VERSION} --benchmark ${BENCHMARK} --targets ${targets} --json`,
  );
  await ssh(host, 'rm -rf /opt/kube-bench');
  return resultOf(host, targets, json);
}

/** The `policies` target (RBAC, Pod Security, network policies) through the API, from this machine. */
export async function kubeBenchPolicies(kubeconfig: string, kubectl: string): Promise<BenchResult> {
  const cache = await kubeBenchCache();
  const { stdout } = await run(
    join(cache, 'bin', `kube-bench-${VERSION}`),
    ['run', '--config-dir', join(cache, `cfg-${VERSION}`), '--benchmark', BENCHMARK, '--targets', 'policies', '--json'],
    {
      env: { ...process.env, KUBECONFIG: kubeconfig, PATH: `${dirname(kubectl)}:${process.env['PATH'] ?? ''}` },
      maxBuffer: 16 * 1024 * 1024,
    },
  );
  return resultOf('controller', 'policies', stdout);
}

export const summaryLine = (r: BenchResult): string =>
  `${r.where} (${r.targets}): ${r.pass} PASS, ${r.fail} FAIL [${r.failed.join(', ')}], ${r.warn} WARN, ${r.info} INFO`;

/**
 * kube-bench on a control plane (master, controlplane, etcd, node), a worker (node) and the
 * policies: prints each summary and returns every FAIL, as "where: check".
 */
export async function cisFailures(labDir: string, controlPlane: string, worker: string, kubeconfig: string, kubectl: string): Promise<string[]> {
  const runs = [
    await kubeBenchOnHost(labDir, controlPlane, 'master,controlplane,etcd,node'),
    await kubeBenchOnHost(labDir, worker, 'node'),
    await kubeBenchPolicies(kubeconfig, kubectl),
  ];
  for (const result of runs) console.log(`kube-bench ${summaryLine(result)}`);
  return runs.flatMap((result) => result.failed.map((id) => `${result.where}: ${id}`));
}
