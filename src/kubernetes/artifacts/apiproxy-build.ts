// kcluster-apiproxy with source: release. It is kcluster's own program (src/kubernetes/apiproxy,
// Go standard library only, no module to download), published in no release and no registry,
// so kcluster builds it on the controller from the source it ships with, with the controller's
// Go toolchain, offline (GOTOOLCHAIN=local, GOPROXY=off), static (CGO_ENABLED=0) and
// reproducible (-trimpath, no VCS stamp): the same source and Go version give the same bytes, cached by both.
// Then it is uploaded and installed like any binary. No Go on the controller: validate and apply
// refuse before any host is touched, naming the ways out (a load balancer, a bundle, Go).
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { packageRoot } from '../../orchestrator/util/package-root.js';
import { ArtifactError } from './artifact.js';

/** The oldest Go that builds it (src/kubernetes/apiproxy/go.mod). */
export const APIPROXY_MIN_GO = [1, 22] as const;
const SOURCE_FILES = ['go.mod', 'main.go'] as const;

export const apiproxySourceDir = (): string => join(packageRoot(), 'src', 'kubernetes', 'apiproxy');

function run(
  file: string,
  args: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; signal?: AbortSignal | undefined } = {},
): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(file, [...args], { ...options, encoding: 'utf8', maxBuffer: 4 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) reject(new Error(stderr.trim().split('\n').slice(-3).join(' ') || error.message));
      else resolve(stdout);
    });
  });
}

/** The `go` command on the controller: $KCLUSTER_GO, else the first `go` on PATH, else /usr/local/go/bin/go. */
export function findGo(env: Readonly<Record<string, string | undefined>> = process.env): string | undefined {
  if (env['KCLUSTER_GO']) return env['KCLUSTER_GO'];
  for (const dir of (env['PATH'] ?? '').split(delimiter).filter(Boolean)) {
    if (existsSync(join(dir, 'go'))) return join(dir, 'go');
  }
  return existsSync('/usr/local/go/bin/go') ? '/usr/local/go/bin/go' : undefined;
}

const refusal = (what: string, why: string): ArtifactError =>
  new ArtifactError(
    `${what}: with source: release and several control planes without a load balancer, every node runs kcluster-apiproxy, which no release publishes; kcluster builds it on this controller from ${apiproxySourceDir()} with Go ${APIPROXY_MIN_GO.join('.')} or newer, but ${why}: install Go (or point KCLUSTER_GO at it), set cluster.apiEndpoint.host to your load balancer, or use source: bundle`,
  );

/** The Go toolchain's version ("go1.26.8"), checked to build the proxy; an ArtifactError naming the ways out otherwise. */
export async function checkGoForApiproxy(
  what: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<{ go: string; version: string }> {
  const go = findGo(env);
  if (go === undefined) throw refusal(what, 'no go command was found (KCLUSTER_GO, PATH, /usr/local/go/bin)');
  let out: string;
  try {
    out = await run(go, ['env', 'GOVERSION']);
  } catch (error) {
    throw refusal(what, `${go} env GOVERSION failed (${(error as Error).message})`);
  }
  const version = out.trim();
  const match = /^go(\d+)\.(\d+)/.exec(version);
  const [major, minor] = APIPROXY_MIN_GO;
  if (!match || Number(match[1]) < major || (Number(match[1]) === major && Number(match[2]) < minor))
    throw refusal(what, `${go} is ${version || 'of an unknown version'}`);
  return { go, version };
}

/** Builds kcluster-apiproxy for linux/`arch` into the cache (once per source and Go version) and returns its path. */
export async function buildApiproxy(
  cacheDir: string,
  arch: string,
  what: string,
  options: { signal?: AbortSignal | undefined; log?: ((line: string) => void) | undefined; env?: Readonly<Record<string, string | undefined>> } = {},
): Promise<string> {
  const { go, version } = await checkGoForApiproxy(what, options.env);
  const source = apiproxySourceDir();
  const hash = createHash('sha256').update(`${version} linux/${arch}\n`);
  for (const file of SOURCE_FILES) hash.update(`${file}\n`).update(readFileSync(join(source, file)));
  const dir = join(cacheDir, 'apiproxy', hash.digest('hex').slice(0, 16));
  const binary = join(dir, 'kcluster-apiproxy');
  if (existsSync(binary)) return binary;
  await mkdir(dir, { recursive: true });
  const partial = `${binary}.${process.pid}.partial`;
  const started = Date.now();
  try {
    await run(go, ['build', '-trimpath', '-buildvcs=false', '-ldflags', '-s -w', '-o', partial, '.'], {
      cwd: source,
      signal: options.signal,
      env: { ...process.env, CGO_ENABLED: '0', GOOS: 'linux', GOARCH: arch, GOTOOLCHAIN: 'local', GOPROXY: 'off', GOWORK: 'off' },
    });
  } catch (error) {
    await rm(partial, { force: true });
    throw new ArtifactError(`${what}: building it from ${source} with ${go} (${version}) failed: ${(error as Error).message}`);
  }
  await rename(partial, binary);
  options.log?.(`built kcluster-apiproxy from ${source} with ${version} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
  return binary;
}
