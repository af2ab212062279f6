// The plan file: written and read back whole; a file that is not a plan is refused naming the
// file and the field; a secret change keeps no diff, a diff that looks like a key is dropped.
import { describe, expect, it } from 'vitest';
import { parsePlanFile, serializePlan } from '../../../../src/cli/plan/plan-file.js';
import { planEntry } from '../../../../src/cli/plan/plan-recorder.js';
import { InputError } from '../../../../src/orchestrator/engine/input-error.js';
import { samplePlan } from './sample-plan.js';

describe('plan file', () => {
  it('reads back what it writes', () => {
    expect(parsePlanFile(serializePlan(samplePlan), 'plan.json')).toEqual(samplePlan);
  });

  it('refuses what is not a plan, naming the file and the field', () => {
    const refused = (text: string): string => {
      try {
        parsePlanFile(text, 'plan.json');
      } catch (error) {
        expect(error).toBeInstanceOf(InputError);
        return (error as Error).message;
      }
      throw new Error('not refused');
    };
    expect(refused('{')).toMatch(/^plan\.json: not a plan file: .*--check --plan-out plan\.json\)$/);
    expect(refused('{"kind":"other"}')).toContain('plan.json: not a kcluster plan file (format 1): "kind" is not "kcluster-plan"');
    expect(refused(serializePlan({ ...samplePlan, format: 2 as 1 }))).toContain('"format" is 2, this kcluster reads 1');
    const bad = JSON.parse(serializePlan(samplePlan)) as { hosts: { tasks: { facts: unknown }[] }[] };
    bad.hosts[0]!.tasks[1]!.facts = { k: 1 };
    expect(refused(JSON.stringify(bad))).toContain('hosts[0].tasks[1]: "facts" is not an object of strings');
  });

  it('keeps no diff of a secret, and drops a diff that looks like a key', () => {
    const planned = { play: 'p', host: 'h', role: 'r', task: 't', facts: [{ key: 'file:/k', value: { content: 'PRIVATE' } }] };
    const secret = planEntry('s', { ...planned, change: { kind: 'create', summary: 'create /k (secret: content not shown)', secret: true, payload: null } });
    expect(secret).toEqual({
      play: 'p',
      role: 'r',
      task: 't',
      kind: 'create',
      summary: 'create /k (secret: content not shown)',
      secret: true,
      facts: { 'file:/k': expect.stringMatching(/^[0-9a-f]{64}$/) },
    });
    const keyLike = planEntry('s', { ...planned, change: { kind: 'update', summary: 'update /k', diff: '+-----BEGIN EC PRIVATE KEY-----\n', payload: null } });
    expect(keyLike.diff).toBeUndefined();
    expect(keyLike.secret).toBe(true);
    expect(JSON.stringify([secret, keyLike])).not.toContain('PRIVATE');
  });
});
