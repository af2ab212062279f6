// Downloads over SFTP (node-ssh on kcluster's own ssh2 connection) from lab hosts over real SSH:
// a root-only file as root, and through a sudo login (staged as a private copy the login user
// owns, removed afterwards); the local file is whole, private and has the host's sha256; what
// cannot be read is an error naming the host, and leaves no partial file.
import { existsSync, mkdtempSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Connection } from '../../src/orchestrator/ssh/connection.js';
import { createSshConnector } from '../../src/orchestrator/ssh/connector.js';
import { hostKeyPolicyFor } from '../../src/orchestrator/ssh/host-key-policy-for.js';
import { loadInventory } from '../../src/kubernetes/inventory/load-inventory.js';
import { sshHost, sudoDeployUser, testLab, type TestLab } from './support/test-lab.js';

const REMOTE = '/var/lib/kcluster/test-download.bin';
const PASSWORD = 'kc-download-test-pw';

async function connect(file: string, host: string): Promise<Connection> {
  const result = await loadInventory(file, { env: { ...process.env, KC_TEST_SUDO_PASSWORD: PASSWORD } });
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  const inventory = result.inventory;
  const connector = createSshConnector({
    inventory,
    env: { ...process.env, KC_TEST_SUDO_PASSWORD: PASSWORD },
    hostKeys: hostKeyPolicyFor(inventory, process.env),
  });
  return connector.connect(
    inventory.hosts.find((h) => h.name === host)!,
    new AbortController().signal,
  );
}

describe('downloads over SFTP from lab hosts', () => {
  let lab: TestLab;
  const local = mkdtempSync(join(tmpdir(), 'kc-download-'));
  const sums = new Map<string, string>();
  const opened: Connection[] = [];
  // The lab's first two hosts, whatever the lab is called.
  let first = '';
  let second = '';

  beforeAll(async () => {
    lab = testLab();
    [first, second] = lab.hosts.map((h) => h.name) as [string, string];
    for (const host of [first, second]) {
      const r = await sshHost(
        lab,
        host,
        `mkdir -p /var/lib/kcluster && head -c ${48 * 1024 * 1024} /dev/urandom > ${REMOTE} && chmod 0600 ${REMOTE} && sha256sum < ${REMOTE}`,
      );
      expect(r.code, r.stderr).toBe(0);
      sums.set(host, r.stdout.split(' ')[0]!);
    }
  }, 60_000);

  afterAll(async () => {
    for (const c of opened) await c.close();
    for (const host of [first, second]) await sshHost(lab, host, `rm -f ${REMOTE}`);
  });

  it('as root: whole, private, with the host sha256', async () => {
    const c = await connect(lab.inventoryFile, first);
    opened.push(c);
    const target = join(local, 'root.bin');
    const started = Date.now();
    const got = await c.downloadFile(REMOTE, target, { become: true });
    console.log(`download 48 MiB over SFTP: ${Date.now() - started} ms`);
    expect(got).toEqual({ bytes: 48 * 1024 * 1024, sha256: sums.get(first) });
    expect(statSync(target).size).toBe(48 * 1024 * 1024);
    expect(statSync(target).mode & 0o777).toBe(0o600);
    expect(readdirSync(local).filter((f) => f.includes('.partial-'))).toEqual([]);
  });

  it('through sudo: staged as a copy the login user owns, removed afterwards', async () => {
    const inventory = await sudoDeployUser(lab, second, PASSWORD);
    const c = await connect(inventory, second);
    opened.push(c);
    const target = join(local, 'sudo.bin');
    const got = await c.downloadFile(REMOTE, target, { become: true });
    expect(got.sha256).toBe(sums.get(second));
    expect((await sshHost(lab, second, 'ls /var/tmp | grep -c kcluster-download || true')).stdout.trim()).toBe('0');
    // Without become, the login user cannot read it: an error that names the host and the path.
    await expect(c.downloadFile(REMOTE, join(local, 'denied.bin'))).rejects.toThrow(
      new RegExp(`^${second}: download /var/lib/kcluster/test-download.bin over SFTP failed: .*[Pp]ermission denied`),
    );
    expect(existsSync(join(local, 'denied.bin'))).toBe(false);
    expect(readdirSync(local).filter((f) => f.includes('.partial-'))).toEqual([]);
  });
});
