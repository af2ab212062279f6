// The connector against a real OpenSSH sshd started by this test on 127.0.0.1: host keys
// (trust on first use, a changed key refused, known_hosts mismatches, `kcluster trust`),
// failures named in plain words, retries only where they can help, keys with passphrases,
// and a jump host whose own connection is shared and carries the target's TCP stream.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, statSync, writeFileSync, existsSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSshConnector } from '../../../src/orchestrator/ssh/connector.js';
import { UnreachableError } from '../../../src/orchestrator/ssh/connection.js';
import { fingerprintSha256 } from '../../../src/orchestrator/ssh/fingerprint.js';
import { HostKeyMismatchError } from '../../../src/orchestrator/ssh/host-key-policy.js';
import { sh } from '../../../src/orchestrator/ssh/quote.js';
import { runCli, type CliResult } from '../../unit/cli/support/run-cli.js';
import { count, freePort, newKey, startSshd, type TestSshd } from './support/sshd.js';
import { endpoint, host, setup } from './support/inventory.js';

const fingerprintOfPub = (file: string): string => fingerprintSha256(Buffer.from(readFileSync(file, 'utf8').split(' ')[1]!, 'base64'));

/** Run the CLI in-process with its own HOME (so ~/.ssh/known_hosts is the test's). */
const kcluster = (args: string[], home: string): Promise<CliResult> => runCli(args, { HOME: home, PATH: process.env['PATH'] ?? '' });

describe('SSH connector over a real sshd', () => {
  let sshd: TestSshd;

  beforeAll(async () => {
    sshd = await startSshd();
  });

  afterAll(async () => {
    await sshd?.stop();
  });

  it('pins the key on first use (0700 folder, 0600 file), then refuses a changed key with both fingerprints; trust --refresh re-keys', async () => {
    const node = host('node1', endpoint(sshd));
    const { inventory, policy } = setup([node]);
    const logged: string[] = [];
    const first = createSshConnector({ inventory, env: {}, hostKeys: policy, log: (l) => logged.push(l) });
    const oldFingerprint = fingerprintOfPub(`${sshd.hostKeyFile}.pub`);
    try {
      await first.connect(node);
    } finally {
      await first.closeAll();
    }
    const pinFile = join(inventory.stateDir, 'known_hosts');
    expect(readFileSync(pinFile, 'utf8')).toMatch(new RegExp(`^\\[127\\.0\\.0\\.1\\]:${sshd.port},\\[node1\\]:${sshd.port} ssh-ed25519 AAAA\\S+\\n$`));
    expect(statSync(pinFile).mode & 0o777).toBe(0o600);
    expect(statSync(inventory.stateDir).mode & 0o777).toBe(0o700);
    expect(logged).toEqual([`node1: trusted on first use, pinned ${oldFingerprint} in ${pinFile}`]);

    await sshd.rekey();
    const newFingerprint = fingerprintOfPub(`${sshd.hostKeyFile}.pub`);
    const second = createSshConnector({ inventory, env: {}, hostKeys: policy });
    const refused = await second.connect(node).then(
      () => undefined,
      (e: unknown) => e,
    );
    await second.closeAll();
    expect(refused).toBeInstanceOf(HostKeyMismatchError);
    const message = (refused as Error).message;
    expect(message.startsWith('node1: ')).toBe(true);
    expect(message).toContain(`127.0.0.1:${sshd.port}`);
    expect(message).toContain(`expected  ${oldFingerprint} (ssh-ed25519) from ${pinFile}:1`);
    expect(message).toContain(`presented ${newFingerprint} (ssh-ed25519)`);
    expect(message).toContain(`kcluster trust --refresh node1 -i ${inventory.file}`);

    // The same through the CLI: without --refresh still refused, with it re-keyed.
    const home = dirname(inventory.stateDir);
    const file = join(home, 'inventory.yaml');
    writeFileSync(
      file,
      `stateDir: ${inventory.stateDir}\nssh: { user: ${sshd.user}, keyFile: ${sshd.clientKey}, connectRetries: 0 }\nhosts:\n  - { name: node1, address: 127.0.0.1, port: ${sshd.port}, roles: [control-plane] }\n`,
    );
    const noRefresh = await kcluster(['trust', '-i', file, 'node1'], home);
    expect(noRefresh.code).toBe(5);
    expect(noRefresh.err).toContain(`presented ${newFingerprint}`);
    const refresh = await kcluster(['trust', '-i', file, '--refresh', 'node1'], home);
    expect(refresh.err).toBe('');
    expect(refresh.code).toBe(0);
    expect(refresh.out).toContain(`node1: forgot 1 pinned key(s) (was ${oldFingerprint}); pinned ${newFingerprint} (ssh-ed25519) in ${pinFile}`);
    const again = await kcluster(['trust', '-i', file, 'node1'], home);
    expect(again.out).toContain(`node1: ${newFingerprint} (ssh-ed25519) already trusted (${pinFile}:1)`);
    const third = createSshConnector({ inventory, env: {}, hostKeys: policy });
    try {
      const connection = await third.connect(node);
      expect((await connection.exec(sh`echo re-keyed`)).stdout).toBe('re-keyed\n');
    } finally {
      await third.closeAll();
    }
  });

  it('refuses a host whose known_hosts entry does not match, naming the file and line, and pins nothing', async () => {
    const node = host('node2', endpoint(sshd));
    const { inventory, policy, userKnownHosts } = setup([node]);
    const other = newKey(join(dirname(userKnownHosts), 'other_host_key'))
      .split(' ')
      .slice(0, 2)
      .join(' ');
    writeFileSync(userKnownHosts, `# someone else's key\n[127.0.0.1]:${sshd.port} ${other}\n`);
    const connector = createSshConnector({ inventory, env: {}, hostKeys: policy });
    const error = await connector.connect(node).catch((e: unknown) => e);
    await connector.closeAll();
    expect(error).toBeInstanceOf(HostKeyMismatchError);
    expect((error as Error).message).toContain(`from ${userKnownHosts}:2`);
    expect((error as Error).message).toContain(`presented ${fingerprintOfPub(`${sshd.hostKeyFile}.pub`)}`);
    expect(existsSync(join(inventory.stateDir, 'known_hosts'))).toBe(false);
  });

  it('a closed port: UnreachableError "connection refused" after the bounded retries, with backoff', async () => {
    const port = await freePort();
    const node = host('down1', endpoint(sshd, { port }));
    const { inventory, policy } = setup([node], { connectRetries: 2 });
    const retries: string[] = [];
    const connector = createSshConnector({ inventory, env: {}, hostKeys: policy, log: (l) => retries.push(l) });
    const started = Date.now();
    const error = await connector.connect(node).catch((e: unknown) => e);
    const elapsed = Date.now() - started;
    expect(error).toBeInstanceOf(UnreachableError);
    expect((error as Error).message).toBe(
      `down1: unreachable: connection refused by 127.0.0.1:${port} (is sshd running and listening on port ${port}?) (gave up after 3 attempts)`,
    );
    expect(retries).toHaveLength(2);
    // Backoff 500 ms then 1000 ms.
    expect(elapsed).toBeGreaterThanOrEqual(1_400);
    expect(elapsed).toBeLessThan(5_000);
  });

  it('a server that never greets: timed out after connectTimeout, not retried past the limit', async () => {
    const sockets: Socket[] = [];
    const silent: Server = createServer((s) => sockets.push(s));
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const port = (silent.address() as { port: number }).port;
    try {
      const node = host('mute1', endpoint(sshd, { port }));
      const { inventory, policy } = setup([node], { connectTimeoutMs: 400, connectRetries: 0 });
      const connector = createSshConnector({ inventory, env: {}, hostKeys: policy });
      const started = Date.now();
      const error = await connector.connect(node).catch((e: unknown) => e);
      expect((error as Error).message).toMatch(/^mute1: unreachable: timed out connecting to 127\.0\.0\.1:\d+ .*\(gave up after 1 attempt\)$/);
      expect(Date.now() - started).toBeLessThan(3_000);
    } finally {
      for (const s of sockets) s.destroy();
      silent.close();
    }
  });

  it('authentication failure is final (no retries) and names the methods tried', async () => {
    const stranger = join(mkdtempSync(join(tmpdir(), 'kc-key-')), 'id_stranger');
    newKey(stranger);
    const node = host('auth1', endpoint(sshd, { keyFile: stranger }));
    const { inventory, policy } = setup([node], { connectRetries: 3 });
    const retries: string[] = [];
    const connector = createSshConnector({ inventory, env: {}, hostKeys: policy, log: (l) => retries.push(l) });
    const started = Date.now();
    const error = await connector.connect(node).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnreachableError);
    expect((error as Error).message).toBe(`auth1: unreachable: authentication failed for user ${sshd.user} at 127.0.0.1:${sshd.port} (tried: key ${stranger})`);
    expect(retries.filter((l) => l.includes('retry'))).toEqual([]);
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('an encrypted key: passphrase from the named variable; missing variable is a clear, final error', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kc-key-'));
    const keyFile = join(dir, 'id_locked');
    const pub = newKey(keyFile, `it's "secret" $(x)`);
    writeFileSync(join(sshd.dir, 'authorized_keys'), `${readFileSync(join(sshd.dir, 'authorized_keys'), 'utf8')}${pub}\n`);
    const node = host('locked1', endpoint(sshd, { keyFile, keyPassphraseEnv: 'KC_TEST_KEY_PASS' }));
    const { inventory, policy } = setup([node]);
    const ok = createSshConnector({ inventory, env: { KC_TEST_KEY_PASS: `it's "secret" $(x)` }, hostKeys: policy });
    try {
      expect((await (await ok.connect(node)).exec(sh`echo unlocked`)).stdout).toBe('unlocked\n');
    } finally {
      await ok.closeAll();
    }
    const missing = createSshConnector({ inventory, env: {}, hostKeys: policy });
    await expect(missing.connect(node)).rejects.toThrow(`locked1: unreachable: the key ${keyFile} needs its passphrase in $KC_TEST_KEY_PASS, which is not set`);
    const asked: string[] = [];
    const prompted = createSshConnector({ inventory, env: {}, hostKeys: policy, promptPassphrase: async (f) => (asked.push(f), 'wrong') });
    const noEnv = host('locked2', endpoint(sshd, { keyFile }));
    await expect(prompted.connect(noEnv)).rejects.toThrow(`locked2: unreachable: cannot use the key ${keyFile}: wrong passphrase`);
    expect(asked).toEqual([keyFile]);
  });

  it('reaches targets through a bastion: one shared bastion connection, the TCP stream opened by sshd (forwardOut)', async () => {
    const bastion = { ...endpoint(sshd), name: 'jump' };
    const targets = [host('behind1', endpoint(sshd), { bastion }), host('behind2', endpoint(sshd), { bastion })];
    const { inventory, policy } = setup(targets);
    const logins = count(sshd.log(), 'Accepted publickey');
    const connector = createSshConnector({ inventory, env: {}, hostKeys: policy });
    try {
      const connections = await Promise.all(targets.map((t) => connector.connect(t)));
      for (const connection of connections) {
        const seen = (await connection.exec(sh`echo "$SSH_CONNECTION"`)).stdout.trim().split(' ');
        expect(seen[2]).toBe('127.0.0.1');
        expect(seen[3]).toBe(String(sshd.port));
        // Who owns the client end of the target's TCP connection on this machine? The bastion's sshd, not us.
        const owner = execFileSync('ss', ['-Htnp', 'state', 'established', `( sport = :${seen[1]} )`], { encoding: 'utf8' });
        expect(owner).toContain('"sshd"');
        expect(owner).not.toContain('"node"');
      }
      // One login for the bastion, one per target.
      expect(count(sshd.log(), 'Accepted publickey') - logins).toBe(3);
      // The bastion was pinned under its own name, like any host.
      expect(readFileSync(join(inventory.stateDir, 'known_hosts'), 'utf8')).toContain(`[jump]:${sshd.port}`);
      // Control: a direct connection's client end belongs to this test process.
      const direct = await connector.connect(host('direct1', endpoint(sshd)));
      const port = (await direct.exec(sh`echo "$SSH_CONNECTION"`)).stdout.split(' ')[1]!;
      expect(execFileSync('ss', ['-Htnp', 'state', 'established', `( sport = :${port} )`], { encoding: 'utf8' })).not.toContain('"sshd"');
    } finally {
      const disconnects = count(sshd.log(), 'Disconnected from user');
      await connector.closeAll();
      // closeAll ends the bastion's connection too: four sessions end (bastion, 2 targets, direct).
      for (let i = 0; i < 50 && count(sshd.log(), 'Disconnected from user') - disconnects < 4; i++) await new Promise((r) => setTimeout(r, 100));
      expect(count(sshd.log(), 'Disconnected from user') - disconnects).toBe(4);
    }
  });
});
