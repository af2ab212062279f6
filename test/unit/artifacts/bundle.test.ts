// Bundles: the lock file, verification (missing, truncated, corrupt pieces), tarballs, image
// IDs read from OCI archives, and `kcluster artifacts verify` / `artifacts list`.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, readFileSync, appendFileSync, cpSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseBundleLock } from '../../../src/kubernetes/artifacts/bundle-lock.js';
import { prepareArtifacts } from '../../../src/kubernetes/artifacts/prepare-artifacts.js';
import { requiredArtifacts } from '../../../src/kubernetes/artifacts/required-artifacts.js';
import { runCli, type CliResult } from '../cli/support/run-cli.js';
import { parseInventory } from '../../../src/kubernetes/inventory/load-inventory.js';
import type { Inventory } from '../../../src/orchestrator/inventory/model.js';
import { writeStandInBundle } from '../../support/stand-in-bundle.js';

const dir = mkdtempSync(join(tmpdir(), 'kc-bundle-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function inventoryText(bundle: string): string {
  return `cluster:\n  artifacts: { source: bundle, bundle: ${bundle}, cacheDir: ${join(dir, 'cache')} }\nssh: { agent: true }\nhosts:\n  - { name: cp1, address: 10.0.0.1, roles: [control-plane] }\n  - { name: w1, address: 10.0.0.2, roles: [worker] }\n`;
}
function inventory(bundle: string): Inventory {
  const result = parseInventory(inventoryText(bundle), join(dir, 'inventory.yaml'), { env: {}, homeDir: dir });
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return result.inventory;
}

const kcluster = (args: string[]): Promise<CliResult> => runCli(args, { HOME: dir, CI: 'true' });

const good = join(dir, 'good');
const imageIds = writeStandInBundle(good, requiredArtifacts(inventory(good)));

describe('bundles (stand-in binaries, real OCI archives)', () => {
  it('prepares every artifact from the bundle, with image IDs read from the archives', async () => {
    const prepared = await prepareArtifacts(inventory(good));
    const pause = prepared.find((a) => a.name === 'pause')!;
    expect(pause.imageId).toBe(imageIds.get('pause'));
    expect(pause.reference).toBe('kcluster.local/pause:3.10.2');
    expect(pause.origin).toEqual({ kind: 'bundle', bundle: good, path: 'images/pause-3.10.2.tar' });
    const kubelet = prepared.find((a) => a.name === 'kubelet')!;
    expect(kubelet.localPath).toBe(join(good, 'kubernetes', 'v1.37.2', 'kubelet'));
    expect(kubelet.installPath).toBe('/usr/local/bin/kubelet');
  });

  it('`artifacts verify` passes a good bundle and a tarball of it, and lists its versions', async () => {
    const ok = await kcluster(['artifacts', 'verify', '--bundle', good]);
    expect(ok.code).toBe(0);
    expect(ok.out).toMatch(/artifacts verified/);
    expect(ok.out).toContain('  kubernetes: v1.37.2');
    const tarball = join(dir, 'good.tar.gz');
    execFileSync('tar', ['-czf', tarball, '-C', dir, 'good']);
    const fromTar = await kcluster(['artifacts', 'verify', '--bundle', tarball]);
    expect(fromTar.code).toBe(0);
    expect((await prepareArtifacts(inventory(tarball))).length).toBe(requiredArtifacts(inventory(tarball)).length);
  });

  it('names each missing, truncated or corrupt piece with its expected sha256, exit 4; apply-time preparation refuses before any host', async () => {
    const bad = join(dir, 'bad');
    cpSync(good, bad, { recursive: true });
    const lock = parseBundleLock(readFileSync(join(bad, 'kcluster-bundle.json'), 'utf8'), 'lock');
    const kubelet = lock.artifacts.find((a) => a.name === 'kubelet')!;
    const ctr = lock.artifacts.find((a) => a.name === 'ctr')!;
    const pause = lock.artifacts.find((a) => a.name === 'pause')!;
    rmSync(join(bad, kubelet.path));
    appendFileSync(join(bad, ctr.path), 'x');
    const pauseBytes = readFileSync(join(bad, pause.path));
    pauseBytes[pauseBytes.length - 600] = (pauseBytes[pauseBytes.length - 600]! + 1) % 256;
    writeFileSync(join(bad, pause.path), pauseBytes);
    const result = await kcluster(['artifacts', 'verify', '--bundle', bad]);
    expect(result.code).toBe(4);
    expect(result.err).toContain(
      `kubernetes/kubelet v1.37.2 (amd64, binary): kubernetes/v1.37.2/kubelet is missing from the bundle (expected sha256 ${kubelet.sha256})`,
    );
    expect(result.err).toContain(`containerd/ctr v2.2.9 (amd64, binary): containerd/v2.2.9/ctr has ${ctr.size + 1} bytes, the lock says ${ctr.size}`);
    expect(result.err).toMatch(new RegExp(`pause/pause 3.10.2 \\(amd64, image\\): images/pause-3.10.2.tar has sha256 [0-9a-f]{64}, expected ${pause.sha256}`));
    expect(result.err).toContain('3 of');
    await expect(prepareArtifacts(inventory(bad))).rejects.toThrow(/3 artifact problems \(bundle .*\); nothing was installed on any host/);
  });

  it('rejects a lock file it does not understand, and a bundle without the needed version', async () => {
    const odd = join(dir, 'odd');
    cpSync(good, odd, { recursive: true });
    writeFileSync(
      join(odd, 'kcluster-bundle.json'),
      JSON.stringify({
        kind: 'kcluster-bundle',
        formatVersion: 1,
        arch: 'amd64',
        artifacts: [{ name: 'x', component: 'x', version: '1', arch: 'amd64', type: 'binary', path: '../etc/passwd', size: 1, sha256: 'a'.repeat(64) }],
      }),
    );
    const result = await kcluster(['artifacts', 'verify', '--bundle', odd]);
    expect(result.code).toBe(2);
    expect(result.err).toContain(`${join(odd, 'kcluster-bundle.json')}: not a kcluster bundle lock file: /artifacts/0/path must match pattern`);
    const older = parseInventory(inventoryText(good).replace('cluster:\n', 'cluster:\n  kubernetesVersion: v1.36.5\n'), join(dir, 'i2.yaml'), {
      env: {},
      homeDir: dir,
    });
    if (!older.ok) throw new Error('bad inventory');
    await expect(prepareArtifacts(older.inventory)).rejects.toThrow(
      `kubernetes/kubelet v1.36.5 (amd64, binary): not in bundle ${good}: rebuild the bundle with this version`,
    );
  });

  it('names fanOut: false as a way out when a bundle built before fan-out serves more than 2 hosts', async () => {
    const three = parseInventory(`${inventoryText(good)}  - { name: w2, address: 10.0.0.3, roles: [worker] }\n`, join(dir, 'i3.yaml'), {
      env: {},
      homeDir: dir,
    });
    if (!three.ok) throw new Error('bad inventory');
    await expect(prepareArtifacts(three.inventory)).rejects.toThrow(
      `kcluster-relay/kcluster-relay 1 (amd64, binary): not in bundle ${good} (built before artifact fan-out): rebuild the bundle (kcluster bundle build), or set cluster.artifacts.fanOut: false`,
    );
  });

  it('`artifacts list` shows what the inventory needs, on which hosts, from where', async () => {
    const file = join(dir, 'list.yaml');
    writeFileSync(file, inventoryText(good));
    const result = await kcluster(['artifacts', 'list', '-i', file]);
    expect(result.code).toBe(0);
    expect(result.out).toMatch(/^kubernetes\s+kube-apiserver\s+v1\.37\.2\s+image\s+amd64\s+cp1\s+bundle /m);
    expect(result.out).toMatch(/^kubernetes\s+kubelet\s+v1\.37\.2\s+binary\s+amd64\s+all\s+bundle /m);
    const fetched = await kcluster(['artifacts', 'list', '-i', file, '--fetch']);
    expect(fetched.out).toMatch(/^pause\s+pause\s+3\.10\.2\s+image\s+amd64\s+all\s+bundle:images\/pause-3\.10\.2\.tar sha256:[0-9a-f]{64}$/m);
  });

  it('hosts of another architecture than the bundle are refused before anything, named, with the bundle to build', async () => {
    const mixed = parseInventory(`${inventoryText(good)}  - { name: a1, address: 10.0.0.3, roles: [worker], arch: arm64 }\n`, join(dir, 'mixed.yaml'), {
      env: {},
      homeDir: dir,
    });
    if (!mixed.ok) throw new Error(JSON.stringify(mixed.errors));
    await expect(prepareArtifacts(mixed.inventory, { resolveOnly: true })).rejects.toThrow(
      `bundle ${good} holds amd64 artifacts; a1 is arm64 (arch in the inventory): build a bundle for arm64 (kcluster bundle build --arch arm64) and name it in cluster.artifacts.bundle, or correct their arch (a bundle holds one architecture, so one cluster's hosts share one)`,
    );
  });
});
