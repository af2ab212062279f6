// A command's hold on a cluster whose state is in a store, against a real S3 server
// (versitygw): the first controller publishes its state folder; a second one with an empty
// folder gets it; while one holds the lease the other is refused with the holder named; the
// store wins over a folder's own files (moved aside, never uploaded); a store of another cluster
// or another key, and missing credentials, are refused by name before anything is read.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStateSession, unpublishedPath, type SessionOptions } from '../../../src/cli/state-store/state-session.js';
import { cuttableProxy } from '../support/cuttable-proxy.js';
import { fetchStoredSnapshot, listStoredSnapshots } from '../../../src/cli/state-store/stored-snapshots.js';
import { offBoxCopyFor } from '../../../src/orchestrator/state-store/off-box-copies.js';
import { parseInventory } from '../../../src/kubernetes/inventory/load-inventory.js';
import type { Inventory } from '../../../src/orchestrator/inventory/model.js';
import { S3Client } from '../../../src/orchestrator/state-store/s3/s3-client.js';
import { runCli } from '../../unit/cli/support/run-cli.js';
import { startS3Server, type S3TestServer } from '../support/s3-server.js';

let server: S3TestServer;
const dir = mkdtempSync(join(tmpdir(), 'kc-state-session-'));
const keyFile = join(dir, 'state.key');
const said: string[] = [];

function inventoryFor(name: string, options: { cluster?: string; prefix?: string; keyFile?: string; key?: string; snapshotsKeep?: number } = {}): Inventory {
  const stateDir = join(dir, name);
  mkdirSync(stateDir, { recursive: true });
  const file = join(dir, `${name}.yaml`);
  writeFileSync(
    file,
    [
      'cluster:',
      `  name: ${options.cluster ?? 'prod'}`,
      '  state:',
      `    s3: { endpoint: "${server.endpoint}", bucket: state, prefix: "${options.prefix ?? 'prod/'}" }`,
      `    key: ${options.key ?? `{ file: ${options.keyFile ?? keyFile} }`}`,
      '    leaseSeconds: 15',
      ...(options.snapshotsKeep !== undefined ? [`    snapshots: { keep: ${options.snapshotsKeep} }`] : []),
      `stateDir: ${stateDir}`,
      'ssh: { agent: true }',
      'hosts:',
      '  - { name: cp1, address: 10.231.99.11, roles: [control-plane] }',
      '',
    ].join('\n'),
  );
  const parsed = parseInventory(readFileSync(file, 'utf8'), file, { env: {} });
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
  return parsed.inventory;
}

const options = (command: string, env: Record<string, string> = {}): SessionOptions => ({
  command,
  env: { AWS_ACCESS_KEY_ID: server.accessKeyId, AWS_SECRET_ACCESS_KEY: server.secretAccessKey, ...env },
  say: (line) => void said.push(line),
  onLost: (error) => void said.push(`lost: ${error.message}`),
});

beforeAll(async () => {
  server = await startS3Server();
  await new S3Client({ endpoint: server.endpoint, bucket: 'state', region: 'us-east-1', pathStyle: true }, server).createBucket();
  writeFileSync(keyFile, randomBytes(32), { mode: 0o600 });
}, 600_000);
afterAll(() => server?.stop());

describe('the state session', () => {
  it('publishes the first controller`s state folder; a second controller with an empty folder gets every file of it', async () => {
    const a = inventoryFor('controller-a');
    mkdirSync(join(a.stateDir, 'pki', 'etcd'), { recursive: true });
    writeFileSync(join(a.stateDir, 'pki', 'ca.key'), 'CA KEY', { mode: 0o600 });
    writeFileSync(join(a.stateDir, 'pki', 'etcd', 'ca.crt'), 'ETCD CA', { mode: 0o644 });
    writeFileSync(join(a.stateDir, 'known_hosts'), 'cp1 ssh-ed25519 AAAA\n', { mode: 0o600 });
    mkdirSync(join(a.stateDir, 'logs'));
    writeFileSync(join(a.stateDir, 'logs', 'run.log'), 'not state');
    const session = (await openStateSession(a, options('kcluster apply -i a.yaml')))!;
    await session.close('apply: completed');
    expect(said).toContain('state published to s3://state/prod/ as generation 1 (apply: completed)');

    const b = inventoryFor('controller-b');
    const second = (await openStateSession(b, options('kcluster apply -i b.yaml')))!;
    expect(readFileSync(join(b.stateDir, 'pki', 'ca.key'), 'utf8')).toBe('CA KEY');
    expect(readFileSync(join(b.stateDir, 'pki', 'etcd', 'ca.crt'), 'utf8')).toBe('ETCD CA');
    expect(readFileSync(join(b.stateDir, 'known_hosts'), 'utf8')).toBe('cp1 ssh-ed25519 AAAA\n');
    expect(existsSync(join(b.stateDir, 'logs'))).toBe(false);
    // Nothing changed: closing publishes nothing.
    said.length = 0;
    await second.close('apply: completed');
    expect(said.filter((l) => l.startsWith('state published'))).toEqual([]);
  });

  it('refuses a second controller while one holds the lease, naming it', async () => {
    const a = inventoryFor('controller-a');
    const held = (await openStateSession(a, options('kcluster upgrade -i a.yaml')))!;
    const b = inventoryFor('controller-b');
    await expect(openStateSession(b, options('kcluster apply -i b.yaml'))).rejects.toThrow(
      /another controller holds the lease s3:\/\/state\/prod\/lease.json: kcluster upgrade -i a.yaml \(pid \d+ on /,
    );
    await held.close('upgrade: completed');
  });

  it('the store wins: a changed file is brought back, a file only the folder has is moved aside, never uploaded', async () => {
    const b = inventoryFor('controller-b');
    const writer = (await openStateSession(b, options('kcluster certs renew -i b.yaml')))!;
    writeFileSync(join(b.stateDir, 'pki', 'ca.key'), 'CA KEY, renewed', { mode: 0o600 });
    await writer.close('certs renew: completed');
    const a = inventoryFor('controller-a');
    writeFileSync(join(a.stateDir, 'pki', 'stray.key'), 'made here only', { mode: 0o600 });
    said.length = 0;
    const session = (await openStateSession(a, options('kcluster apply -i a.yaml')))!;
    expect(readFileSync(join(a.stateDir, 'pki', 'ca.key'), 'utf8')).toBe('CA KEY, renewed');
    expect(existsSync(join(a.stateDir, 'pki', 'stray.key'))).toBe(false);
    const aside = readdirSync(join(a.stateDir, 'untrusted'));
    expect(readFileSync(join(a.stateDir, 'untrusted', aside[0]!, 'pki', 'stray.key'), 'utf8')).toBe('made here only');
    expect(said.some((l) => l.startsWith('pki/stray.key is in the state folder but not in the store`s generation 2'.replace('`', "'")))).toBe(true);
    await session.close('apply: completed');
  });

  it('while a session is open, a snapshot the controller saves is copied into the store, sealed; any controller lists and fetches it back', async () => {
    const a = inventoryFor('controller-a');
    const session = (await openStateSession(a, options('kcluster etcd snapshot save -i a.yaml')))!;
    const copy = offBoxCopyFor(a.stateDir)!;
    mkdirSync(join(a.stateDir, 'backups'), { recursive: true });
    const file = join(a.stateDir, 'backups', 'etcd-2026-11-28T10-00-00-000Z.db');
    const content = randomBytes(3 * 1024 * 1024 + 5);
    writeFileSync(file, content, { mode: 0o600 });
    expect(await copy(file)).toBe('sealed copy in s3://state/prod/snapshots/etcd-2026-11-28T10-00-00-000Z.db.kce');
    expect(readdirSync(join(a.stateDir, 'backups'))).toEqual(['etcd-2026-11-28T10-00-00-000Z.db']);
    await session.close('etcd snapshot save: completed');
    expect(offBoxCopyFor(a.stateDir)).toBeUndefined();
    // The store's copy is sealed: not the snapshot's bytes.
    const stored = await new S3Client({ endpoint: server.endpoint, bucket: 'state', region: 'us-east-1', pathStyle: true }, server).get(
      'prod/snapshots/etcd-2026-11-28T10-00-00-000Z.db.kce',
    );
    expect(stored!.body.includes(content.subarray(0, 64))).toBe(false);
    const b = inventoryFor('controller-b');
    const env = options('x').env;
    expect((await listStoredSnapshots(b, env)).map((s) => [s.name, s.kind])).toEqual([['etcd-2026-11-28T10-00-00-000Z.db', 'stored']]);
    const fetched = (await fetchStoredSnapshot(b, env, 'etcd-2026-11-28T10-00-00-000Z.db'))!;
    expect(fetched.file).toBe(join(b.stateDir, 'backups', 'etcd-2026-11-28T10-00-00-000Z.db'));
    expect(readFileSync(fetched.file).equals(content)).toBe(true);
    expect(await fetchStoredSnapshot(b, env, 'etcd-none.db')).toBeUndefined();
  });

  it('keeps the newest cluster.state.snapshots.keep snapshots in the store, deleting older ones after each copy and saying so', async () => {
    const c = inventoryFor('controller-c', { prefix: 'kept/', snapshotsKeep: 2 });
    const session = (await openStateSession(c, options('kcluster etcd snapshot save -i c.yaml')))!;
    const copy = offBoxCopyFor(c.stateDir)!;
    mkdirSync(join(c.stateDir, 'backups'), { recursive: true });
    const messages: string[] = [];
    for (const n of [1, 2, 3]) {
      const file = join(c.stateDir, 'backups', `etcd-2026-11-28T10-00-0${n}-000Z.db`);
      writeFileSync(file, randomBytes(1024), { mode: 0o600 });
      messages.push(await copy(file));
      // The store stamps each object to the second: a second apart, their order is theirs.
      await new Promise((r) => setTimeout(r, 1100));
    }
    await session.close('etcd snapshot save: completed');
    expect(messages[1]).toBe('sealed copy in s3://state/kept/snapshots/etcd-2026-11-28T10-00-02-000Z.db.kce');
    expect(messages[2]).toBe(
      'sealed copy in s3://state/kept/snapshots/etcd-2026-11-28T10-00-03-000Z.db.kce; 1 older snapshot(s) removed from the store (the newest 2 kept: cluster.state.snapshots)',
    );
    expect((await listStoredSnapshots(c, options('x').env)).map((s) => s.name)).toEqual([
      'etcd-2026-11-28T10-00-02-000Z.db',
      'etcd-2026-11-28T10-00-03-000Z.db',
    ]);
  });

  it('a passphrase: the salt is recorded in a new store, a second controller derives the same key from it; another passphrase, or a passphrase for a store made with a key, is refused', async () => {
    const passphrase = { key: '{ passphraseEnv: KCLUSTER_STATE_PASSPHRASE }', prefix: 'pass/' };
    const a = inventoryFor('pass-a', passphrase);
    writeFileSync(join(a.stateDir, 'known_hosts'), 'cp1 ssh-ed25519 PASS\n', { mode: 0o600 });
    const right = { KCLUSTER_STATE_PASSPHRASE: 'correct horse battery staple' };
    await (await openStateSession(a, options('kcluster trust -i a.yaml cp1', right)))!.close('trust: completed');
    const header = JSON.parse(
      (await new S3Client({ endpoint: server.endpoint, bucket: 'state', region: 'us-east-1', pathStyle: true }, server).get(
        'pass/kcluster-state.json',
      ))!.body.toString(),
    ) as { kdf: { salt: string; N: number } };
    expect(header.kdf.salt).toMatch(/^[A-Za-z0-9+/]{22}==$/);
    expect(header.kdf.N).toBe(2 ** 17);
    const b = inventoryFor('pass-b', passphrase);
    await (await openStateSession(b, options('kcluster apply -i b.yaml', right)))!.close('apply: completed');
    expect(readFileSync(join(b.stateDir, 'known_hosts'), 'utf8')).toBe('cp1 ssh-ed25519 PASS\n');
    await expect(
      openStateSession(inventoryFor('pass-c', passphrase), options('kcluster apply', { KCLUSTER_STATE_PASSPHRASE: 'another horse battery staple' })),
    ).rejects.toThrow(/s3:\/\/state\/pass\/ is sealed with the state key ks-[0-9a-f]{16}, and the passphrase in KCLUSTER_STATE_PASSPHRASE is ks-[0-9a-f]{16}/);
    await expect(
      openStateSession(inventoryFor('pass-d', { key: '{ passphraseEnv: KCLUSTER_STATE_PASSPHRASE }' }), options('kcluster apply', right)),
    ).rejects.toThrow('s3://state/prod/ was made with a key, not a passphrase: give that key (key.file or key.env)');
  }, 60_000);

  it("mirrors the run journal: a run made on one controller is in the store, and another controller's status shows it (and what it left)", async () => {
    const a = inventoryFor('journal-a', { prefix: 'journal/' });
    mkdirSync(join(a.stateDir, 'journal'), { recursive: true });
    const run = '2026-11-26T23-03-41-135Z-f699.jsonl';
    writeFileSync(join(a.stateDir, 'journal', run), readFileSync('test/fixtures/journal/interrupted.jsonl'), { mode: 0o600 });
    const session = (await openStateSession(a, options('kcluster apply -i a.yaml')))!;
    await session.commit('apply: before the first change on a host');
    await session.close('apply: interrupted');
    const b = inventoryFor('journal-b', { prefix: 'journal/' });
    said.length = 0;
    await (await openStateSession(b, options('kcluster facts -i b.yaml')))!.close('facts: completed');
    expect(said).toContain('the journal of 1 run(s) made on other controllers brought from s3://state/journal/ (kcluster status reads it)');
    expect(readFileSync(join(b.stateDir, 'journal', run)).equals(readFileSync(join(a.stateDir, 'journal', run)))).toBe(true);
    // A third controller's status, with nothing of its own: the store's journal, read-only.
    const c = inventoryFor('journal-c', { prefix: 'journal/' });
    const status = await runCli(['status', '-i', c.file, '-o', 'json'], options('x').env);
    expect(status.code, status.err).toBe(0);
    expect(status.err).toContain('the journal of 1 run(s) made on other controllers brought from s3://state/journal/');
    expect((JSON.parse(status.out) as { last: { result: string } }).last.result).not.toBe('completed');
  });

  it('a store cut off at the end of a run: its changes stay in the folder, marked; the next command refuses until state push publishes them', async () => {
    const proxy = await cuttableProxy(Number(new URL(server.endpoint).port));
    const through = (name: string): Inventory => {
      const inventory = inventoryFor(name, { prefix: 'cut/' });
      const file = inventory.file;
      writeFileSync(file, readFileSync(file, 'utf8').replace(server.endpoint, `http://127.0.0.1:${proxy.port}`));
      const parsed = parseInventory(readFileSync(file, 'utf8'), file, { env: {} });
      if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
      return parsed.inventory;
    };
    try {
      const a = through('cut-a');
      writeFileSync(join(a.stateDir, 'known_hosts'), 'cp1 ssh-ed25519 ONE\n', { mode: 0o600 });
      const session = (await openStateSession(a, options('kcluster apply -i a.yaml')))!;
      await session.commit('apply: before the first change on a host');
      writeFileSync(join(a.stateDir, 'known_hosts'), 'cp1 ssh-ed25519 ONE\ncp2 ssh-ed25519 TWO\n', { mode: 0o600 });
      await proxy.cut();
      await expect(session.close('apply: completed')).rejects.toThrow(/no answer after 4 tries/);
      expect(JSON.parse(readFileSync(unpublishedPath(a.stateDir), 'utf8'))).toMatchObject({ reason: 'apply: completed' });
      await proxy.heal();
      await expect(openStateSession(a, options('kcluster apply -i a.yaml'))).rejects.toThrow(
        `holds changes that apply: completed could not publish to the state store`,
      );
      // The lease the cut-off run held was not released: state push waits for it to expire (15 s here).
      await new Promise((r) => setTimeout(r, 16_000));
      const push = await runCli(['state', 'push', '-i', a.file, '--yes'], options('x').env);
      expect(push.code, push.err).toBe(0);
      expect(existsSync(unpublishedPath(a.stateDir))).toBe(false);
      const b = through('cut-b');
      await (await openStateSession(b, options('kcluster apply -i b.yaml')))!.close('apply: completed');
      expect(readFileSync(join(b.stateDir, 'known_hosts'), 'utf8')).toBe('cp1 ssh-ed25519 ONE\ncp2 ssh-ed25519 TWO\n');
    } finally {
      await proxy.close();
    }
  }, 90_000);

  it('refuses a store of another cluster, another key, and missing credentials, by name', async () => {
    await expect(openStateSession(inventoryFor('other', { cluster: 'staging' }), options('kcluster apply'))).rejects.toThrow(
      's3://state/prod/ holds the state of the cluster prod, not staging: give each cluster its own cluster.state.s3.prefix',
    );
    const otherKey = join(dir, 'other.key');
    writeFileSync(otherKey, randomBytes(32), { mode: 0o600 });
    await expect(openStateSession(inventoryFor('wrong-key', { keyFile: otherKey }), options('kcluster apply'))).rejects.toThrow(
      /s3:\/\/state\/prod\/ is sealed with the state key ks-[0-9a-f]{16}, and the key file .*other.key is ks-[0-9a-f]{16}: give the key this store was made with/,
    );
    const inv = inventoryFor('no-credentials');
    await expect(openStateSession(inv, { ...options('kcluster apply'), env: {} })).rejects.toThrow(
      new RegExp(
        `${inv.file}:4:9: cluster.state.s3.accessKeyIdEnv \\(not set: derived from cluster.state.s3\\): the environment variable AWS_ACCESS_KEY_ID is not set`,
      ),
    );
  });
});
