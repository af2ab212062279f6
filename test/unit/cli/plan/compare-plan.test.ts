// Comparing a plan with what the run plans now: equal plans give nothing; otherwise the first
// difference of each host, naming the host, the task and the fact (or what else differs).
import { describe, expect, it } from 'vitest';
import { comparePlans } from '../../../../src/cli/plan/compare-plan.js';
import type { HostPlan, PlannedEntry } from '../../../../src/cli/plan/plan-file.js';
import { applyArgv, planOptionsProblem } from '../../../../src/cli/plan/plan-options.js';
import { planMismatch } from '../../../../src/cli/plan/load-plan.js';
import type { Inventory } from '../../../../src/orchestrator/inventory/model.js';
import { samplePlan } from './sample-plan.js';

const motd: PlannedEntry = {
  play: 'demo',
  role: 'demo',
  task: 'file /etc/motd',
  kind: 'update',
  summary: 'update /etc/motd (content)',
  diff: '-a\n+b\n',
  facts: { 'file:/etc/motd': '1'.repeat(64) },
};
const unit: PlannedEntry = { play: 'demo', role: 'demo', task: 'service', kind: 'none', summary: 'running', facts: { 'systemd:demo': '2'.repeat(64) } };
const plan: HostPlan[] = [
  { host: 'lab1', tasks: [motd, unit] },
  { host: 'lab2', tasks: [unit] },
];

describe('comparePlans', () => {
  it('finds nothing when every task plans the same from the same facts', () => {
    expect(comparePlans(plan, structuredClone(plan))).toEqual([]);
  });

  it('ignores why nothing is needed (it may say an age), not that nothing is', () => {
    expect(
      comparePlans(plan, [
        { host: 'lab1', tasks: [motd, { ...unit, summary: 'running for 5 s' }] },
        { host: 'lab2', tasks: [unit] },
      ]),
    ).toEqual([]);
    expect(
      comparePlans(plan, [
        { host: 'lab1', tasks: [motd, unit] },
        { host: 'lab2', tasks: [{ ...unit, kind: 'run', summary: 'start demo' }] },
      ]),
    ).toEqual(['lab2: demo / demo / service: planned "none: running", now "run: start demo"']);
  });

  it('names the host, the task and the fact that changed, once per host', () => {
    const now: HostPlan[] = [
      {
        host: 'lab1',
        tasks: [
          { ...motd, facts: { 'file:/etc/motd': '3'.repeat(64) }, diff: '-c\n+b\n' },
          { ...unit, facts: { 'systemd:demo': '4'.repeat(64) } },
        ],
      },
      { host: 'lab2', tasks: [unit] },
    ];
    expect(comparePlans(plan, now)).toEqual([
      'lab1: demo / demo / file /etc/motd: fact file:/etc/motd changed since the plan (sha256 111111111111 then, sha256 333333333333 now)',
    ]);
  });

  it('names a changed summary, a task or host that is missing or new, and another playbook', () => {
    expect(
      comparePlans(plan, [
        { host: 'lab1', tasks: [{ ...motd, summary: 'update /etc/motd (mode 0600 -> 0644)' }, unit] },
        { host: 'lab2', tasks: [unit] },
      ]),
    ).toEqual(['lab1: demo / demo / file /etc/motd: planned "update: update /etc/motd (content)", now "update: update /etc/motd (mode 0600 -> 0644)"']);
    expect(
      comparePlans(plan, [
        { host: 'lab1', tasks: [motd] },
        { host: 'lab3', tasks: [] },
      ]),
    ).toEqual([
      'lab1: demo / demo / service: in the plan, not planned now (the run stopped before it, or the playbook changed)',
      "lab2: in the plan, but the run now plans nothing on it (--limit, the inventory's hosts or an earlier failure)",
      'lab3: planned now, not in the plan',
    ]);
    expect(
      comparePlans(plan, [
        { host: 'lab1', tasks: [{ ...motd, task: 'other' }, unit] },
        { host: 'lab2', tasks: [unit] },
      ])[0],
    ).toContain('the plan has this task where the playbook now runs "demo / demo / other"');
  });
});

describe('plan options', () => {
  it('refuses --plan-out without --check, and --plan with --plan-out', () => {
    expect(planOptionsProblem({ planOut: 'p.json' })).toContain('--plan-out needs --check');
    expect(planOptionsProblem({ plan: 'p.json', planOut: 'q.json', check: true })).toContain('do not go together');
    expect(planOptionsProblem({ planOut: 'p.json', check: true })).toBeUndefined();
  });

  it('turns the planning command into the one that carries the plan out', () => {
    expect(applyArgv(['apply', '-i', 'inv.yaml', '--check', '--diff', '--plan-out', 'p.json', '--limit', 'w1'], 'p.json')).toEqual([
      'apply',
      '-i',
      'inv.yaml',
      '--limit',
      'w1',
      '--plan',
      'p.json',
    ]);
    expect(applyArgv(['run', 'demo', '-C', '--plan-out=p.json'], 'p.json')).toEqual(['run', 'demo', '--plan', 'p.json']);
  });

  it('refuses a plan of another kcluster, command, inventory or selection, saying what to run', () => {
    const inventory = { file: '/x/inventory.yaml' } as Inventory;
    const run = { command: 'run', inventory, inventorySha256: 'a'.repeat(64), version: '1.2.3', selection: { limit: 'lab1' } };
    expect(planMismatch(samplePlan, 'plan.json', run)).toBeUndefined();
    expect(planMismatch(samplePlan, 'plan.json', { ...run, version: '1.2.4' })).toMatch(
      /^plan\.json was made by kcluster 1\.2\.3, this is 1\.2\.4: make a new plan with kcluster run demo/,
    );
    expect(planMismatch(samplePlan, 'plan.json', { ...run, command: 'apply' })).toBe(
      'plan.json is a plan of `kcluster run`, not of `kcluster apply`: run kcluster run demo -i inventory.yaml --plan plan.json',
    );
    expect(planMismatch(samplePlan, 'plan.json', { ...run, inventorySha256: 'c'.repeat(64) })).toContain(
      '/x/inventory.yaml changed since plan.json was made from /x/inventory.yaml (sha256 aaaaaaaaaaaa then, cccccccccccc now)',
    );
    expect(planMismatch(samplePlan, 'plan.json', { ...run, selection: {} })).toBe(
      'plan.json was made with --limit lab1, this run has none: run kcluster run demo -i inventory.yaml --plan plan.json',
    );
  });
});
