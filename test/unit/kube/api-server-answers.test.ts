// remove-node waits for the API server of the control plane it works through (issue 40, the
// soak: right after that control plane's power cycle it failed at once, and so did the rerun it
// advised), and so does upgrade (the soak's slice: a resumed upgrade was refused while the API
// server its interrupted run restarted came back). Against a fake API server (a real local HTTPS server) that answers 503 while it starts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient } from '../../../src/kubernetes/kube/api-client.js';
import { apiServerAnswers } from '../../../src/kubernetes/kube/api-server-answers.js';
import { InputError } from '../../../src/orchestrator/engine/input-error.js';
import { startFakeApiServer, type FakeApiServer } from './support/fake-api-server.js';

let server: FakeApiServer;
let starting = 0;
let asked = 0;

beforeAll(async () => {
  server = await startFakeApiServer((req, res) => {
    asked++;
    if (starting > 0) {
      starting--;
      return res.writeHead(503, { 'content-type': 'application/json' }).end(JSON.stringify({ kind: 'Status', message: 'starting' }));
    }
    const body =
      req.url === '/api/v1/nodes' ? { items: [{ metadata: { name: 'cp1' }, status: { nodeInfo: { kubeletVersion: 'v1.36.5' } } }] } : { gitVersion: 'v1.37.2' };
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
}, 60_000);
afterAll(() => server.close());

const api = () => apiClient({ server: server.url, caCert: server.ca.cert, clientCert: server.admin.cert, clientKey: server.admin.key }, 2_000);

describe('apiServerAnswers', () => {
  it('waits while the API server starts, then goes on', async () => {
    starting = 3;
    asked = 0;
    await apiServerAnswers(api(), server.url, { waitMs: 30_000, command: 'remove-node' });
    expect(asked).toBe(4);
  }, 40_000);

  it('gives up after its wait with the server, the tries, the last answer and what to do', async () => {
    starting = 1_000;
    const waiting = apiServerAnswers(api(), server.url, { waitMs: 2_500, command: 'remove-node' });
    await expect(waiting).rejects.toBeInstanceOf(InputError);
    await expect(waiting).rejects.toThrow(
      new RegExp(
        `the API server at ${server.url.replace(/\./g, '\\.')} did not answer within 3 s \\(\\d+ tries; last: .*starting.*\\): remove-node works through it`,
      ),
    );
    starting = 0;
  }, 20_000);
});

describe('upgrade reads the versions once the API server answers', () => {
  it('waits through a restart, then reads /version and the Nodes', async () => {
    const { currentVersions } = await import('../../../src/cli/commands/upgrade.js');
    starting = 2;
    const versions = await currentVersions(api(), server.url, { waitMs: 30_000 });
    expect(versions).toEqual({ apiServer: 'v1.37.2', kubelets: { cp1: 'v1.36.5' } });
  }, 40_000);
});
