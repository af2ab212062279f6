// The remove-node playbook's plays and tasks, built for a cluster whose PKI is installed (the
// shared test PKI; no host is reached: which control plane answers is given): with
// --unreachable, the out-of-service taint comes between the etcd member's removal and the
// Node's deletion; a reachable node is drained and reset as before, never tainted.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { removeNodePlaybook } from '../../../playbooks/remove-node.js';
import type { Inventory } from '../../../src/orchestrator/inventory/model.js';
import { parseInventory } from '../../../src/kubernetes/inventory/load-inventory.js';
import { sharedPkiStateDir } from '../../support/shared-pki.js';

let inventory: Inventory;

beforeAll(async () => {
  const stateDir = await sharedPkiStateDir();
  const file = join(stateDir, 'inventory.yaml');
  const text =
    `ssh: {user: root, keyFile: /test/id_ed25519}\nstateDir: ${stateDir}\ncluster:\n  name: lab\n  apiEndpoint: {host: 10.0.0.100, port: 6443}\nhosts:\n` +
    ['cp1', 'cp2', 'cp3'].map((name, i) => `  - {name: ${name}, address: 10.0.0.${11 + i}, roles: [control-plane]}\n`).join('') +
    ['w1', 'w2'].map((name, i) => `  - {name: ${name}, address: 10.0.0.${14 + i}, roles: [worker]}\n`).join('');
  writeFileSync(file, text);
  const parsed = parseInventory(text, file, { env: {} });
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
  inventory = parsed.inventory;
}, 120_000);

const steps = async (name: string, unreachable: boolean): Promise<string[]> => {
  const plan = await removeNodePlaybook(inventory, name, {
    drainTimeoutMs: 300_000,
    ...(unreachable ? { unreachable: true } : {}),
    allowEven: true,
    firstAnswering: async (hosts) => hosts[0],
    apiWaitMs: 0,
  });
  return plan.playbook.plays.flatMap((play) => play.roles.flatMap((role) => role.tasks.map((task) => `${play.hosts.toString()}: ${task.name}`)));
};

describe('the remove-node playbook (shared PKI, no host reached)', () => {
  it('--unreachable: the out-of-service taint between the etcd member removal and the Node deletion, all on the operator', async () => {
    expect(await steps('cp1', true)).toEqual([
      'cp2: etcd keeps its quorum without cp1',
      'cp2: remove the etcd member of cp1',
      'cp2: take cp1 out of service',
      'cp2: delete the Node cp1',
    ]);
    expect(await steps('w1', true)).toEqual(['cp1: take w1 out of service', 'cp1: delete the Node w1']);
  });

  it('a reachable node: drained and reset, never tainted out of service', async () => {
    const cp = await steps('cp1', false);
    expect(cp).toContain('cp2: cordon and drain cp1');
    expect(cp.filter((s) => s.includes('out of service'))).toEqual([]);
    expect(cp.at(-1)).toBe('cp2: delete the Node cp1');
  });
});
