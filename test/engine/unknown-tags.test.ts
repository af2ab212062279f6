// An unknown --tags / --skip-tags stops runPlaybook before it connects to any host: it used to
// run no task and succeed.
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/orchestrator/engine/input-error.js';
import { runPlaybook } from '../../src/orchestrator/engine/run-playbook.js';
import type { Role } from '../../src/orchestrator/engine/types.js';
import { fileTask, harness, hostDir, inventory } from './support/harness.js';

const role: Role = { name: 'kubelet', tasks: [fileTask('config', (h) => `${hostDir('unknown-tags', h)}/config`, 'x', { tags: ['config'] })] };
const plays = [{ name: 'nodes', hosts: 'all', roles: [role] }];

describe('runPlaybook with an unknown tag', () => {
  it('refuses --tags kublet with did you mean kubelet, before connecting', async () => {
    const h = harness(inventory(['h1', 'h2']), plays, { check: true, tags: ['kublet'] });
    const run = runPlaybook(h.options);
    await expect(run).rejects.toBeInstanceOf(InputError);
    await expect(run).rejects.toThrow(
      'unknown tag --tags "kublet" (did you mean "kubelet"?): no role or task of playbook test has it; its tags are config, kubelet',
    );
    expect(h.connections.size).toBe(0);
    expect(h.events).toEqual([]);
  });

  it('refuses an unknown --skip-tags the same way', async () => {
    const h = harness(inventory(['h1']), plays, { skipTags: ['confg'] });
    await expect(runPlaybook(h.options)).rejects.toThrow('--skip-tags "confg" (did you mean "config"?)');
    expect(h.connections.size).toBe(0);
  });

  it('runs with known tags', async () => {
    const h = harness(inventory(['h1']), plays, { check: true, tags: ['config'], skipTags: ['kubelet'] });
    expect((await runPlaybook(h.options)).exitCode).toBe(0);
  });
});
