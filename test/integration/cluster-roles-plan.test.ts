// The cluster roles planned in check mode against fresh lab hosts over real SSH: the smoke run
// of the real path. The role plan tests themselves are unit tests over facts recorded from such
// hosts (test/unit/roles/cluster-plan-*.test.ts, recordings in test/fixtures/facts/); this run
// checks that the real hosts still plan as those recordings do, task for task, so a changed lab
// image shows here and `npm run record:facts` refreshes the recordings.
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { Inventory } from '../../src/orchestrator/inventory/model.js';
import { createSshConnector } from '../../src/orchestrator/ssh/connector.js';
import { hostKeyPolicyFor } from '../../src/orchestrator/ssh/host-key-policy-for.js';
import { planScenario, type Scenario } from '../support/plan-scenario.js';
import { planOverRecording, recordedInventory } from '../support/recorded-facts/plan-over-recording.js';
import { testLab } from './support/test-lab.js';

const sshConnect = (inventory: Inventory, log: (line: string) => void) => {
  const connector = createSshConnector({ inventory, env: process.env, hostKeys: hostKeyPolicyFor(inventory, process.env), log });
  return (host: Parameters<typeof connector.connect>[0], signal: AbortSignal) => connector.connect(host, signal);
};

/** Per host (by its place: control plane, first worker, second worker) and role, the planned tasks. */
const byPlace = (plan: Scenario, hosts: readonly string[]): string[][] =>
  hosts.map((h) => plan.planned.filter((p) => p.host === h).map((p) => `${p.role}: ${p.task}`));

describe('cluster roles planned on fresh lab hosts (check mode, real SSH)', () => {
  let lab: ReturnType<typeof testLab>;
  let real: Scenario;
  beforeAll(async () => {
    lab = testLab();
    real = await planScenario({ base: parse(readFileSync(lab.inventoryFile, 'utf8')) as Record<string, unknown>, connect: sshConnect });
  }, 180_000);

  it('plans every role without a failure, would change something, and shows no secret', () => {
    expect(real.failures).toEqual([]);
    expect(real.exitCode).toBe(3);
    expect(real.tasks(lab.hosts[1]!.name, 'kubelet')).toContain('file /var/lib/kubelet/config.yaml');
    expect(real.tasks(lab.hosts[0]!.name, 'control-plane')[0]).toBe('user etcd');
    expect(JSON.stringify(real.planned) + real.log.join('\n')).not.toMatch(/PRIVATE KEY|client-key-data/);
  });

  it('plans each host task for task as the recorded fresh hosts do (else: npm run record:facts)', async () => {
    const recorded = await planOverRecording('empty-debian');
    const recordedHosts = (recordedInventory('empty-debian')['hosts'] as { name: string }[]).map((h) => h.name);
    expect(
      byPlace(
        real,
        lab.hosts.map((h) => h.name),
      ),
    ).toEqual(byPlace(recorded, recordedHosts));
  });
});
