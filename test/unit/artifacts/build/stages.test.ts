// The stages of `kcluster bundle build` with stand-in recipes (shell scripts in a temp package
// root, not the real Go builds): cached outputs, failures and interruptions that leave nothing
// that looks complete, cache keys that follow the recipe, and a bundle whose lock verifies.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { assembleBundle } from '../../../../src/kubernetes/artifacts/build/assemble-bundle.js';
import type { BuildStage } from '../../../../src/kubernetes/artifacts/build/build-plan.js';
import { runStage, StageFailedError, type StageOutput } from '../../../../src/kubernetes/artifacts/build/run-stage.js';
import { stageKey } from '../../../../src/kubernetes/artifacts/build/stage-key.js';
import { openBundle, verifyBundle } from '../../../../src/kubernetes/artifacts/bundle-source.js';
import { VerifiedFiles } from '../../../../src/kubernetes/artifacts/verified-files.js';

function standInRoot(recipes: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'kc-bb-root-'));
  mkdirSync(join(root, 'bundle', 'recipes'), { recursive: true });
  writeFileSync(join(root, 'bundle', 'recipes', 'lib.sh'), 'set -euo pipefail\n');
  for (const [name, body] of Object.entries(recipes))
    writeFileSync(join(root, 'bundle', 'recipes', `${name}.sh`), `. "$(dirname "$0")/lib.sh"\nv=$1 out=$2\n${body}\n`);
  return root;
}

const stage = (name: string, version: string, sources: string[] = []): BuildStage => ({
  id: `${name}@${version}`,
  name,
  version,
  after: [],
  sources,
  go: false,
  origin: 'source',
});
const keyOf = (root: string, s: BuildStage): string => stageKey(s, { root, goToolchain: 'go1.26.8', arch: 'amd64', dependencyDirs: [] });

describe('bundle build stages (stand-in recipes)', () => {
  it('builds once into its cache folder, then finds it there without running the recipe', async () => {
    const runs = join(mkdtempSync(join(tmpdir(), 'kc-bb-')), 'runs');
    const root = standInRoot({ runc: `echo run >> ${runs}; echo "building $v"; printf 'runc %s\\n' "$v" > "$out/runc"` });
    const cacheDir = mkdtempSync(join(tmpdir(), 'kc-bb-cache-'));
    const s = stage('runc', 'v1.4.3');
    const key = keyOf(root, s);
    const first = await runStage(s, { root, cacheDir, key, env: {} });
    expect(first.cached).toBe(false);
    expect(first.dir).toBe(join(cacheDir, 'out', 'runc', `v1.4.3-${key}`));
    expect(readFileSync(join(first.dir, 'runc'), 'utf8')).toBe('runc v1.4.3\n');
    expect(readFileSync(first.log, 'utf8')).toContain('building v1.4.3');
    const second = await runStage(s, { root, cacheDir, key, env: {} });
    expect(second.cached).toBe(true);
    expect(second.dir).toBe(first.dir);
    expect(readFileSync(runs, 'utf8')).toBe('run\n');
  });

  it('a failing recipe leaves no output, names its log and shows its last lines', async () => {
    const root = standInRoot({ etcd: 'echo "compiling"; echo "go: module not found" >&2; exit 3' });
    const cacheDir = mkdtempSync(join(tmpdir(), 'kc-bb-cache-'));
    const s = stage('etcd', 'v3.6.16');
    const error = await runStage(s, { root, cacheDir, key: keyOf(root, s), env: {} }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StageFailedError);
    expect((error as StageFailedError).message).toBe(
      `etcd@v3.6.16: the recipe failed (exit 3); the whole log is ${join(cacheDir, 'logs', 'etcd-v3.6.16.log')}`,
    );
    expect((error as StageFailedError).tail).toContain('go: module not found');
    expect(readdirSync(join(cacheDir, 'out', 'etcd'))).toEqual([]);
  });

  it('an interrupted build ends the recipe and what it started, and leaves no output', async () => {
    const marker = `${40_000 + Math.floor(Math.random() * 50_000)}`;
    const root = standInRoot({ coredns: `touch "$out/half"; sleep ${marker}` });
    const cacheDir = mkdtempSync(join(tmpdir(), 'kc-bb-cache-'));
    const s = stage('coredns', 'v1.13.1');
    const controller = new AbortController();
    const pending = runStage(s, { root, cacheDir, key: keyOf(root, s), env: {}, signal: controller.signal }).catch((e: unknown) => e);
    const deadline = Date.now() + 5_000;
    const sleeping = (): boolean => {
      try {
        return execFileSync('pgrep', ['-f', `^sleep ${marker}$`]).length > 0;
      } catch {
        return false;
      }
    };
    while (!sleeping() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    controller.abort();
    const error = await pending;
    expect((error as Error).message).toMatch(/^coredns@v1.13.1: stopped/);
    expect(readdirSync(join(cacheDir, 'out', 'coredns'))).toEqual([]);
    await new Promise((r) => setTimeout(r, 200));
    expect(sleeping()).toBe(false);
  });

  it('the cache key follows the recipe, the shared library, the sources and the version', () => {
    const root = standInRoot({ 'kcluster-apiproxy': 'true' });
    mkdirSync(join(root, 'src', 'kubernetes', 'apiproxy'), { recursive: true });
    writeFileSync(join(root, 'src', 'kubernetes', 'apiproxy', 'main.go'), 'package main\n');
    const s = stage('kcluster-apiproxy', '1', ['src/kubernetes/apiproxy']);
    const before = keyOf(root, s);
    expect(keyOf(root, s)).toBe(before);
    expect(keyOf(root, { ...s, version: '2' })).not.toBe(before);
    writeFileSync(join(root, 'src', 'kubernetes', 'apiproxy', 'main.go'), 'package main // changed\n');
    const afterSource = keyOf(root, s);
    expect(afterSource).not.toBe(before);
    writeFileSync(join(root, 'bundle', 'recipes', 'lib.sh'), 'set -eu\n');
    const afterLib = keyOf(root, s);
    expect(afterLib).not.toBe(afterSource);
    writeFileSync(join(root, 'bundle', 'recipes', 'kcluster-apiproxy.sh'), 'true # changed\n');
    expect(keyOf(root, s)).not.toBe(afterLib);
  });

  it('assembles a bundle whose lock kcluster verifies, and finds it again the second time', async () => {
    const root = standInRoot({
      runc: `printf 'runc %s\\n' "$v" > "$out/runc"`,
      crictl: `printf 'crictl %s\\n' "$v" > "$out/crictl"`,
    });
    const cacheDir = mkdtempSync(join(tmpdir(), 'kc-bb-cache-'));
    const outputs = new Map<string, StageOutput>();
    for (const s of [stage('runc', 'v1.4.3'), stage('crictl', 'v1.36.0')])
      outputs.set(s.id, await runStage(s, { root, cacheDir, key: keyOf(root, s), env: {} }));
    const wanted = [
      { component: 'runc', version: 'v1.4.3' },
      { component: 'crictl', version: 'v1.36.0' },
    ];
    const built = await assembleBundle({ cacheDir, arch: 'amd64', hostArch: 'amd64', imageRepository: 'kcluster.local', wanted, outputs });
    expect(built.cached).toBe(false);
    expect(built.artifacts).toBe(2);
    expect(existsSync(`${built.dir}.partial`)).toBe(false);
    const lock = JSON.parse(readFileSync(join(built.dir, 'kcluster-bundle.json'), 'utf8')) as { artifacts: { path: string }[] };
    expect(lock.artifacts.map((a) => a.path)).toEqual(['crictl/v1.36.0/crictl', 'runc/v1.4.3/runc']);
    const bundle = await openBundle(built.dir, join(cacheDir, 'verify'));
    expect(await verifyBundle(bundle, new VerifiedFiles(join(cacheDir, 'verify')))).toEqual([]);
    const again = await assembleBundle({ cacheDir, arch: 'amd64', hostArch: 'amd64', imageRepository: 'kcluster.local', wanted, outputs });
    expect(again).toEqual({ ...built, cached: true });
  });
});
