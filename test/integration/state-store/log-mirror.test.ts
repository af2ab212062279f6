// The runs' debug logs in the state store, against a real S3 server (versitygw): a session
// copies the logs written while it holds the store, sealed, again when they grew, and never one
// written before it; `kcluster state pull` on another controller brings them back byte for
// byte; the store keeps the newest LOGS_KEPT.
import { randomBytes } from 'node:crypto';
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOGS_KEPT, LogMirror } from '../../../src/cli/state-store/log-mirror.js';
import { openStateSession, storeOf } from '../../../src/cli/state-store/state-session.js';
import { parseInventory } from '../../../src/kubernetes/inventory/load-inventory.js';
import type { Inventory } from '../../../src/orchestrator/inventory/model.js';
import { S3Client } from '../../../src/orchestrator/state-store/s3/s3-client.js';
import { runCli } from '../../unit/cli/support/run-cli.js';
import { startS3Server, type S3TestServer } from '../support/s3-server.js';

let server: S3TestServer;
const dir = mkdtempSync(join(tmpdir(), 'kc-log-mirror-'));
const said: string[] = [];
let env: Record<string, string>;
const s3 = (): S3Client => new S3Client({ endpoint: server.endpoint, bucket: 'state', region: 'us-east-1', pathStyle: true }, server);
const RUN_LOG = '2026-11-28T10-00-00-000Z-cluster.log';

function inventoryFor(name: string): Inventory {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(
    file,
    `cluster:\n  name: prod\n  state:\n    s3: { endpoint: "${server.endpoint}", bucket: state, prefix: prod/ }\n    key: { file: ${join(dir, 'state.key')} }\nstateDir: ${join(dir, name)}\nssh: { agent: true }\nhosts:\n  - { name: cp1, address: 10.231.99.11, roles: [control-plane] }\n`,
  );
  mkdirSync(join(dir, name, 'logs'), { recursive: true });
  const parsed = parseInventory(readFileSync(file, 'utf8'), file, { env: {} });
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
  return parsed.inventory;
}

async function storedLogs(): Promise<string[]> {
  const keys: string[] = [];
  for await (const o of s3().list('prod/logs/')) keys.push(o.key.slice('prod/logs/'.length));
  return keys.sort();
}

beforeAll(async () => {
  server = await startS3Server();
  await s3().createBucket();
  writeFileSync(join(dir, 'state.key'), randomBytes(32), { mode: 0o600 });
  env = { AWS_ACCESS_KEY_ID: server.accessKeyId, AWS_SECRET_ACCESS_KEY: server.secretAccessKey };
}, 600_000);
afterAll(() => server?.stop());

describe('the runs` logs in the store', () => {
  it('a session copies the logs written while it holds the store, sealed, again when they grew; never an older one', async () => {
    const a = inventoryFor('a');
    const older = join(a.stateDir, 'logs', '2026-01-01T00-00-00-000Z-cluster.log');
    writeFileSync(older, 'a run of January\n');
    utimesSync(older, new Date('2026-01-01T00:00:00Z'), new Date('2026-01-01T00:00:00Z'));
    const session = (await openStateSession(a, { command: 'kcluster apply', env, say: (l) => void said.push(l), onLost: () => undefined }))!;
    const log = join(a.stateDir, 'logs', RUN_LOG);
    writeFileSync(log, 'plan: 3 hosts\nsecret words that must not be readable in the store\n');
    await session.commit('apply: before the first change on a host');
    expect(await storedLogs(), said.join('\n')).toEqual([`${RUN_LOG}.kce`]);
    const sealed = (await s3().get(`prod/logs/${RUN_LOG}.kce`))!.body;
    expect(sealed.subarray(0, 4).toString()).toBe('KCE1');
    expect(sealed.toString('latin1')).not.toContain('secret words');
    appendFileSync(log, 'recap: 3 hosts ok\n');
    await session.close('apply: completed');
    expect((await s3().get(`prod/logs/${RUN_LOG}.kce`))!.body.length).toBeGreaterThan(sealed.length);
  });

  it('kcluster state pull on another controller brings them back byte for byte, and skips a damaged one, naming it', async () => {
    const b = inventoryFor('b');
    // A damaged log is said and skipped; the others come.
    await s3().put('prod/logs/2026-11-28T11-00-00-000Z-cluster.log.kce', Buffer.from('not sealed'));
    const r = await runCli(['state', 'pull', '-i', b.file], env, dir);
    expect(r.code, r.err).toBe(0);
    expect(r.err).toContain(`1 run log(s) brought from s3://state/prod/ into ${join(b.stateDir, 'logs')}`);
    expect(r.err).toContain(
      'kcluster: a run log was not brought: s3://state/prod/logs/2026-11-28T11-00-00-000Z-cluster.log.kce is not an object kcluster sealed',
    );
    await s3().delete('prod/logs/2026-11-28T11-00-00-000Z-cluster.log.kce');
    expect(readFileSync(join(b.stateDir, 'logs', RUN_LOG), 'utf8')).toBe(readFileSync(join(dir, 'a', 'logs', RUN_LOG), 'utf8'));
    const again = await runCli(['state', 'pull', '-i', b.file], env, dir);
    expect(again.err).not.toContain('run log(s) brought');
  });

  it(`keeps the newest ${LOGS_KEPT} logs in the store`, async () => {
    const c = inventoryFor('c');
    const names = Array.from(
      { length: LOGS_KEPT + 2 },
      (_, i) => `2026-11-29T${String(Math.floor(i / 60)).padStart(2, '0')}-${String(i % 60).padStart(2, '0')}-00-000Z-cluster.log`,
    );
    for (const name of names) writeFileSync(join(c.stateDir, 'logs', name), `${name}\n`);
    const store = await storeOf(c, env);
    expect(await new LogMirror(store.s3, store.prefix, store.key, c.stateDir, 0).push()).toBe(names.length);
    const kept = await storedLogs();
    expect(kept).toHaveLength(LOGS_KEPT);
    // The oldest went: the January-less one of A and the first two of these.
    expect(kept).not.toContain(`${RUN_LOG}.kce`);
    expect(kept).not.toContain(`${names[1]}.kce`);
    expect(kept).toContain(`${names.at(-1)}.kce`);
  }, 120_000);
});
