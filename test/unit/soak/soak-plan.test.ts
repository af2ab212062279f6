// The soak's plan is a pure function of (seed, steps, topology): a failing seed replays the same
// operations and faults; it never draws an operation the topology or the cluster at that step
// cannot take; about half the steps carry a fault.
import { describe, expect, it } from 'vitest';
import { FIXED_HOST, inventoryHosts } from '../../soak/cluster-model.js';
import { describeFault, drawFault, FAULT_RATE, faultHost, HOST_FAULTS, PROCESS_FAULTS } from '../../soak/faults.js';
import { modelAfter, OPERATIONS } from '../../soak/operations.js';
import { mulberry32 } from '../../soak/prng.js';
import { planSoak } from '../../soak/soak-plan.js';

const HA_ONLY = OPERATIONS.filter((o) => !o.topologies.includes('single')).map((o) => o.kind);

describe('planSoak', () => {
  it('gives the same plan for the same seed, steps and topology', () => {
    for (const topology of ['single', 'ha'] as const) expect(planSoak(1234, 80, topology)).toEqual(planSoak(1234, 80, topology));
  });

  it('gives other plans for other seeds', () => {
    const kinds = (seed: number) => planSoak(seed, 30, 'ha').map((s) => s.operation);
    expect(kinds(1)).not.toEqual(kinds(2));
    expect(planSoak(1, 30, 'single')).not.toEqual(planSoak(2, 30, 'single'));
  });

  it('a shorter plan is the start of a longer one (steps only cut it)', () => {
    expect(planSoak(99, 40, 'ha')).toEqual(planSoak(99, 100, 'ha').slice(0, 40));
  });

  it('never draws an ha-only operation on a single control plane', () => {
    expect(HA_ONLY.length).toBeGreaterThan(0);
    for (let seed = 0; seed < 50; seed++) for (const step of planSoak(seed, 60, 'single')) expect(HA_ONLY).not.toContain(step.operation.kind);
  });

  it('draws every operation of each topology over enough seeds', () => {
    for (const topology of ['single', 'ha'] as const) {
      const seen = new Set(Array.from({ length: 30 }, (_, seed) => planSoak(seed, 60, topology).map((s) => s.operation.kind)).flat());
      expect([...seen].sort()).toEqual(
        OPERATIONS.filter((o) => o.topologies.includes(topology))
          .map((o) => o.kind)
          .sort(),
      );
    }
  });

  it('only takes operations the cluster can take: hosts exist where they are removed and added, host 1 stays, 2 or 3 control planes on ha', () => {
    for (let seed = 0; seed < 50; seed++)
      for (const topology of ['single', 'ha'] as const)
        for (const { operation: op, before } of planSoak(seed, 60, topology)) {
          if (op.kind === 'add-worker' || op.kind === 'add-control-plane') expect(before.spares).toContain(op.host);
          if (op.kind === 'remove-worker') expect(before.workers).toContain(op.host);
          if (op.kind === 'remove-control-plane' || op.kind === 'readd-control-plane') {
            expect(before.controlPlanes).toContain(op.host);
            expect(before.controlPlanes).toHaveLength(3);
          }
          const after = modelAfter(before, op);
          expect(inventoryHosts(after)).toContain(FIXED_HOST);
          expect(after.controlPlanes.length).toBeGreaterThanOrEqual(1);
          if (topology === 'ha') expect(after.controlPlanes.length).toBeGreaterThanOrEqual(2);
          expect(new Set([...after.controlPlanes, ...after.workers, ...after.spares]).size).toBe(topology === 'ha' ? 5 : 3);
        }
  });

  it('each step starts from the model the step before left', () => {
    const plan = planSoak(5, 50, 'ha');
    for (let i = 1; i < plan.length; i++) expect(plan[i]!.before).toEqual(modelAfter(plan[i - 1]!.before, plan[i - 1]!.operation));
  });

  it('targets a fault at one of the operation’s commands', () => {
    for (const step of planSoak(11, 200, 'ha')) {
      if (!step.fault) continue;
      const commands = OPERATIONS.find((o) => o.kind === step.operation.kind)!.commands;
      expect(step.fault.command).toBeGreaterThanOrEqual(0);
      expect(step.fault.command).toBeLessThan(commands);
    }
  });
});

describe('drawFault', () => {
  it('puts a fault on the share of draws it is given, and a plan drawn at another rate keeps its operations', () => {
    const r = mulberry32(2026);
    const share = Array.from({ length: 1000 }, () => drawFault(r, 1, 0.8)).filter((f) => f !== undefined).length / 1000;
    expect(share).toBeGreaterThan(0.75);
    expect(share).toBeLessThan(0.85);
    const usual = planSoak(9, 30, 'ha');
    const dense = planSoak(9, 30, 'ha', 0.8);
    expect(dense.map((s) => s.operation)).toEqual(usual.map((s) => s.operation));
    expect(dense.filter((s) => s.fault).length).toBeGreaterThan(usual.filter((s) => s.fault).length);
  });

  it('puts a fault on about half of 1000 draws, every kind among them, each within bounds', () => {
    const r = mulberry32(2026);
    const faults = Array.from({ length: 1000 }, () => drawFault(r, 2)).filter((f) => f !== undefined);
    expect(faults.length / 1000).toBeGreaterThan(FAULT_RATE - 0.05);
    expect(faults.length / 1000).toBeLessThan(FAULT_RATE + 0.05);
    expect(new Set(faults.map((f) => f.kind))).toEqual(new Set([...PROCESS_FAULTS, ...HOST_FAULTS]));
    for (const f of faults) {
      expect(f.at).toBeGreaterThanOrEqual(0.05);
      expect(f.at).toBeLessThanOrEqual(0.95);
      expect(f.downSeconds).toBeGreaterThanOrEqual(5);
      expect(f.downSeconds).toBeLessThanOrEqual(40);
      expect([0, 1]).toContain(f.command);
    }
    // The processes' faults are the larger share: they reach every phase of every command.
    expect(faults.filter((f) => PROCESS_FAULTS.includes(f.kind)).length).toBeGreaterThan(faults.length / 2);
  });

  it('hits a host of the command by its pick, whatever their count', () => {
    const fault = { kind: 'link-cut', at: 0.5, command: 0, hostPick: 7, downSeconds: 10 } as const;
    expect(faultHost(fault, [1, 2, 3])).toBe(2);
    expect(faultHost(fault, [1, 4])).toBe(4);
    expect(describeFault(fault, (h) => `kcsoak${h}`, [1, 2, 3])).toBe('link cut for 10 s on kcsoak2 at 50% of command 1');
    expect(describeFault({ ...fault, kind: 'SIGKILL', at: 0.123 })).toBe('SIGKILL at 12% of command 1');
  });

  it('consumes the same draws with or without a fault, so a fault never shifts the steps after it', () => {
    const a = mulberry32(3);
    const b = mulberry32(3);
    for (let i = 0; i < 100; i++) {
      drawFault(a, 1);
      for (let j = 0; j < 6; j++) b.next();
      expect(a.next()).toBe(b.next());
    }
  });
});

describe('the topologies', () => {
  it('draw different plans from the same seed', () => {
    const kinds = (topology: 'single' | 'ha') => planSoak(8, 40, topology).map((s) => s.operation.kind);
    expect(kinds('single')).not.toEqual(kinds('ha'));
  });
});
