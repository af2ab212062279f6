// `npm run gen:config-fields`: for each release of the version table, builds
// tools/config-fields/main.go against the matching k8s.io/kubelet and k8s.io/kube-proxy modules
// (v1.37.2 -> v0.37.2; the Go toolchain and module proxy of the machine, in a temporary module)
// and writes what it prints to src/kubernetes/cluster/config-fields/v<minor>.json. Files of
// minors no longer in the table are removed.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { packageRoot } from '../../orchestrator/util/package-root.js';
import { KUBERNETES_RELEASES, minorOf } from '../artifacts/component-versions.js';
import { CONFIG_FIELDS_DIR, configFieldsFile, stagingVersion } from './config-fields.js';

const GENERATOR = 'tools/config-fields/main.go';

function go(dir: string, args: string[]): string {
  const env = { ...process.env, GOFLAGS: `${process.env['GOFLAGS'] ?? ''} -mod=mod`.trim() };
  const run = spawnSync('go', args, { cwd: dir, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 64 * 1024 * 1024 });
  if (run.error) throw run.error;
  if (run.status !== 0) throw new Error(`go ${args.join(' ')} failed in ${dir} (exit ${run.status})`);
  return run.stdout;
}

function generate(root: string, release: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'kcluster-config-fields-'));
  try {
    copyFileSync(join(root, GENERATOR), join(dir, 'main.go'));
    writeFileSync(join(dir, 'go.mod'), 'module kcluster.local/config-fields\n\ngo 1.26.0\n');
    const staging = stagingVersion(release);
    go(dir, ['get', `k8s.io/kubelet@${staging}`, `k8s.io/kube-proxy@${staging}`]);
    const trees = JSON.parse(go(dir, ['run', '.'])) as Record<string, unknown>;
    return `${JSON.stringify({ kubernetesVersion: release, ...trees }, null, 2)}\n`;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const root = packageRoot();
mkdirSync(join(root, CONFIG_FIELDS_DIR), { recursive: true });
const wanted = new Set(KUBERNETES_RELEASES.map((r) => configFieldsFile(minorOf(r))));
for (const release of KUBERNETES_RELEASES) {
  const file = configFieldsFile(minorOf(release));
  writeFileSync(join(root, file), generate(root, release));
  process.stdout.write(`wrote ${file} from k8s.io/kubelet and k8s.io/kube-proxy ${stagingVersion(release)}\n`);
}
for (const name of readdirSync(join(root, CONFIG_FIELDS_DIR))) {
  const file = `${CONFIG_FIELDS_DIR}/${name}`;
  if (/^v\d+\.\d+\.json$/.test(name) && !wanted.has(file)) {
    rmSync(join(root, file));
    process.stdout.write(`removed ${file}: its minor is no longer in the version table\n`);
  }
}
