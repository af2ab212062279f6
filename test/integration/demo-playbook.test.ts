// The engine end to end over real SSH on the 3 lab hosts: the demo playbook applies in
// parallel, converges, re-checks in one round trip per host, and --check changes nothing.
import { beforeAll, describe, expect, it } from 'vitest';
import { inventoryVariant, kcluster, parseEvents, sshHost, testLab, type TestLab } from './support/test-lab.js';

interface HostRecap {
  host: string;
  ok: number;
  changed: number;
  failed: number;
  unreachable: boolean;
  roundTrips: number;
}

function recapOf(stdout: string): HostRecap[] {
  const end = parseEvents(stdout).find((e) => e['type'] === 'run-end') as { summary: { hosts: HostRecap[] } } | undefined;
  if (!end) throw new Error(`no run-end event in output:\n${stdout.slice(-2000)}`);
  return end.summary.hosts;
}

describe('demo playbook on 3 lab hosts over real SSH', () => {
  let lab: TestLab;
  beforeAll(async () => {
    lab = testLab();
    // Start from hosts that have never seen the demo role.
    for (const host of lab.hosts) {
      await sshHost(
        lab,
        host.name,
        'rm -rf /etc/kcluster-demo /etc/systemd/system/kcluster-demo.service /etc/sysctl.d/90-kcluster-demo.conf; systemctl daemon-reload',
      );
    }
  });

  it('applies on every host in parallel, then a rerun changes nothing in one round trip per host', async () => {
    const first = await kcluster(['run', 'demo', '-i', lab.inventoryFile, '--output', 'json']);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    const events = parseEvents(first.stdout);
    const firstRecap = recapOf(first.stdout);
    expect(firstRecap.map((h) => h.host).sort()).toEqual(lab.hosts.map((h) => h.name).sort());
    for (const h of firstRecap) {
      expect(h.changed, h.host).toBeGreaterThan(0);
      expect(h.failed, h.host).toBe(0);
    }
    // Parallel: every host started its first task before any host finished its last one.
    const starts = lab.hosts.map((h) => events.findIndex((e) => e['type'] === 'task-start' && e['host'] === h.name));
    const finishes = lab.hosts.map((h) => events.findLastIndex((e) => e['type'] === 'task-result' && e['host'] === h.name));
    expect(Math.min(...starts)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...starts)).toBeLessThan(Math.min(...finishes));

    const second = await kcluster(['run', 'demo', '-i', lab.inventoryFile, '--output', 'json']);
    expect(second.code).toBe(0);
    for (const h of recapOf(second.stdout)) {
      expect(h.changed, h.host).toBe(0);
      expect(h.failed, h.host).toBe(0);
      // One role: its facts in one batch; at most 2 round trips per host per role.
      expect(h.roundTrips, h.host).toBeLessThanOrEqual(2);
    }
  });

  it('--check --diff shows a hand edit as a diff, changes nothing, and exits 3', async () => {
    const target = lab.hosts[0]!.name;
    await sshHost(lab, target, "echo 'edited by hand' > /etc/motd");
    const check = await kcluster(['run', 'demo', '-i', lab.inventoryFile, '--check', '--diff']);
    expect(check.code).toBe(3);
    expect(check.stdout).toContain('-edited by hand');
    expect((await sshHost(lab, target, 'cat /etc/motd')).stdout).toBe('edited by hand\n');
    // The real run repairs it.
    const repair = await kcluster(['run', 'demo', '-i', lab.inventoryFile, '--output', 'json']);
    expect(repair.code).toBe(0);
    const changed = recapOf(repair.stdout)
      .filter((h) => h.changed > 0)
      .map((h) => h.host);
    expect(changed).toEqual([target]);
    expect((await sshHost(lab, target, 'cat /etc/motd')).stdout).not.toContain('edited by hand');
  });

  it('hostile vars are written literally and execute nothing anywhere', async () => {
    await Promise.all(lab.hosts.map((h) => sshHost(lab, h.name, 'rm -f /tmp/pwned')));
    const hostile = "'; touch /tmp/pwned # $(touch /tmp/pwned) `touch /tmp/pwned`";
    const file = inventoryVariant(lab, (doc) => {
      doc['vars'] = { ...(doc['vars'] as object | undefined), motd: hostile };
    });
    const run = await kcluster(['run', 'demo', '-i', file, '--output', 'json']);
    expect(run.code).toBe(0);
    for (const h of lab.hosts) {
      expect((await sshHost(lab, h.name, 'test -e /tmp/pwned; echo $?')).stdout.trim(), h.name).toBe('1');
      expect((await sshHost(lab, h.name, 'cat /etc/motd')).stdout, h.name).toContain(hostile);
    }
    // Restore the lab's own motd for the other tests.
    expect((await kcluster(['run', 'demo', '-i', lab.inventoryFile, '--output', 'json'])).code).toBe(0);
  });

  it('a host name carrying shell syntax is rejected before anything runs', async () => {
    const file = inventoryVariant(lab, (doc) => {
      const hosts = doc['hosts'] as Record<string, unknown>[];
      hosts[0] = { ...hosts[0], name: "x'; touch /tmp/pwned #" };
    });
    const run = await kcluster(['run', 'demo', '-i', file]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/hosts\[0\]\.name/);
  });
});
