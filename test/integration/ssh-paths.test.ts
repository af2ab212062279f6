// More of the real SSH path on the lab: a jump host, trust-on-first-use pins and a
// deliberate re-key, and `kcluster facts` in one round trip per host.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { inventoryVariant, kcluster, parseEvents, sshHost, testLab, type TestLab } from './support/test-lab.js';

describe('SSH paths over the lab', () => {
  let lab: TestLab;
  beforeAll(() => {
    lab = testLab();
  });

  it('reaches a host through a bastion (the host sees the bastion as its client)', async () => {
    const [jump, , target] = lab.hosts;
    const file = inventoryVariant(lab, (doc) => {
      const hosts = doc['hosts'] as Record<string, unknown>[];
      hosts[2] = { ...hosts[2], bastion: jump!.name };
    });
    const run = await kcluster(['facts', '-i', file, '--limit', target!.name, '--output', 'json']);
    expect(run.code, run.stderr).toBe(0);
    // Run a command over the jump: SSH_CONNECTION names the client address as seen by the target.
    const { createSshConnector } = await import('../../src/orchestrator/ssh/connector.js');
    const { hostKeyPolicyFor } = await import('../../src/orchestrator/ssh/host-key-policy-for.js');
    const { loadInventory } = await import('../../src/kubernetes/inventory/load-inventory.js');
    const { sh } = await import('../../src/orchestrator/ssh/quote.js');
    const loaded = await loadInventory(file, { env: process.env });
    if (!loaded.ok) throw new Error('inventory');
    const connector = createSshConnector({ inventory: loaded.inventory, env: process.env, hostKeys: hostKeyPolicyFor(loaded.inventory, process.env) });
    try {
      const connection = await connector.connect(loaded.inventory.hosts[2]!);
      const result = await connection.exec(sh`echo "$SSH_CONNECTION"`);
      expect(result.stdout.split(' ')[0]).toBe(jump!.address);
      expect(result.stdout.split(' ')[2]).toBe(target!.address);
    } finally {
      await connector.closeAll();
    }
  });

  it('pins keys on first use, refuses a changed pin, and re-keys with trust --refresh', async () => {
    const stateDir = mkdtempSync(join(tmpdir(), 'kcluster-state-'));
    const file = inventoryVariant(lab, (doc) => {
      const ssh = { ...(doc['ssh'] as Record<string, unknown>) };
      delete ssh['knownHostsFile'];
      doc['ssh'] = ssh;
      doc['stateDir'] = stateDir;
    });
    const first = await kcluster(['facts', '-i', file]);
    expect(first.code, first.stderr).toBe(0);
    const pins = readFileSync(join(stateDir, 'known_hosts'), 'utf8');
    for (const h of lab.hosts) expect(pins).toContain(`${h.address},${h.name} ssh-ed25519 `);
    // Swap two hosts' pinned keys: both now present a key other than the pinned one.
    const lines = pins.trim().split('\n');
    const swapped = [
      `${lines[0]!.split(' ')[0]} ${lines[1]!.split(' ').slice(1).join(' ')}`,
      `${lines[1]!.split(' ')[0]} ${lines[0]!.split(' ').slice(1).join(' ')}`,
      ...lines.slice(2),
    ];
    writeFileSync(join(stateDir, 'known_hosts'), `${swapped.join('\n')}\n`);
    const refused = await kcluster(['run', 'demo', '-i', file, '--output', 'json']);
    expect(refused.code).toBe(5);
    const victim = lab.hosts.find((h) => swapped[0]!.startsWith(`${h.address},`))!;
    const unreachable = parseEvents(refused.stdout)
      .filter((e) => e['type'] === 'host-unreachable')
      .map((e) => String(e['error']));
    expect(unreachable.join('\n')).toContain(`kcluster trust --refresh ${victim.name}`);
    // Pins are appended in connection order: re-key exactly the two hosts whose pins were swapped.
    const swappedNames = [lines[0]!, lines[1]!].map((l) => l.split(' ')[0]!.split(',')[1]!);
    const trust = await kcluster(['trust', '-i', file, '--refresh', ...swappedNames]);
    expect(trust.code, trust.stderr).toBe(0);
    expect(trust.stdout).toContain('forgot 1 pinned key(s)');
    const after = await kcluster(['run', 'demo', '-i', file]);
    expect(after.code, after.stdout + after.stderr).toBe(0);
  });

  it('kcluster facts: one round trip per host, a table a person can read', async () => {
    const table = await kcluster(['facts', '-i', lab.inventoryFile]);
    expect(table.code).toBe(0);
    const lines = table.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^host\s+os\s+kernel\s+arch\s+cpus\s+memory\s+swap\s+cgroup\s+init/);
    for (const h of lab.hosts)
      expect(table.stdout).toMatch(new RegExp(`${h.name}\\s+Debian GNU/Linux 12 \\(bookworm\\).*systemd.*${h.address.replace(/\./g, '\\.')}/24`));
    const json = JSON.parse((await kcluster(['facts', '-i', lab.inventoryFile, '-o', 'json'])).stdout) as {
      host: string;
      roundTrips: number;
      facts: { hostname: string };
    }[];
    expect(json.map((r) => [r.host, r.facts.hostname, r.roundTrips])).toEqual(lab.hosts.map((h) => [h.name, h.name, 1]));
  });

  it('logs in with a passphrase-protected key (passphrase from an env var) and with ssh-agent', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kcluster-keys-'));
    const key = join(dir, 'id_locked');
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', 'open sesame', '-f', key]);
    const pub = readFileSync(`${key}.pub`, 'utf8').trim();
    const host = lab.hosts[0]!;
    expect((await sshHost(lab, host.name, `grep -qF '${pub}' /root/.ssh/authorized_keys || echo '${pub}' >> /root/.ssh/authorized_keys`)).code).toBe(0);
    const withKey = inventoryVariant(lab, (doc) => {
      doc['ssh'] = { ...(doc['ssh'] as object), keyFile: key, keyPassphraseEnv: 'KC_TEST_PASSPHRASE' };
    });
    const ok = await kcluster(['facts', '-i', withKey, '--limit', host.name], { KC_TEST_PASSPHRASE: 'open sesame' });
    expect(ok.code, ok.stderr).toBe(0);
    const missing = await kcluster(['facts', '-i', withKey, '--limit', host.name], { KC_TEST_PASSPHRASE: '' });
    expect(missing.code).toBe(5);
    const noVar = await kcluster(['facts', '-i', withKey, '--limit', host.name]);
    expect(noVar.stderr).toContain('needs its passphrase in $KC_TEST_PASSPHRASE, which is not set');

    const socket = join(dir, 'agent.sock');
    const agent = spawn('ssh-agent', ['-D', '-a', socket], { stdio: 'ignore' });
    try {
      for (let i = 0; i < 50 && !existsSync(socket); i++) await new Promise((r) => setTimeout(r, 50));
      execFileSync('ssh-add', [lab.keyFile], { env: { ...process.env, SSH_AUTH_SOCK: socket }, stdio: 'ignore' });
      const withAgent = inventoryVariant(lab, (doc) => {
        const ssh: Record<string, unknown> = { ...(doc['ssh'] as Record<string, unknown>), agent: true };
        delete ssh['keyFile'];
        doc['ssh'] = ssh;
      });
      const viaAgent = await kcluster(['facts', '-i', withAgent], { SSH_AUTH_SOCK: socket });
      expect(viaAgent.code, viaAgent.stderr).toBe(0);
    } finally {
      agent.kill('SIGTERM');
    }
  });
});
