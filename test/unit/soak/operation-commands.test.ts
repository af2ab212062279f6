// Each operation's commands and the inventory each runs against: a host to add is listed
// before its apply, a host to remove is still listed for remove-node and gone afterwards.
import { describe, expect, it } from 'vitest';
import { initialModel } from '../../soak/cluster-model.js';
import { commandsFor, KEEP_OLD_KEY_SECONDS } from '../../soak/operation-commands.js';
import { OPERATIONS } from '../../soak/operations.js';

const name = (i: number) => `kcsoak${i}`;
const single = initialModel('single');
const ha = initialModel('ha');

describe('commandsFor', () => {
  it('adds a worker by listing it and applying', () => {
    const { commands, inventoryAfter } = commandsFor({ kind: 'add-worker', host: 3 }, single, name);
    expect(commands.map((c) => c.args('INV'))).toEqual([['apply', '-i', 'INV']]);
    expect(commands[0]!.inventory.workers).toEqual([2, 3]);
    expect(inventoryAfter.workers).toEqual([2, 3]);
  });

  it('removes a worker while it is still listed, then applies the inventory without it', () => {
    const { commands, inventoryAfter } = commandsFor({ kind: 'remove-worker', host: 2 }, single, name);
    expect(commands.map((c) => c.args('INV'))).toEqual([
      ['remove-node', '-i', 'INV', 'kcsoak2', '--yes'],
      ['apply', '-i', 'INV'],
    ]);
    expect(commands[0]!.inventory.workers).toEqual([2]);
    // Then apply without it, so the others follow (found by seed 1: CoreDNS's replicas and the control-plane taint changed).
    expect(commands[1]!.inventory.workers).toEqual([]);
    expect(inventoryAfter.workers).toEqual([]);
  });

  it('re-adds a control plane right after removing it, the host listed throughout', () => {
    const { commands, inventoryAfter } = commandsFor({ kind: 'readd-control-plane', host: 3 }, ha, name);
    expect(commands.map((c) => c.args('INV'))).toEqual([
      ['remove-node', '-i', 'INV', 'kcsoak3', '--yes', '--allow-even'],
      ['apply', '-i', 'INV'],
    ]);
    for (const c of commands) expect(c.inventory.controlPlanes).toEqual([1, 2, 3]);
    expect(inventoryAfter).toEqual(ha);
  });

  it('loses a control plane: its host destroyed, removed with --unreachable while listed, the inventory applied without it, its disk wiped after', () => {
    const { commands, inventoryAfter, wipeAfter } = commandsFor({ kind: 'lose-control-plane', host: 2 }, ha, name);
    expect(commands.map((c) => c.args('INV'))).toEqual([
      ['remove-node', '-i', 'INV', 'kcsoak2', '--unreachable', '--yes', '--allow-even'],
      ['apply', '-i', 'INV'],
    ]);
    expect(commands[0]!.destroyFirst).toBe(2);
    expect(commands[0]!.inventory.controlPlanes).toEqual([1, 2, 3]);
    // The apply runs while the host is still down: no fault may boot it.
    expect(commands[1]!.down).toBe(2);
    expect(commands[1]!.inventory.controlPlanes).toEqual([1, 3]);
    expect(inventoryAfter.controlPlanes).toEqual([1, 3]);
    expect(inventoryAfter.spares).toEqual([2, 5]);
    expect(wipeAfter).toBe(2);
  });

  it('saves a snapshot, then restores the newest one in the state folder (looked up when the restore starts)', () => {
    let asked = 0;
    const { commands, inventoryAfter } = commandsFor({ kind: 'etcd-snapshot-restore' }, single, name, () => `/state/backups/snap-${++asked}.db`);
    expect(asked).toBe(0);
    expect(commands.map((c) => c.args('INV'))).toEqual([
      ['etcd', 'snapshot', 'save', '-i', 'INV'],
      ['etcd', 'snapshot', 'restore', '-i', 'INV', '/state/backups/snap-1.db', '--yes'],
    ]);
    expect(inventoryAfter).toEqual(single);
  });

  it('rotates the service-account key, then drops the old one after the keep time while the rotation is under way', () => {
    const { commands } = commandsFor({ kind: 'rotate-service-account-key' }, single, name);
    expect(commands).toHaveLength(2);
    expect(commands[0]!.args('INV')).toEqual([
      'certs',
      'rotate-ca',
      '-i',
      'INV',
      '--yes',
      '--service-account-key',
      '--keep-old-key',
      `${KEEP_OLD_KEY_SECONDS}s`,
    ]);
    expect(commands[1]!.args('INV')).toEqual(commands[0]!.args('INV'));
    expect(commands[1]!.waitBeforeMs).toBeGreaterThan(KEEP_OLD_KEY_SECONDS * 1000);
    expect(commands[1]!.whileRotating).toBeGreaterThanOrEqual(1);
  });

  it('sets the kubelet setting in the inventory the apply runs against', () => {
    const { commands } = commandsFor({ kind: 'kubelet-max-pods', maxPods: 130 }, single, name);
    expect(commands[0]!.inventory.kubeletMaxPods).toBe(130);
  });

  it('upgrades with the inventory at the newest release, once', () => {
    const { commands, inventoryAfter } = commandsFor({ kind: 'upgrade' }, single, name);
    expect(commands.map((c) => c.args('INV'))).toEqual([['upgrade', '-i', 'INV']]);
    expect(commands[0]!.inventory.upgraded).toBe(true);
    expect(inventoryAfter.upgraded).toBe(true);
  });

  it('reboots the host first, then applies the unchanged inventory', () => {
    const { commands, inventoryAfter } = commandsFor({ kind: 'reboot-host', host: 2 }, single, name);
    expect(commands.map((c) => [c.rebootFirst, c.args('INV')])).toEqual([[2, ['apply', '-i', 'INV']]]);
    expect(inventoryAfter).toEqual(single);
  });

  it('has as many commands as the operations table says (a fault targets one of them)', () => {
    const samples = {
      'add-worker': { kind: 'add-worker', host: 5 },
      'remove-worker': { kind: 'remove-worker', host: 4 },
      'remove-control-plane': { kind: 'remove-control-plane', host: 2 },
      'add-control-plane': { kind: 'add-control-plane', host: 5 },
      'readd-control-plane': { kind: 'readd-control-plane', host: 2 },
      'certs-renew': { kind: 'certs-renew' },
      'rotate-ca': { kind: 'rotate-ca' },
      'rotate-service-account-key': { kind: 'rotate-service-account-key' },
      'secrets-rotate-key': { kind: 'secrets-rotate-key' },
      'etcd-snapshot-save': { kind: 'etcd-snapshot-save' },
      'etcd-snapshot-restore': { kind: 'etcd-snapshot-restore' },
      'lose-control-plane': { kind: 'lose-control-plane', host: 3 },
      'kubelet-max-pods': { kind: 'kubelet-max-pods', maxPods: 120 },
      'api-server-mutating-inflight': { kind: 'api-server-mutating-inflight', enabled: true },
      upgrade: { kind: 'upgrade' },
      'reboot-host': { kind: 'reboot-host', host: 3 },
    } as const;
    for (const spec of OPERATIONS) expect(commandsFor(samples[spec.kind], ha, name).commands, spec.kind).toHaveLength(spec.commands);
  });
});
