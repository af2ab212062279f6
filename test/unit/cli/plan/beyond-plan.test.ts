// What the apply of a --plan run planned otherwise than the file: said per task (not refused),
// since a task after an earlier change of the run is planned against the host it left.
import { describe, expect, it } from 'vitest';
import { beyondPlan } from '../../../../src/cli/plan/beyond-plan.js';
import type { HostPlan, PlannedEntry } from '../../../../src/cli/plan/plan-file.js';

const unitFile: PlannedEntry = { play: 'p', role: 'r', task: 'unit file', kind: 'create', summary: 'create /etc/x.service', facts: {} };
const service: PlannedEntry = { play: 'p', role: 'r', task: 'service', kind: 'none', summary: 'running', facts: {} };

describe('beyondPlan', () => {
  it('says nothing when the apply planned what the file says, reasons aside', () => {
    expect(beyondPlan([{ host: 'h1', tasks: [unitFile, service] }], [{ host: 'h1', tasks: [unitFile, { ...service, summary: 'running for 2 s' }] }])).toEqual(
      [],
    );
  });

  it('names each task that changed beyond the plan, or that the plan changed and was not needed', () => {
    const planned: HostPlan[] = [{ host: 'h1', tasks: [unitFile, service, { ...unitFile, task: 'twice' }] }];
    const applied: HostPlan[] = [
      { host: 'h1', tasks: [unitFile, { ...service, kind: 'run', summary: 'restart x' }, { ...unitFile, task: 'twice', kind: 'none', summary: 'in place' }] },
    ];
    expect(beyondPlan(planned, applied)).toEqual([
      'h1: p / r / service: planned nothing (none); at its turn run: restart x',
      'h1: p / r / twice: planned create: create /etc/x.service; at its turn nothing (none)',
    ]);
  });
});
