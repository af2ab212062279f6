// `kcluster state` against a real S3 server (versitygw): every example of its help run as
// written, in a folder whose inventory.yaml keeps the state in the server's bucket: push a
// state folder, show, history, roll back to generation 41 of 42, break a gone controller's lease;
// a new controller pulls, and a cluster moves to another store by a pull and a push, or by
// `state migrate`, after which the old store is refused with where the state went.
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HELP_EXAMPLES } from '../../../src/cli/help-examples.js';
import { GenerationStore } from '../../../src/orchestrator/state-store/generations.js';
import { acquireLease } from '../../../src/orchestrator/state-store/lease.js';
import { S3Client } from '../../../src/orchestrator/state-store/s3/s3-client.js';
import { stateKeyFromFile } from '../../../src/orchestrator/state-store/state-key.js';
import { runCli } from '../../unit/cli/support/run-cli.js';
import { startS3Server, type S3TestServer } from '../support/s3-server.js';

let server: S3TestServer;
const dir = mkdtempSync(join(tmpdir(), 'kc-state-command-'));
const stateDir = join(dir, 'state');
let env: NodeJS.ProcessEnv;
const s3 = (): S3Client => new S3Client({ endpoint: server.endpoint, bucket: 'team-state', region: 'us-east-1', pathStyle: true }, server);
const examples = (path: string): string[] => [...(HELP_EXAMPLES[path] ?? [])];
/** The example's words after `kcluster`, each inventory named by its path in this folder (as the example is typed there). */
const run = (example: string) =>
  runCli(
    example
      .split(/\s+/)
      .slice(1)
      .map((word) => (word.endsWith('.yaml') ? join(dir, word) : word)),
    env,
    dir,
  );

beforeAll(async () => {
  server = await startS3Server({ versioned: true });
  await s3().createBucket();
  env = { AWS_ACCESS_KEY_ID: server.accessKeyId, AWS_SECRET_ACCESS_KEY: server.secretAccessKey, CI: 'true' };
  writeFileSync(join(dir, 'state.key'), randomBytes(32), { mode: 0o600 });
  writeFileSync(
    join(dir, 'inventory.yaml'),
    `cluster:\n  name: team\n  state:\n    s3: { endpoint: "${server.endpoint}", bucket: team-state, prefix: team/ }\n    key: { file: ./state.key }\nstateDir: ./state\nssh: { agent: true }\nhosts:\n  - { name: cp1, address: 10.231.99.11, roles: [control-plane] }\n`,
  );
  mkdirSync(join(stateDir, 'pki'), { recursive: true });
  writeFileSync(join(stateDir, 'pki', 'ca.key'), 'version 1', { mode: 0o600 });
}, 600_000);
afterAll(() => server?.stop());

describe('kcluster state, its help examples run as written', () => {
  it('has examples for each of its commands', () => {
    for (const path of ['state', 'state show', 'state history', 'state rollback', 'state unlock', 'state push', 'state pull', 'state migrate'])
      expect(examples(path), path).not.toEqual([]);
  });

  it('push publishes the state folder as the first generation', async () => {
    for (const example of examples('state push')) {
      const r = await run(example);
      expect(r.code, r.err).toBe(0);
      expect(r.err).toContain('1 file(s) published to s3://team-state/team/ as generation 1');
    }
  });

  it('show and history name the newest generation, its files and the lease', async () => {
    // 41 more generations, each with another ca.key, as 41 runs would leave.
    const generations = new GenerationStore(s3(), 'team/', stateKeyFromFile(join(dir, 'state.key')));
    for (let n = 2; n <= 42; n++)
      await generations.commit(
        await generations.head(),
        [{ path: 'pki/ca.key', content: Buffer.from(`version ${n}`), mode: 0o600 }],
        { machine: 'ci', pid: n, command: `kcluster apply (${n})` },
        'apply',
      );
    for (const example of examples('state show')) {
      const r = await run(example);
      expect(r.code, r.err).toBe(0);
      if (example.endsWith('-o json'))
        expect(JSON.parse(r.out)).toMatchObject({ store: 's3://team-state/team/', generation: 42, files: 1, lease: null, versioning: 'off' });
      else
        expect(r.out).toMatch(
          /^store: {7}s3:\/\/team-state\/team\/ \(sealed with ks-[0-9a-f]{16}; bucket versioning off\)\ngeneration: {2}42, .*by kcluster apply \(42\) \(pid 42 on ci\): apply\nfiles: {7}1 \(10 bytes\)\nlease: {7}free\n$/,
        );
    }
    for (const example of examples('state history')) {
      const r = await run(example);
      expect(r.code, r.err).toBe(0);
      expect(r.out.trim().split('\n')).toHaveLength(43);
      expect(r.out).toMatch(/\n41 +\S+ +kcluster apply \(41\) +ci +1 +apply\n/);
    }
  });

  it('rollback makes generation 43 hold what 41 held, and the state folder follows', async () => {
    for (const example of examples('state rollback')) {
      const r = await run(example);
      expect(r.code, r.err).toBe(0);
      expect(readFileSync(join(stateDir, 'pki', 'ca.key'), 'utf8')).toBe('version 41');
    }
    const show = JSON.parse((await run('kcluster state show -i inventory.yaml -o json')).out) as { generation: number; written: { reason: string } };
    expect(show).toMatchObject({ generation: 43, written: { reason: 'rollback to 41' } });
  });

  it("pull brings a new controller's empty folder to the newest generation; pull then push moves the state to another store", async () => {
    for (const example of examples('state pull')) {
      const r = await run(example);
      expect(r.code, r.err).toBe(0);
      expect(r.err).toMatch(/state holds generation 43 of s3:\/\/team-state\/team\/ \(1 file\(s\), written /);
    }
    // A second controller: the same inventory but an empty state folder of its own.
    const inventoryText = readFileSync(join(dir, 'inventory.yaml'), 'utf8');
    writeFileSync(join(dir, 'second.yaml'), inventoryText.replace('stateDir: ./state', 'stateDir: ./second-state'));
    const pulled = await runCli(['state', 'pull', '-i', join(dir, 'second.yaml')], env, dir);
    expect(pulled.code, pulled.err).toBe(0);
    expect(readFileSync(join(dir, 'second-state', 'pki', 'ca.key'), 'utf8')).toBe('version 41');
    // Moving to another store (another prefix here): the pulled folder pushed there.
    writeFileSync(join(dir, 'moved.yaml'), inventoryText.replace('stateDir: ./state', 'stateDir: ./second-state').replace('prefix: team/', 'prefix: moved/'));
    const pushed = await runCli(['state', 'push', '-i', join(dir, 'moved.yaml'), '--yes'], env, dir);
    expect(pushed.code, pushed.err).toBe(0);
    const moved = new GenerationStore(s3(), 'moved/', stateKeyFromFile(join(dir, 'state.key')));
    const files = await moved.files((await moved.head())!);
    expect(files.map((f) => [f.path, f.content.toString()])).toEqual([['pki/ca.key', 'version 41']]);
    // Without cluster.state there is nothing to pull from, said with the file.
    writeFileSync(join(dir, 'local.yaml'), inventoryText.replace(/ {2}state:\n.*\n.*\n/, ''));
    const local = await runCli(['state', 'pull', '-i', join(dir, 'local.yaml')], env, dir);
    expect(local.code).toBe(2);
    expect(local.err).toContain('local.yaml: no cluster.state');
  });

  it("unlock breaks a gone controller's lease, and says when there is none", async () => {
    await acquireLease(s3(), 'team/', { command: 'kcluster upgrade -i inventory.yaml', machine: 'laptop-gone', pid: 999, ttlSeconds: 3600 });
    const held = await run('kcluster state show -i inventory.yaml');
    expect(held.out).toMatch(/lease: {7}kcluster upgrade -i inventory.yaml \(pid 999 on laptop-gone, started [^)]+\); expires in \d+ s unless renewed/);
    for (const example of examples('state unlock')) {
      const r = await run(example);
      expect(r.code, r.err).toBe(0);
      expect(r.err).toContain('the lease of kcluster upgrade -i inventory.yaml on laptop-gone is broken');
      const again = await run(example);
      expect(again.err).toContain('no controller holds the lease of s3://team-state/team/: nothing to unlock');
    }
  });
  it('migrate copies the newest generation to an empty store and marks the old one as moved: the old store is refused from then on, naming the new one', async () => {
    const inventoryText = readFileSync(join(dir, 'inventory.yaml'), 'utf8');
    writeFileSync(join(dir, 'new-store.yaml'), inventoryText.replace('prefix: team/', 'prefix: new/'));
    writeFileSync(join(dir, 'other-cluster.yaml'), inventoryText.replace('prefix: team/', 'prefix: other/').replace('name: team', 'name: other'));
    const mismatch = await run('kcluster state migrate -i inventory.yaml --to other-cluster.yaml --yes');
    expect(mismatch.code).toBe(2);
    expect(mismatch.err).toContain('is cluster team, ' + join(dir, 'other-cluster.yaml') + ' is cluster other: both must name the same cluster');
    // Without --yes and no terminal: asked, so refused, nothing moved.
    const asked = await run('kcluster state migrate -i inventory.yaml --to new-store.yaml');
    expect(asked.code).toBe(2);
    for (const example of examples('state migrate')) {
      const r = await run(example);
      expect(r.code, r.err).toBe(0);
      expect(r.err).toMatch(
        /generation 43 of s3:\/\/team-state\/team\/ is generation 1 of s3:\/\/team-state\/new\/ \(1 file\(s\)\); s3:\/\/team-state\/team\/ is marked as moved/,
      );
    }
    const moved = new GenerationStore(s3(), 'new/', stateKeyFromFile(join(dir, 'state.key')));
    expect((await moved.files((await moved.head())!)).map((f) => [f.path, f.content.toString()])).toEqual([['pki/ca.key', 'version 41']]);
    // The old store: every command that would use it is refused with where the state went.
    for (const command of ['kcluster state pull -i inventory.yaml', 'kcluster state push -i inventory.yaml --yes']) {
      const old = await run(command);
      expect(old.code, command).toBe(2);
      expect(old.err).toMatch(
        /s3:\/\/team-state\/team\/ no longer holds the state of team: it moved to s3:\/\/team-state\/new\/ \(generation 43, .*\): set cluster\.state in .*inventory\.yaml to that store/,
      );
    }
    const again = await run('kcluster state pull -i new-store.yaml');
    expect(again.code, again.err).toBe(0);
    // A migrate stopped after its copy, before the old store was marked: run again, it finishes.
    writeFileSync(join(dir, 'third.yaml'), inventoryText.replace('prefix: team/', 'prefix: third/'));
    const third = new GenerationStore(s3(), 'third/', stateKeyFromFile(join(dir, 'state.key')));
    await third.commit(
      undefined,
      await moved.files((await moved.head())!),
      { machine: 'ci', pid: 1, command: 'kcluster state migrate (killed)' },
      'migrated from s3://team-state/new/ generation 1',
    );
    const resumed = await run('kcluster state migrate -i new-store.yaml --to third.yaml --yes');
    expect(resumed.code, resumed.err).toBe(0);
    expect(resumed.err).toContain(
      'is generation 1 of s3://team-state/third/ (1 file(s), copied by an earlier migrate that stopped); s3://team-state/new/ is marked as moved',
    );
    expect((await third.numbers()).length).toBe(1);
    // Back into the old store, which is marked as moved: refused.
    const full = await run('kcluster state migrate -i new-store.yaml --to second.yaml --yes');
    expect(full.code).toBe(2);
    expect(full.err).toContain('no longer holds the state');
  });
});
