// The tags a playbook answers to, and the refusal of one it does not have (--tags kublet ran
// no task and exited 0): every unknown tag at once, each with the closest known one.
import { describe, expect, it } from 'vitest';
import { InputError } from '../../../src/orchestrator/engine/input-error.js';
import { checkTags, playbookTags } from '../../../src/orchestrator/engine/playbook-tags.js';
import type { AnyTask, Playbook } from '../../../src/orchestrator/engine/types.js';

const task = (name: string, tags?: string[]): AnyTask => ({
  name,
  ...(tags ? { tags } : {}),
  facts: () => ({}),
  plan: () => ({ kind: 'none', reason: 'ok' }),
  apply: async () => {},
});

const playbook: Playbook = {
  name: 'cluster',
  description: '',
  plays: [
    { name: 'nodes', hosts: 'all', roles: [{ name: 'kubelet', tags: ['node'], tasks: [task('unit', ['kubelet', 'systemd']), task('config')] }] },
    { name: 'control plane', hosts: 'all', roles: [{ name: 'control-plane', tasks: [task('etcd', ['etcd', 'control-plane'])] }] },
  ],
};

function refusal(tags?: string[], skipTags?: string[]): string {
  try {
    checkTags(playbook, tags, skipTags);
  } catch (error) {
    expect(error).toBeInstanceOf(InputError);
    return (error as Error).message;
  }
  throw new Error('expected a refusal');
}

describe('playbook tags', () => {
  it('are the role names, role tags and task tags, sorted, each once', () => {
    expect(playbookTags(playbook)).toEqual(['control-plane', 'etcd', 'kubelet', 'node', 'systemd']);
  });

  it('known tags pass, in --tags and --skip-tags', () => {
    expect(() => checkTags(playbook, ['kubelet', 'node'], ['etcd'])).not.toThrow();
    expect(() => checkTags(playbook)).not.toThrow();
    expect(() => checkTags(playbook, [], [])).not.toThrow();
  });

  it('an unknown --tags is refused with the closest known tag and the list', () => {
    expect(refusal(['kublet'])).toBe(
      'unknown tag --tags "kublet" (did you mean "kubelet"?): no role or task of playbook cluster has it; its tags are control-plane, etcd, kubelet, node, systemd (a role\'s name is one of its tags; --list-tags prints them)',
    );
  });

  it('every unknown tag of both flags is named at once; one with no close tag gets no guess', () => {
    expect(refusal(['kubelet', 'controlplane', 'zzz'], ['etdc'])).toMatch(
      /^unknown tags --tags "controlplane" \(did you mean "control-plane"\?\), --tags "zzz", --skip-tags "etdc" \(did you mean "etcd"\?\): no role or task of playbook cluster has them; its tags are /,
    );
  });

  it('tags are matched exactly: a different letter case is unknown, with the right spelling suggested', () => {
    expect(refusal(undefined, ['Kubelet'])).toContain('--skip-tags "Kubelet" (did you mean "kubelet"?)');
  });
});
