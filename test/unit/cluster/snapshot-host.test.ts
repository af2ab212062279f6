// Which control plane `etcd snapshot save` takes its snapshot on without --from: the first
// whose SSH port answers (a fake probe stands in for the port check), said when not the first.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultSnapshotHost } from '../../../playbooks/etcd-snapshot.js';
import { parseInventory } from '../../../src/kubernetes/inventory/load-inventory.js';
import type { HostSettings } from '../../../src/orchestrator/inventory/model.js';

const dir = mkdtempSync(join(tmpdir(), 'kc-snaphost-'));
const inventoryOf = (yaml: string) => {
  const parsed = parseInventory(yaml, join(dir, 'inv.yaml'), { env: { SSH_AUTH_SOCK: '/x' }, homeDir: dir });
  if (!parsed.ok) throw new Error(JSON.stringify(parsed));
  return parsed.inventory;
};
const three = inventoryOf(
  [
    'hosts:',
    ...[1, 2, 3].map((i) => `  - { name: cp${i}, address: 10.9.0.${i}, roles: [control-plane] }`),
    '  - { name: w1, address: 10.9.0.9, roles: [worker] }',
    '',
  ].join('\n'),
);
const fakeProbe = (down: readonly string[]) => async (hosts: readonly HostSettings[]) => hosts.find((h) => !down.includes(h.name));

describe('the control plane a snapshot is taken on (fake SSH probe)', () => {
  it('is the first control plane when it answers, with nothing said', async () => {
    const said: string[] = [];
    expect(await defaultSnapshotHost(three, (l) => said.push(l), fakeProbe([]))).toBe('cp1');
    expect(said).toEqual([]);
  });
  it('is the next that answers when the first is down, and says so', async () => {
    const said: string[] = [];
    expect(await defaultSnapshotHost(three, (l) => said.push(l), fakeProbe(['cp1']))).toBe('cp2');
    expect(said).toEqual(['the snapshot is taken on cp2: cp1 does not answer on its SSH port (--from names another)']);
  });
  it('stays the first when none answers (the run then says it is unreachable)', async () => {
    expect(await defaultSnapshotHost(three, () => undefined, fakeProbe(['cp1', 'cp2', 'cp3']))).toBe('cp1');
  });
});
