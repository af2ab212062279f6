// Plan files over real SSH on the lab (issue 31): the demo playbook planned with --check
// --plan-out, shown with `plan show`, carried out with --plan (exit 0, the changes made, a
// rerun converged); then a plan made stale by a hand edit on a host between plan and apply is
// refused with exit 2, naming the host, the task and the fact, and nothing is changed.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { kcluster, parseEvents, sshHost, testLab, type TestLab } from './support/test-lab.js';

interface Recap {
  host: string;
  changed: number;
  failed: number;
}

const recapOf = (stdout: string): Recap[] => (parseEvents(stdout).find((e) => e['type'] === 'run-end') as { summary: { hosts: Recap[] } }).summary.hosts;

describe('plan files on 3 lab hosts over real SSH', () => {
  let lab: TestLab;
  let dir: string;
  beforeAll(async () => {
    lab = testLab();
    dir = mkdtempSync(join(tmpdir(), 'kc-plan-'));
    // Hosts that have never seen the demo role: every host has changes to plan.
    for (const host of lab.hosts) {
      await sshHost(
        lab,
        host.name,
        // Stopped and disabled first: an earlier test file's demo service would otherwise keep running without its unit file.
        'systemctl disable --now kcluster-demo.service 2>/dev/null; rm -rf /etc/kcluster-demo /etc/systemd/system/kcluster-demo.service /etc/sysctl.d/90-kcluster-demo.conf; systemctl daemon-reload',
      );
    }
  });

  it('writes a plan, shows it as --check --diff would, and carries it out', async () => {
    const file = join(dir, 'plan.json');
    const planned = await kcluster(['run', 'demo', '-i', lab.inventoryFile, '--check', '--plan-out', file]);
    expect(planned.code, planned.stderr).toBe(3);
    expect(planned.stderr).toMatch(/kcluster: plan written to .*plan\.json: \d+ change\(s\) on 3 host\(s\)/);
    const plan = JSON.parse(readFileSync(file, 'utf8')) as {
      hosts: { host: string; tasks: { task: string; kind: string; facts: Record<string, string> }[] }[];
    };
    expect(plan.hosts.map((h) => h.host).sort()).toEqual(lab.hosts.map((h) => h.name).sort());
    const conf = plan.hosts[0]!.tasks.find((t) => t.task === 'file /etc/kcluster-demo/host.conf')!;
    expect(conf.kind).toBe('create');
    expect(Object.values(conf.facts).every((h) => /^[0-9a-f]{64}$/.test(h))).toBe(true);

    const shown = await kcluster(['plan', 'show', file]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain('| file /etc/kcluster-demo/host.conf | would change | create /etc/kcluster-demo/host.conf');
    expect(shown.stdout).toMatch(/^ {4}\+\+\+ b\/etc\/kcluster-demo\/host\.conf/m);

    const applied = await kcluster(['run', 'demo', '-i', lab.inventoryFile, '--plan', file, '--output', 'json']);
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stderr).toContain('matches every host');
    // What a plan cannot foresee, said: the service, planned before its unit file was written.
    expect(applied.stderr).toContain(
      'demo / demo / service kcluster-demo.service enabled, started: planned run: daemon-reload, enable, start kcluster-demo.service; at its turn run: enable, start kcluster-demo.service',
    );
    for (const h of recapOf(applied.stdout)) expect(h.changed, h.host).toBeGreaterThan(0);
    const again = await kcluster(['run', 'demo', '-i', lab.inventoryFile, '--check']);
    expect(again.code, again.stdout).toBe(0);
  });

  it('refuses a plan made stale by a hand edit, exit 2, naming host, task and fact, and changes nothing', async () => {
    const target = lab.hosts[1]!.name;
    const file = join(dir, 'stale.json');
    await sshHost(lab, target, "echo 'edited before the plan' > /etc/motd");
    const planned = await kcluster(['run', 'demo', '-i', lab.inventoryFile, '--check', '--plan-out', file]);
    expect(planned.code, planned.stderr).toBe(3);
    await sshHost(lab, target, "echo 'edited after the plan' > /etc/motd");

    const refused = await kcluster(['run', 'demo', '-i', lab.inventoryFile, '--plan', file]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('stale.json is stale, nothing was changed');
    expect(refused.stderr).toMatch(new RegExp(`${target}: demo / demo / file /etc/motd: fact \\S*/etc/motd\\S* changed since the plan`));
    expect((await sshHost(lab, target, 'cat /etc/motd')).stdout).toBe('edited after the plan\n');
    // A fresh plan is carried out (and repairs the file).
    expect((await kcluster(['run', 'demo', '-i', lab.inventoryFile, '--check', '--plan-out', file])).code).toBe(3);
    const applied = await kcluster(['run', 'demo', '-i', lab.inventoryFile, '--plan', file, '--output', 'json']);
    expect(applied.code, applied.stderr).toBe(0);
    expect(
      recapOf(applied.stdout)
        .filter((h) => h.changed > 0)
        .map((h) => h.host),
    ).toEqual([target]);
    expect((await sshHost(lab, target, 'cat /etc/motd')).stdout).not.toContain('edited');
  });
});
