// Which architecture's artifacts each host gets (issue 42): a host's `arch` in the inventory
// (amd64 when it names none) splits every piece it shares with hosts of another architecture
// into one entry per architecture, each with its own hosts; a release download is that
// architecture's.
import { describe, expect, it } from 'vitest';
import { releaseLocation } from '../../../src/kubernetes/artifacts/release-catalog.js';
import { requiredArtifacts } from '../../../src/kubernetes/artifacts/required-artifacts.js';
import { parseInventory } from '../../../src/kubernetes/inventory/load-inventory.js';

function inventoryOf(hosts: string) {
  const parsed = parseInventory(`ssh: { agent: true }\nhosts:\n${hosts}`, '/x/i.yaml', { env: {}, homeDir: '/x' });
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
  return parsed.inventory;
}

describe("each host's artifacts are of its architecture", () => {
  it('hosts that name no arch get amd64 artifacts, as before', () => {
    const list = requiredArtifacts(inventoryOf('  - { name: cp1, address: 10.0.0.1, roles: [control-plane] }\n  - { name: w1, address: 10.0.0.2 }\n'));
    expect(new Set(list.map((a) => a.arch))).toEqual(new Set(['amd64']));
    expect(list.find((a) => a.name === 'kubelet')?.hosts).toEqual(['cp1', 'w1']);
  });

  it('a mixed cluster: one entry per architecture for what both run, each with its hosts', () => {
    const list = requiredArtifacts(
      inventoryOf(
        '  - { name: cp1, address: 10.0.0.1, roles: [control-plane] }\n  - { name: a1, address: 10.0.0.2, arch: arm64 }\n  - { name: a2, address: 10.0.0.3, arch: arm64 }\n',
      ),
    );
    expect(list.filter((a) => a.name === 'kubelet').map((a) => [a.arch, a.hosts])).toEqual([
      ['amd64', ['cp1']],
      ['arm64', ['a1', 'a2']],
    ]);
    expect(list.filter((a) => a.name === 'kube-proxy').map((a) => a.arch)).toEqual(['amd64', 'arm64']);
    // The control plane's own pieces only for its architecture.
    expect(list.filter((a) => a.name === 'kube-apiserver' || a.name === 'etcdctl').map((a) => `${a.name} ${a.arch}`)).toEqual([
      'etcdctl amd64',
      'kube-apiserver amd64',
    ]);
    // Every entry's hosts share its architecture, and every host gets each piece once.
    const perHost = new Map<string, string[]>();
    for (const a of list) for (const h of a.hosts) perHost.set(h, [...(perHost.get(h) ?? []), `${a.type} ${a.name}`]);
    for (const names of perHost.values()) expect(new Set(names).size).toBe(names.length);
  });

  it("an arm64 host's release download is the arm64 one", () => {
    const [kubelet] = requiredArtifacts(inventoryOf('  - { name: a1, address: 10.0.0.2, roles: [control-plane], arch: arm64 }\n')).filter(
      (a) => a.name === 'kubelet',
    );
    expect(kubelet?.arch).toBe('arm64');
    expect(releaseLocation(kubelet!, {})?.url).toMatch(/\/bin\/linux\/arm64\/kubelet$/);
  });

  it('refuses an architecture kcluster does not build, at its line', () => {
    const parsed = parseInventory('ssh: { agent: true }\nhosts:\n  - { name: r1, address: 10.0.0.2, roles: [control-plane], arch: riscv64 }\n', '/x/i.yaml', {
      env: {},
      homeDir: '/x',
    });
    expect(parsed.ok ? [] : parsed.errors).toEqual([
      expect.objectContaining({ file: '/x/i.yaml', line: 3, path: 'hosts[0].arch', message: 'must be one of amd64, arm64 (got "riscv64")' }),
    ]);
  });
});
