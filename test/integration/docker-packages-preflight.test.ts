// The Docker path on a host whose package manager is gone (issue 42), over real SSH on the test
// lab: with apt-get moved away on one host, preflight's docker-packages check fails there
// naming docker.io, the missing apt-get and the containerd alternative; the hosts that still
// have apt-get pass it (the docker role would install the package). apt-get is put back after.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dockerPackagesCheckTask } from '../../roles/preflight/docker-packages.js';
import { loadInventory } from '../../src/kubernetes/inventory/load-inventory.js';
import type { RunEvent } from '../../src/orchestrator/engine/events.js';
import { runPlaybook } from '../../src/orchestrator/engine/run-playbook.js';
import { createSshConnector } from '../../src/orchestrator/ssh/connector.js';
import { hostKeyPolicyFor } from '../../src/orchestrator/ssh/host-key-policy-for.js';
import { inventoryVariant, sshHost, testLab, type TestLab } from './support/test-lab.js';

const MOVED = '/usr/bin/apt-get.moved-by-docker-packages-test';

describe('preflight docker-packages on lab hosts (real SSH)', () => {
  let lab: TestLab;
  beforeAll(async () => {
    lab = testLab();
    const moved = await sshHost(lab, lab.hosts[0]!.name, `mv /usr/bin/apt-get ${MOVED}`);
    if (moved.code !== 0) throw new Error(`could not move apt-get away on ${lab.hosts[0]!.name}: ${moved.stderr}`);
  });
  afterAll(async () => {
    await sshHost(lab, lab.hosts[0]!.name, `[ ! -e ${MOVED} ] || mv ${MOVED} /usr/bin/apt-get`);
  });

  it('refuses the host without apt-get, naming what the Docker path needs; passes those with it', async () => {
    const file = inventoryVariant(lab, (doc) => {
      doc['cluster'] = { ...(doc['cluster'] as object), containerRuntime: 'docker' };
    });
    const loaded = await loadInventory(file, { env: process.env });
    if (!loaded.ok) throw new Error(loaded.errors.map((e) => e.message).join('\n'));
    const inventory = loaded.inventory;
    const connector = createSshConnector({ inventory, env: process.env, hostKeys: hostKeyPolicyFor(inventory, process.env), log: () => {} });
    const events: RunEvent[] = [];
    const summary = await runPlaybook({
      inventory,
      playbook: {
        name: 'docker-packages',
        description: "preflight's docker-packages check alone",
        plays: [{ name: 'preflight', hosts: 'all', roles: [{ name: 'preflight', tasks: [dockerPackagesCheckTask(new Set())] }] }],
      },
      connect: (host, signal) => connector.connect(host, signal),
      concurrency: 8,
      check: true,
      diff: false,
      events: { emit: (e) => events.push(e) },
      signal: new AbortController().signal,
    });
    const results = new Map(events.flatMap((e) => (e.type === 'task-result' ? [[e.host, e] as const] : [])));
    const victim = results.get(lab.hosts[0]!.name);
    expect(victim?.status).toBe('failed');
    expect(victim?.error).toContain('OS packages docker.io (dockerPackages), which the bundle does not carry, and this host has no apt-get');
    expect(victim?.error).toContain('containerRuntime: containerd');
    for (const other of lab.hosts.slice(1)) {
      expect(results.get(other.name)?.status, other.name).toBe('ok');
      expect(results.get(other.name)?.reason, other.name).toBe('docker.io to be installed with apt-get by the docker role');
    }
    expect(summary.exitCode).not.toBe(0);
  });
});
