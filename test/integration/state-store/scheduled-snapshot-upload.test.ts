// kcluster-snapshot-upload, the Go program the control planes run after each scheduled etcd
// snapshot (cluster.state.scheduledSnapshots), built from its source here and run against a real
// S3 server (versitygw) with the settings file the role writes, as a user of the server that the
// bucket policy of examples/ limits to its folder: the copies arrive sealed for the state key,
// `kcluster etcd snapshot fetch --from-store` opens them byte for byte, retention keeps the
// newest per host, a store that cannot be reached leaves the snapshots unmarked and the next run
// catches up, the upload credential reaches nothing else of the store, and another key or a
// changed byte is refused by name. The snapshot files are random bytes: the uploader copies
// files and never reads them as etcd data.
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findGo } from '../../../src/kubernetes/artifacts/apiproxy-build.js';
import { snapshotUploadConfig } from '../../../src/kubernetes/etcd/scheduled-snapshot-upload.js';
import { loadInventory } from '../../../src/kubernetes/inventory/load-inventory.js';
import type { Inventory } from '../../../src/orchestrator/inventory/model.js';
import { recipientOf } from '../../../src/orchestrator/state-store/recipient-envelope.js';
import { S3Client } from '../../../src/orchestrator/state-store/s3/s3-client.js';
import { openRecipientFile } from '../../../src/orchestrator/state-store/sealed-file.js';
import { stateKeyFromBytes, stateKeyFromFile } from '../../../src/orchestrator/state-store/state-key.js';
import { runCli } from '../../unit/cli/support/run-cli.js';
import { repoRoot } from '../support/test-lab.js';
import { startS3Server, type S3TestServer } from '../support/s3-server.js';
import { snapshotUploaderPolicy } from '../support/snapshot-uploader-policy.js';

const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'kc-snapshot-upload-'));
const localDir = join(dir, 'host', 'scheduled');
const uploader = join(dir, 'kcluster-snapshot-upload');
let server: S3TestServer;
let inventory: Inventory;
let env: NodeJS.ProcessEnv;
const s3 = (): S3Client => new S3Client({ endpoint: server.endpoint, bucket: 'team-state', region: 'us-east-1', pathStyle: true }, server);
const sha256 = (file: string): string => createHash('sha256').update(readFileSync(file)).digest('hex');
const UPLOADER = { accessKeyId: 'cp-uploader', secretAccessKey: randomBytes(18).toString('base64') };

/** The settings file the role writes for cp1, pointed at this test's folder (and, to cut the store off, at a closed port). */
function writeConfig(overrides: Record<string, unknown> = {}): string {
  const key = stateKeyFromFile(join(dir, 'state.key'));
  const written = JSON.parse(
    snapshotUploadConfig(inventory, 'cp1', {
      credential: UPLOADER,
      recipient: recipientOf(key),
    }),
  ) as Record<string, unknown>;
  const file = join(dir, 'snapshot-upload.json');
  writeFileSync(file, JSON.stringify({ ...written, localDir, ...overrides }), { mode: 0o600 });
  return file;
}

async function upload(config: string): Promise<{ code: number; out: string; err: string }> {
  try {
    const { stdout, stderr } = await run(uploader, ['-config', config]);
    return { code: 0, out: stdout, err: stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, out: e.stdout, err: e.stderr };
  }
}

function snapshot(time: string, bytes: number): string {
  const name = `etcd-scheduled-cp1-2026-11-28T${time}Z.db`;
  writeFileSync(join(localDir, name), randomBytes(bytes), { mode: 0o600 });
  return name;
}

async function storedKeys(): Promise<string[]> {
  const keys: string[] = [];
  for await (const o of s3().list('team/scheduled-snapshots/')) keys.push(o.key);
  return keys.sort();
}

beforeAll(async () => {
  const go = findGo();
  if (go === undefined) throw new Error('no Go toolchain: the uploader is built from src/kubernetes/snapshot-upload (install Go or set KCLUSTER_GO)');
  await run(go, ['build', '-trimpath', '-o', uploader, '.'], {
    cwd: join(repoRoot, 'src', 'kubernetes', 'snapshot-upload'),
    env: { ...process.env, CGO_ENABLED: '0', GOTOOLCHAIN: 'local', GOPROXY: 'off', GOFLAGS: '-buildvcs=false' },
  });
  server = await startS3Server({ users: true });
  await s3().createBucket();
  await server.addUser(UPLOADER.accessKeyId, UPLOADER.secretAccessKey);
  await server.putBucketPolicy('team-state', snapshotUploaderPolicy('team-state', 'team/', UPLOADER.accessKeyId));
  env = { AWS_ACCESS_KEY_ID: server.accessKeyId, AWS_SECRET_ACCESS_KEY: server.secretAccessKey, CI: 'true' };
  writeFileSync(join(dir, 'state.key'), randomBytes(32), { mode: 0o600 });
  mkdirSync(localDir, { recursive: true });
  mkdirSync(join(dir, 'bundle'));
  writeFileSync(
    join(dir, 'inventory.yaml'),
    [
      'cluster:',
      '  name: team',
      '  artifacts: { source: bundle, bundle: ./bundle }',
      '  state:',
      `    s3: { endpoint: "${server.endpoint}", bucket: team-state, prefix: team/ }`,
      '    key: { file: ./state.key }',
      '    scheduledSnapshots: { accessKeyIdEnv: SNAP_ID, secretAccessKeyEnv: SNAP_SECRET, keep: 2 }',
      'stateDir: ./state',
      'ssh: { agent: true }',
      'hosts:',
      '  - { name: cp1, address: 10.231.99.11, roles: [control-plane] }',
      '',
    ].join('\n'),
  );
  const loaded = await loadInventory(join(dir, 'inventory.yaml'), { env: {} });
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.errors));
  inventory = loaded.inventory;
}, 600_000);
afterAll(() => server?.stop());

describe('scheduled snapshots copied into the store by a control plane (kcluster-snapshot-upload)', () => {
  const names: string[] = [];

  it('copies every unmarked snapshot, oldest first, sealed, marks each, and keeps the newest 2 in the store', async () => {
    // One chunk and a bit, exactly one chunk (1 MiB: the last-chunk flag on a full chunk), three chunks and a bit.
    names.push(snapshot('00-00-00', 10), snapshot('12-00-00', 1_048_576), snapshot('18-00-00', 2_500_017));
    const r = await upload(writeConfig());
    expect(r.code, r.err).toBe(0);
    expect(r.out.match(/^uploaded /gm)).toHaveLength(3);
    expect(r.out.indexOf(names[0]!)).toBeLessThan(r.out.indexOf(names[2]!));
    expect(r.out).toContain(`removed s3://team-state/team/scheduled-snapshots/cp1/${names[0]}.kcp from the store (the newest 2 kept)`);
    for (const name of names) expect(existsSync(join(localDir, `${name}.uploaded`)), name).toBe(true);
    expect(await storedKeys()).toEqual(names.slice(1).map((n) => `team/scheduled-snapshots/cp1/${n}.kcp`));
    // Nothing of the sealing stays beside the snapshots.
    expect(readdirSync(localDir).filter((f) => f.startsWith('.'))).toEqual([]);
  });

  it('the stored copy is not the snapshot: it is sealed (KCP1) and names the state key, not the bytes', async () => {
    const got = await s3().get(`team/scheduled-snapshots/cp1/${names[2]}.kcp`);
    expect(got!.body.subarray(0, 4).toString()).toBe('KCP1');
    expect(got!.body.includes(readFileSync(join(localDir, names[2]!)).subarray(0, 64))).toBe(false);
    expect(got!.body.toString('latin1')).toContain(stateKeyFromFile(join(dir, 'state.key')).fingerprint);
  });

  it('kcluster etcd snapshot fetch --from-store opens a control plane copy byte for byte, of several chunks or exactly one', async () => {
    for (const name of [names[2]!, names[1]!]) {
      const r = await runCli(
        ['etcd', 'snapshot', 'fetch', '-i', join(dir, 'inventory.yaml'), '--from-store', name, '--file', join(dir, 'fetched.db')],
        env,
        dir,
      );
      expect(r.code, r.err).toBe(0);
      expect(r.err).toContain(`fetched s3://team-state/team/scheduled-snapshots/cp1/${name}.kcp`);
      expect(sha256(join(dir, 'fetched.db'))).toBe(sha256(join(localDir, name)));
    }
  });

  it("a copy in another host's folder under a name that says cp1 took it is not cp1's snapshot", async () => {
    const elsewhere = join(dir, 'cp2-scheduled');
    mkdirSync(elsewhere);
    const forged = 'etcd-scheduled-cp1-2026-11-27T00-00-00Z.db';
    writeFileSync(join(elsewhere, forged), randomBytes(100));
    const r = await upload(writeConfig({ localDir: elsewhere, folder: 'scheduled-snapshots/cp2/', namePrefix: 'etcd-scheduled-cp1-' }));
    expect(r.code, r.err).toBe(0);
    const fetch = await runCli(
      ['etcd', 'snapshot', 'fetch', '-i', join(dir, 'inventory.yaml'), '--from-store', forged, '--file', join(dir, 'forged.db')],
      env,
      dir,
    );
    expect(fetch.code).toBe(2);
    expect(fetch.err).toContain(`the state store has no snapshot ${forged}`);
    await s3().delete(`team/scheduled-snapshots/cp2/${forged}.kcp`);
  });

  it('a second run has nothing to copy', async () => {
    const r = await upload(writeConfig());
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain('nothing to upload');
  });

  it('a store that cannot be reached: exit 1, the snapshot stays unmarked, and the next run copies it', async () => {
    names.push(snapshot('23-00-00', 5000));
    const cutOff = await upload(writeConfig({ endpoint: 'http://127.0.0.1:9' }));
    expect(cutOff.code).toBe(1);
    expect(cutOff.err).toContain(`not uploaded: ${names[3]}`);
    expect(cutOff.err).toContain('the next run tries again');
    expect(existsSync(join(localDir, `${names[3]}.uploaded`))).toBe(false);
    const back = await upload(writeConfig());
    expect(back.code, back.err).toBe(0);
    expect(back.out).toContain(`uploaded ${names[3]}`);
    expect(await storedKeys()).toEqual([names[2], names[3]].map((n) => `team/scheduled-snapshots/cp1/${n}.kcp`));
  }, 60_000);

  it('the upload credential reaches nothing else of the store: no read, no write or delete outside its folder, no listing', async () => {
    await s3().put('team/kcluster-state.json', Buffer.from('{"format":1}'));
    const uploader = new S3Client({ endpoint: server.endpoint, bucket: 'team-state', region: 'us-east-1', pathStyle: true }, UPLOADER);
    await expect(uploader.get('team/kcluster-state.json')).rejects.toThrow(/HTTP 403 AccessDenied/);
    await expect(uploader.get(`team/scheduled-snapshots/cp1/${names[2]}.kcp`)).rejects.toThrow(/HTTP 403 AccessDenied/);
    await expect(uploader.put('team/kcluster-state.json', Buffer.from('{}'))).rejects.toThrow(/HTTP 403 AccessDenied/);
    await expect(uploader.delete('team/kcluster-state.json')).rejects.toThrow(/HTTP 403 AccessDenied/);
    const listing = async (prefix: string): Promise<string[]> => {
      const keys: string[] = [];
      for await (const o of uploader.list(prefix)) keys.push(o.key);
      return keys;
    };
    await expect(listing('team/')).rejects.toThrow(/HTTP 403 AccessDenied/);
    expect(await listing('team/scheduled-snapshots/')).toHaveLength(2);
    expect((await s3().get('team/kcluster-state.json'))!.body.toString()).toBe('{"format":1}');
  });

  it('another state key, or one changed byte in the store, is refused by name', async () => {
    const key = `team/scheduled-snapshots/cp1/${names[3]}.kcp`;
    const sealed = join(dir, 'sealed.kcp');
    await s3().getFile(key, sealed);
    const other = stateKeyFromBytes(randomBytes(32), 'another key');
    await expect(openRecipientFile(other, `scheduled-snapshots/cp1/${names[3]}`, sealed, join(dir, 'x.db'), key)).rejects.toThrow(
      /was sealed for the state key ks-[0-9a-f]{16}, and another key is ks-/,
    );
    const bytes = readFileSync(sealed);
    const at = bytes.length - 100;
    bytes.writeUInt8(bytes.readUInt8(at) ^ 1, at);
    await s3().put(key, bytes);
    const r = await runCli(
      ['etcd', 'snapshot', 'fetch', '-i', join(dir, 'inventory.yaml'), '--from-store', names[3]!, '--file', join(dir, 'bad.db')],
      env,
      dir,
    );
    expect(r.code).toBe(2);
    expect(r.err).toContain('fails its authentication at chunk 1 (the last)');
    expect(existsSync(join(dir, 'bad.db'))).toBe(false);
  });
});
