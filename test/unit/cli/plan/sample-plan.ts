// A small plan file shared by the plan tests.
import type { PlanFile } from '../../../../src/cli/plan/plan-file.js';

export const samplePlan: PlanFile = {
  kind: 'kcluster-plan',
  format: 1,
  kclusterVersion: '1.2.3',
  createdAt: '2026-11-26T23:00:00.000Z',
  argv: ['run', 'demo', '-i', 'inventory.yaml', '--check', '--plan-out', 'plan.json'],
  playbook: 'demo',
  inventory: { file: '/x/inventory.yaml', sha256: 'a'.repeat(64) },
  selection: { limit: 'lab1' },
  salt: '00ff',
  hosts: [
    {
      host: 'lab1',
      tasks: [
        {
          play: 'demo',
          role: 'demo',
          task: 'file /etc/motd',
          kind: 'update',
          summary: 'update /etc/motd (content)',
          diff: '-a\n+b\n',
          facts: { 'file:/etc/motd': 'b'.repeat(64) },
        },
        { play: 'demo', role: 'demo', task: 'sysctl', kind: 'none', summary: 'already set', facts: {} },
      ],
    },
  ],
};
