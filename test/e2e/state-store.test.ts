// End to end, a cluster managed by a team through a state store (issue 41): 1 control plane +
// 1 worker from the bundle, the state in a real S3 server (versitygw, built from source) on the
// controller's loopback. Controller A installs; the store holds the state from before the
// first change on a host. Controller B, with nothing but the inventory, the store's credentials
// and the key, converges the same cluster with 0 changed and reaches its API. While A holds the
// lease, B is refused with A named; with the store down, B is refused before anything. A
// snapshot A saves is in the store, sealed, and B fetches it back.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acquireLease } from '../../src/orchestrator/state-store/lease.js';
import { S3Client } from '../../src/orchestrator/state-store/s3/s3-client.js';
import { kcluster } from '../integration/support/test-lab.js';
import { startS3Server, type S3TestServer } from '../integration/support/s3-server.js';
import { bundleDir, kubectlBinary, recapOf, until } from './support/e2e-support.js';

const run = promisify(execFile);
const NAME = 'kcestate';
const labDir = join(homedir(), '.kcluster', 'labs', NAME);
const work = mkdtempSync(join(tmpdir(), 'kc-state-store-'));
let server: S3TestServer;
let env: NodeJS.ProcessEnv;

/** The lab's inventory with the state in the store and this controller's own state folder. */
function inventoryFor(controller: string): string {
  const file = join(work, `${controller}.yaml`);
  const lab = readFileSync(join(labDir, 'inventory.yaml'), 'utf8');
  writeFileSync(
    file,
    lab
      .replace(/^stateDir: .*$/m, `stateDir: ${join(work, `state-${controller}`)}`)
      .replace(
        /^cluster:\n/m,
        `cluster:\n  state:\n    s3: { endpoint: "${server.endpoint}", bucket: kcluster, prefix: ${NAME}/ }\n    key: { file: ${join(work, 'state.key')} }\n`,
      ),
  );
  return file;
}

beforeAll(async () => {
  bundleDir();
  server = await startS3Server({ versioned: true });
  await new S3Client({ endpoint: server.endpoint, bucket: 'kcluster', region: 'us-east-1', pathStyle: true }, server).createBucket();
  env = { AWS_ACCESS_KEY_ID: server.accessKeyId, AWS_SECRET_ACCESS_KEY: server.secretAccessKey };
  // The key made as docs/users/state-store.md says.
  await run('sh', ['-c', 'umask 077; head -c 32 /dev/urandom | base64 > state.key'], { cwd: work });
  await kcluster(['lab', 'down', '--name', NAME]);
  const up = await kcluster(['lab', 'up', '--name', NAME, '--hosts', '2', '--privileged', '--subnet', '10.231.24.0/24', '--bundle', bundleDir()]);
  if (up.code !== 0) throw new Error(`lab up failed: ${up.stderr}`);
}, 900_000);
afterAll(async () => {
  if (!process.env['KCLUSTER_KEEP_E2E_LAB']) await kcluster(['lab', 'down', '--name', NAME]);
  await server?.stop();
});

describe('a cluster whose state is in a store', () => {
  it('controller A installs, publishing the state before the first change on a host', async () => {
    const a = inventoryFor('a');
    const apply = await kcluster(['apply', '-i', a], env);
    expect(apply.code, apply.stderr + apply.stdout.slice(-3000)).toBe(0);
    expect(apply.stderr).toMatch(/state published to s3:\/\/kcluster\/kcestate\/ as generation 1 \(cluster: before the first change on a host\)/);
    const history = JSON.parse((await kcluster(['state', 'history', '-i', a, '-o', 'json'], env)).stdout) as { reason: string; files: number }[];
    expect(history[0]!.files).toBeGreaterThan(20);
    const show = JSON.parse((await kcluster(['state', 'show', '-i', a, '-o', 'json'], env)).stdout) as { lease: unknown; generation: number };
    expect(show.lease).toBeNull();
  });

  it('controller B, with only the inventory, the credentials and the key, converges it with 0 changed and reaches its API', async () => {
    const b = inventoryFor('b');
    expect(existsSync(join(work, 'state-b'))).toBe(false);
    const apply = await kcluster(['apply', '-i', b, '--output', 'json'], env);
    expect(apply.code, apply.stderr + apply.stdout.slice(-3000)).toBe(0);
    expect(recapOf(apply.stdout).map((h) => h.changed)).toEqual([0, 0]);
    expect(apply.stderr).toMatch(/state from s3:\/\/kcluster\/kcestate\/ generation \d+: \d+ file\(s\) brought into /);
    const kubeconfig = join(work, 'b.conf');
    expect((await kcluster(['kubeconfig', '-i', b, '--file', kubeconfig], env)).code).toBe(0);
    const nodes = await until('both Nodes listed through B`s kubeconfig', 60_000, async () => {
      const out = await run(kubectlBinary(), ['--kubeconfig', kubeconfig, 'get', 'nodes', '-o', 'name']).then(
        (r) => r.stdout,
        () => '',
      );
      return out.trim().split('\n').length === 2 ? out : undefined;
    });
    expect(nodes).toContain(`node/${NAME}1`);
  });

  it('a snapshot A saves is in the store, sealed; B lists it and fetches it back byte for byte', async () => {
    const a = inventoryFor('a');
    const save = await kcluster(['etcd', 'snapshot', 'save', '-i', a], env);
    expect(save.code, save.stderr).toBe(0);
    const local = save.stdout.trim().split('\n').pop()!;
    const name = local.split('/').pop()!;
    expect(save.stderr).toContain(`sealed copy in s3://kcluster/${NAME}/snapshots/${name}.kce`);
    const b = inventoryFor('b');
    const list = JSON.parse((await kcluster(['etcd', 'snapshot', 'list', '-i', b, '-o', 'json'], env)).stdout) as {
      hosts: { host: string; snapshots: { name: string; kind: string }[] }[];
    };
    expect(list.hosts.find((h) => h.host === 'store')?.snapshots).toContainEqual(expect.objectContaining({ name, kind: 'stored' }));
    const fetch = await kcluster(['etcd', 'snapshot', 'fetch', '-i', b, '--from-store', name], env);
    expect(fetch.code, fetch.stderr).toBe(0);
    expect(readFileSync(fetch.stdout.trim()).equals(readFileSync(local))).toBe(true);
  });

  it('refuses B while A holds the lease, naming A; and refuses it before anything while the store is down', async () => {
    const b = inventoryFor('b');
    const s3 = new S3Client({ endpoint: server.endpoint, bucket: 'kcluster', region: 'us-east-1', pathStyle: true }, server);
    const held = await acquireLease(s3, `${NAME}/`, { command: `kcluster upgrade -i a.yaml`, machine: 'laptop-a', pid: 4242 });
    const refused = await kcluster(['apply', '-i', b], env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('another controller holds the lease s3://kcluster/kcestate/lease.json: kcluster upgrade -i a.yaml (pid 4242 on laptop-a');
    await held.release();
    await server.stop();
    const down = await kcluster(['apply', '-i', b], env);
    expect(down.code).toBe(2);
    expect(down.stderr).toMatch(/no answer after 4 tries .*check that the store at http:\/\/127\.0\.0\.1:\d+ is reachable/);
  });
});
