// `kcluster kubeconfig` for several control planes without a load balancer: a context per
// control plane, the current one at the first whose API port answers now (a real listening port
// on 127.0.0.3 stands for the one API server up; 127.0.0.2 answers nothing). With a load
// balancer: one context, at it.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ensureClusterPki } from '../../../src/kubernetes/pki/cluster-pki.js';
import { pkiSpecOf } from '../../../src/kubernetes/cluster/pki-spec.js';
import { topologyOf } from '../../../src/kubernetes/cluster/topology.js';
import { parseInventory } from '../../../src/kubernetes/inventory/load-inventory.js';
import { runCli } from './support/run-cli.js';

let server: Server;
let port: number;
const dir = mkdtempSync(join(tmpdir(), 'kc-kubeconfig-'));

function inventoryFile(apiEndpoint: string): string {
  const file = join(dir, `inventory-${apiEndpoint ? 'lb' : 'nolb'}.yaml`);
  writeFileSync(
    file,
    `ssh: {agent: true}\nstateDir: ${join(dir, 'state')}\ncluster:\n  name: demo\n  apiEndpoint: {${apiEndpoint}port: ${port}}\nhosts:\n` +
      ['2', '3', '4'].map((i) => `  - {name: cp${i}, address: 127.0.0.${i}, roles: [control-plane]}\n`).join(''),
  );
  return file;
}

beforeAll(async () => {
  server = createServer((socket) => socket.end());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.3', resolve));
  port = (server.address() as AddressInfo).port;
  const first = inventoryFile('');
  const inv = parseInventory(readFileSync(first, 'utf8'), first, { env: {} });
  if (!inv.ok) throw new Error(JSON.stringify(inv.errors));
  await ensureClusterPki(inv.inventory.stateDir, pkiSpecOf(inv.inventory, topologyOf(inv.inventory)));
}, 60_000);
afterAll(() => void server.close());

describe('the admin kubeconfig', () => {
  it('without a load balancer: a context per control plane, the current one at the first that answers', async () => {
    const r = await runCli(['kubeconfig', '-i', inventoryFile(''), '--file', join(dir, 'admin.conf')]);
    expect(r.code, r.err).toBe(0);
    expect(r.err).toContain(
      `(server https://127.0.0.3:${port}; a context per control plane: kubernetes-admin@demo-cp2, kubernetes-admin@demo-cp3, kubernetes-admin@demo-cp4 (kubectl --context NAME when cp3 is down))`,
    );
    const config = parse(readFileSync(join(dir, 'admin.conf'), 'utf8')) as {
      clusters: { name: string; cluster: { server: string } }[];
      'current-context': string;
      contexts: { name: string }[];
    };
    expect(config.clusters.map((c) => `${c.name} ${c.cluster.server}`)).toEqual([
      `demo https://127.0.0.3:${port}`,
      ...['2', '3', '4'].map((i) => `demo-cp${i} https://127.0.0.${i}:${port}`),
    ]);
    expect(config['current-context']).toBe('kubernetes-admin@demo');
    expect(config.contexts.map((c) => c.name)).toEqual([
      'kubernetes-admin@demo',
      'kubernetes-admin@demo-cp2',
      'kubernetes-admin@demo-cp3',
      'kubernetes-admin@demo-cp4',
    ]);
  });
  it('with a load balancer: one context, at it', async () => {
    const r = await runCli(['kubeconfig', '-i', inventoryFile('host: 127.0.0.9, ')]);
    expect(r.code, r.err).toBe(0);
    const config = parse(r.out) as { clusters: { name: string; cluster: { server: string } }[] };
    expect(config.clusters.map((c) => `${c.name} ${c.cluster.server}`)).toEqual([`demo https://127.0.0.9:${port}`]);
  });

  it('writes nothing in the state folder, a missing admin certificate included (it runs without the state lock)', async () => {
    const pki = join(dir, 'state', 'pki');
    rmSync(join(pki, 'admin.crt'));
    rmSync(join(pki, 'admin.key'));
    const before = readdirSync(pki, { recursive: true }).sort();
    const r = await runCli(['kubeconfig', '-i', inventoryFile('host: 127.0.0.9, ')]);
    expect(r.code, r.err).toBe(0);
    // The kubeconfig has a client certificate all the same (made in memory, from the cluster CA).
    expect((parse(r.out) as { users: { user: Record<string, string> }[] }).users[0]!.user['client-certificate-data']).toMatch(/^[A-Za-z0-9+/=]{100,}$/);
    expect(readdirSync(pki, { recursive: true }).sort()).toEqual(before);
  });
});
