// What happens when hosts misbehave, over real SSH on the lab: a changed host key is refused
// with both fingerprints, a down host is unreachable while the others complete, and sudo with
// a password works without the password ever reaching argv or the logs.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadInventory } from '../../src/kubernetes/inventory/load-inventory.js';
import { inventoryVariant, kcluster, parseEvents, sshHost, sudoDeployUser, testLab, type TestLab } from './support/test-lab.js';

function statusByHost(stdout: string): Map<string, { failed: number; unreachable: boolean; changed: number }> {
  const end = parseEvents(stdout).find((e) => e['type'] === 'run-end') as
    { summary: { hosts: { host: string; failed: number; unreachable: boolean; changed: number }[] } } | undefined;
  if (!end) throw new Error(`no run-end event:\n${stdout.slice(-2000)}`);
  return new Map(end.summary.hosts.map((h) => [h.host, h]));
}

describe('host failures over real SSH', () => {
  let lab: TestLab;
  beforeAll(() => {
    lab = testLab();
  });

  it('refuses a host whose key does not match known_hosts, shows both fingerprints, and goes on with the others', async () => {
    const victim = lab.hosts[0]!;
    const keyDir = mkdtempSync(join(tmpdir(), 'kcluster-key-'));
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(keyDir, 'other')]);
    const otherKey = readFileSync(join(keyDir, 'other.pub'), 'utf8').trim().split(' ').slice(0, 2).join(' ');
    const knownHosts = readFileSync(lab.knownHostsFile, 'utf8')
      .split('\n')
      .map((line) => (line.split(' ')[0]!.split(',').includes(victim.address) ? `${victim.address},${victim.name} ${otherKey}` : line))
      .join('\n');
    const knownHostsFile = join(keyDir, 'known_hosts');
    writeFileSync(knownHostsFile, knownHosts);
    const file = inventoryVariant(lab, (doc) => {
      doc['ssh'] = { ...(doc['ssh'] as object), knownHostsFile };
    });
    const run = await kcluster(['run', 'demo', '-i', file, '--output', 'json']);
    expect(run.code).not.toBe(0);
    const hosts = statusByHost(run.stdout);
    expect(hosts.get(victim.name)?.unreachable || (hosts.get(victim.name)?.failed ?? 0) > 0).toBe(true);
    for (const other of lab.hosts.slice(1)) expect(hosts.get(other.name)?.failed, other.name).toBe(0);
    const message = run.stdout + run.stderr;
    expect(message).toContain(execFileSync('ssh-keygen', ['-l', '-f', join(keyDir, 'other.pub')], { encoding: 'utf8' }).split(' ')[1]!);
    expect(message).toMatch(/SHA256:[A-Za-z0-9+/]{43}.*SHA256:[A-Za-z0-9+/]{43}/s);
    expect(message).toContain(`kcluster trust --refresh ${victim.name}`);
  });

  it('reports a host that is down as unreachable, completes the others, exits 5', async () => {
    const base = lab.hosts[0]!.address.split('.').slice(0, 3).join('.');
    const file = inventoryVariant(lab, (doc) => {
      doc['ssh'] = { ...(doc['ssh'] as object), connectTimeout: '2s', connectRetries: 1 };
      (doc['hosts'] as unknown[]).push({ name: 'downhost', address: `${base}.250`, roles: ['worker'] });
    });
    const started = Date.now();
    const run = await kcluster(['run', 'demo', '-i', file, '--output', 'json']);
    expect(run.code).toBe(5);
    const hosts = statusByHost(run.stdout);
    expect(hosts.get('downhost')?.unreachable).toBe(true);
    for (const h of lab.hosts) expect(hosts.get(h.name)?.failed, h.name).toBe(0);
    expect(Date.now() - started).toBeLessThan(60_000);
  });

  it('runs as a non-root user through sudo with a password fed on stdin, never in argv or logs', async () => {
    const host = lab.hosts[1]!;
    const password = 's3cr\'t $(touch /tmp/pwned) "q"';
    const file = await sudoDeployUser(lab, host.name, password);
    const run = await kcluster(['run', 'demo', '-i', file, '--limit', host.name, '--output', 'json'], {
      KC_TEST_SUDO_PASSWORD: password,
    });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(statusByHost(run.stdout).get(host.name)?.failed).toBe(0);
    expect(run.stdout).not.toContain(password);
    // The debug logs of this cluster never contain the password.
    const loaded = await loadInventory(file, { env: { ...process.env, KC_TEST_SUDO_PASSWORD: password } });
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.errors));
    const logDir = join(loaded.inventory.stateDir, 'logs');
    for (const log of readdirSync(logDir)) expect(readFileSync(join(logDir, log), 'utf8')).not.toContain(password);
    expect((await sshHost(lab, host.name, 'test -e /tmp/pwned; echo $?')).stdout.trim()).toBe('1');

    const wrong = await kcluster(['run', 'demo', '-i', file, '--limit', host.name, '--output', 'json'], {
      KC_TEST_SUDO_PASSWORD: 'wrong',
    });
    expect(wrong.code).not.toBe(0);
    expect(wrong.stdout + wrong.stderr).toMatch(/sudo/i);
  });
});
