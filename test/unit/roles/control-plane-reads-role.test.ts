// Building the control-plane role resolves the table of files each component's manifest
// hashes: with a name in it the role does not write, building throws (here the table is
// replaced by one with a misspelt name; the real table is checked in control-plane-reads.test.ts).
import { describe, expect, it, vi } from 'vitest';
import type { ClusterInputs } from '../../../src/kubernetes/cluster/cluster-inputs.js';

const table = vi.hoisted(() => ({ misspelt: false }));

vi.mock('../../../roles/control-plane/component-reads.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../../roles/control-plane/component-reads.js')>();
  const misspelt = { ...real.COMPONENT_READS, 'kube-scheduler': ['/etc/kubernetes/scheduler.cnf'] };
  return { ...real, componentReads: (written: readonly string[]) => real.componentReads(written, table.misspelt ? misspelt : real.COMPONENT_READS) };
});

const { controlPlaneRole } = await import('../../../roles/control-plane/index.js');

// What building the role reads (contents are read per host, later).
const inputs = { pki: {}, inventory: { cluster: {} }, topology: { controlPlanes: [], apiPort: 6443 } } as unknown as ClusterInputs;

describe('control-plane role', () => {
  it('builds with the shipped list', () => {
    table.misspelt = false;
    expect(controlPlaneRole(inputs, { running: false }).name).toBe('control-plane');
  });
  it('throws when built with an unknown file in its hash list, naming the file', () => {
    table.misspelt = true;
    expect(() => controlPlaneRole(inputs, { running: false })).toThrow(
      /kube-scheduler: "\/etc\/kubernetes\/scheduler\.cnf" \(\/etc\/kubernetes\/scheduler\.cnf\)/,
    );
  });
});
