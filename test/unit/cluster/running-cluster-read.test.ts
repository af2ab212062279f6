// What apply reads from a running cluster, against a fake API server (a real local HTTPS server
// with certificates from kcluster's own signer, answering canned lists): a list that fails is
// asked again for a bounded time and then stops the run with the server and path named; it is
// never taken as empty.
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readRunningCluster, RunningClusterReadError } from '../../../src/kubernetes/cluster/running-cluster.js';
import { startFakeApiServer, type FakeApiServer } from '../kube/support/fake-api-server.js';

let server: FakeApiServer;
let port = 0;
let stateDir = '';
/** Requests to the etcd pod list that fail (HTTP 503) before one answers. */
let podListFailures = 0;
let podListRequests = 0;
/** Requests to /version that fail (HTTP 503: an API server restarting) before one answers. */
let versionFailures = 0;
let versionRequests = 0;

beforeAll(async () => {
  server = await startFakeApiServer((req, res) => {
    const json = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (req.url === '/version') {
      versionRequests++;
      if (versionFailures > 0) {
        versionFailures--;
        return json(503, { kind: 'Status', reason: 'ServiceUnavailable', message: 'starting' });
      }
      return json(200, { gitVersion: 'v1.37.2' });
    }
    if (req.url === '/api/v1/nodes')
      return json(200, {
        items: [
          { metadata: { name: 'cp1' }, status: { nodeInfo: { kubeletVersion: 'v1.37.2' } } },
          { metadata: { name: 'cp3', labels: { 'node-role.kubernetes.io/control-plane': '' } }, status: { nodeInfo: { kubeletVersion: 'v1.37.2' } } },
        ],
      });
    if (req.url?.startsWith('/api/v1/namespaces/kube-system/pods')) {
      podListRequests++;
      if (podListFailures > 0) {
        podListFailures--;
        return json(503, { kind: 'Status', reason: 'ServiceUnavailable', message: 'the server is currently unable to handle the request' });
      }
      return json(200, { items: [{ spec: { nodeName: 'cp2' } }, { spec: { nodeName: 'cp1' } }] });
    }
    return json(404, { kind: 'Status', reason: 'NotFound', message: 'not found' });
  });
  port = server.port;
  stateDir = mkdtempSync(join(tmpdir(), 'kc-running-'));
  mkdirSync(join(stateDir, 'pki'));
  writeFileSync(join(stateDir, 'pki', 'ca.crt'), server.ca.cert);
  writeFileSync(join(stateDir, 'pki', 'admin.crt'), server.admin.cert);
  writeFileSync(join(stateDir, 'pki', 'admin.key'), server.admin.key);
}, 120_000);
afterAll(() => server.close());

const topology = () => ({ adminServerUrl: `https://127.0.0.1:${port}`, controlPlanes: [], apiPort: port });

describe('reading a running cluster (fake API server)', () => {
  it('reads its version, kubelets and etcd members', async () => {
    podListFailures = 0;
    const running = await readRunningCluster(stateDir, topology());
    expect(running?.gitVersion).toBe('v1.37.2');
    expect([...(running?.kubelets ?? [])]).toEqual([
      ['cp1', 'v1.37.2'],
      ['cp3', 'v1.37.2'],
    ]);
    expect(running?.etcdMembers).toEqual(['cp1', 'cp2', 'cp3']);
  });

  it('asks a list again when the API server is busy, and gets it', async () => {
    podListFailures = 2;
    podListRequests = 0;
    const running = await readRunningCluster(stateDir, topology());
    expect(running?.etcdMembers).toEqual(['cp1', 'cp2', 'cp3']);
    expect(podListRequests).toBe(3);
  }, 20_000);

  // Regression (issue 40): certs renew killed while the API server restarted; the rerun status
  // named found /version answering and the lists not yet, and refused after 3 tries (exit 2).
  it('keeps asking while an API server that answers its version does not serve lists yet (past the 3 tries it once gave)', async () => {
    podListFailures = 5;
    podListRequests = 0;
    const running = await readRunningCluster(stateDir, topology(), undefined, undefined, { listWaitMs: 60_000 });
    expect(running?.etcdMembers).toEqual(['cp1', 'cp2', 'cp3']);
    expect(podListRequests).toBe(6);
  }, 40_000);

  it('stops, naming the server, the list and the wait, when a list never comes: no empty member list', async () => {
    podListFailures = 1_000;
    podListRequests = 0;
    const read = readRunningCluster(stateDir, topology(), undefined, undefined, { listWaitMs: 4_000 });
    await expect(read).rejects.toBeInstanceOf(RunningClusterReadError);
    await expect(read).rejects.toThrow(
      new RegExp(
        `the API server at https://127\\.0\\.0\\.1:${port} answered its version but not GET /api/v1/namespaces/kube-system/pods\\?labelSelector=component%3Detcd within 4 s \\(\\d tries\\)`,
      ),
    );
    expect(podListRequests).toBeGreaterThanOrEqual(2);
    podListFailures = 0;
  }, 20_000);

  it('takes no answer at once for a fresh install, by default', async () => {
    versionFailures = 1;
    let why = '';
    const running = await readRunningCluster(stateDir, topology(), undefined, undefined, { noAnswer: (w) => void (why = w) });
    expect(running).toBeUndefined();
    expect(why).toMatch(new RegExp(`^https://127\\.0\\.0\\.1:${port}: .*503`));
    versionFailures = 0;
  });

  // Regression (issue 40, the soak): a resumed secrets rotate-key on one control plane was
  // refused ("no cluster answers") while the API server its interrupted run restarted came back.
  it('waits for an API server to answer when the command needs a running cluster', async () => {
    versionFailures = 3;
    versionRequests = 0;
    const running = await readRunningCluster(stateDir, topology(), undefined, undefined, { answerWaitMs: 30_000 });
    expect(running?.gitVersion).toBe('v1.37.2');
    expect(versionRequests).toBe(4);
  }, 40_000);

  it('gives up after the wait with each server named and why', async () => {
    versionFailures = 1_000;
    let why = '';
    const started = Date.now();
    const running = await readRunningCluster(stateDir, topology(), undefined, undefined, { answerWaitMs: 3_000, noAnswer: (w) => void (why = w) });
    expect(running).toBeUndefined();
    expect(Date.now() - started).toBeGreaterThanOrEqual(3_000);
    expect(why).toContain(`https://127.0.0.1:${port}: `);
    versionFailures = 0;
  }, 20_000);
});
