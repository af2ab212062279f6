// `kcluster plan show`: the plan's lines as --check --diff prints them (the same plain lines),
// after where and when it was made; secret changes named at the end, their content nowhere.
import { describe, expect, it } from 'vitest';
import { renderPlan } from '../../../../src/cli/plan/render-plan.js';
import { samplePlan } from './sample-plan.js';

describe('renderPlan', () => {
  it('prints the plan as --check --diff does', () => {
    const withSecret = {
      ...samplePlan,
      hosts: [
        ...samplePlan.hosts,
        {
          host: 'lab2',
          tasks: [
            {
              play: 'demo',
              role: 'demo',
              task: 'file /etc/k',
              kind: 'create',
              summary: 'create /etc/k (mode 0600, root:root; 9 bytes, secret: content not shown)',
              secret: true,
              facts: {},
            },
          ],
        },
      ],
    };
    expect(renderPlan(withSecret, 'plan.json', false)).toBe(
      [
        'plan plan.json: made 2026-11-26T23:00:00.000Z by kcluster 1.2.3',
        '  from: kcluster run demo -i inventory.yaml --check --plan-out plan.json',
        `  inventory: /x/inventory.yaml (sha256 ${'a'.repeat(64)})`,
        'PLAY demo [lab1]',
        'lab1 | demo | file /etc/motd | would change | update /etc/motd (content)',
        '    -a',
        '    +b',
        'lab1 | demo | sysctl | ok | already set',
        'PLAY demo [lab2]',
        'lab2 | demo | file /etc/k | would change | create /etc/k (mode 0600, root:root; 9 bytes, secret: content not shown)',
        '',
        '2 host(s), 2 change(s) planned; secret content, not shown: lab2: file /etc/k',
        '',
      ].join('\n'),
    );
  });
});
