// Become over real SSH, with a fake sudo: this machine has only root, so a stand-in `sudo`
// first on the sessions' PATH checks the password line on stdin the way sudo -S does, logs its
// argv, then runs the command. Real sudo with a password is tested on the lab hosts.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSshConnector, type SshConnector } from '../../../src/orchestrator/ssh/connector.js';
import { SshConnection } from '../../../src/orchestrator/ssh/ssh-connection.js';
import { detectBecome } from '../../../src/orchestrator/ssh/detect-become.js';
import { sh } from '../../../src/orchestrator/ssh/quote.js';
import { startSshd, type TestSshd } from './support/sshd.js';
import { endpoint, host, setup } from './support/inventory.js';

const password = `it's "$(touch pwned)" \`id\`; x`;

describe('become through sudo over a real sshd (fake sudo)', () => {
  const bin = mkdtempSync(join(tmpdir(), 'kc-fake-sudo-'));
  let sshd: TestSshd;
  let connector: SshConnector;
  let connection: SshConnection;

  beforeAll(async () => {
    writeFileSync(join(bin, 'expected'), `${password}\n`);
    writeFileSync(
      join(bin, 'sudo'),
      [
        '#!/bin/sh',
        `printf '%s\\n' "$*" >> ${bin}/argv.log`,
        'case " $* " in',
        `  *" -S "*) IFS= read -r pw; [ "$pw" = "$(cat ${bin}/expected)" ] || { echo 'sudo: 1 incorrect password attempt' >&2; exit 1; };;`,
        `  *" -n "*) [ -e ${bin}/passwordless ] || { echo 'sudo: a password is required' >&2; exit 1; };;`,
        'esac',
        'case " $* " in *" -- "*) while [ "$1" != "--" ]; do shift; done; shift;; *) while [ "${1#-}" != "$1" ]; do shift; done;; esac',
        'exec "$@"',
        '',
      ].join('\n'),
      { mode: 0o755 },
    );
    sshd = await startSshd({ extraConfig: [`SetEnv PATH=${bin}:/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin`] });
    const node = host('node1', endpoint(sshd));
    const { inventory, policy } = setup([node]);
    connector = createSshConnector({ inventory, env: {}, hostKeys: policy });
    const opened = await connector.connect(node);
    if (!(opened instanceof SshConnection)) throw new Error('expected an SshConnection');
    connection = opened;
  });

  afterAll(async () => {
    await connector?.closeAll();
    await sshd?.stop();
  });

  it('detects sudo with a password (probe, then one check) and runs commands through it', async () => {
    rmSync(join(bin, 'argv.log'), { force: true });
    const asAdmin = host('node1', endpoint(sshd, { user: 'admin' }), { become: { enabled: true, method: 'sudo', passwordEnv: 'KC_SUDO' } });
    const mode = await detectBecome(connection, asAdmin, { KC_SUDO: password });
    expect(mode).toEqual({ kind: 'sudo-password', password });
    connection.setBecomeMode(mode);
    // The password line is consumed by sudo; the command gets exactly the caller's stdin.
    const echoed = await connection.exec(sh`cat`, { become: true, stdin: 'caller data\n' });
    expect(echoed).toMatchObject({ code: 0, stdout: 'caller data\n' });
    const dir = mkdtempSync(join(tmpdir(), 'kc-become-write-'));
    const content = Buffer.from([0, 1, 2, 255, 10, 13]);
    await connection.writeFile(join(dir, 'secret'), content, { mode: 0o600, become: true });
    expect(readFileSync(join(dir, 'secret')).equals(content)).toBe(true);
    expect((await connection.exec(sh`echo plain`)).stdout).toBe('plain\n');
    const argv = readFileSync(join(bin, 'argv.log'), 'utf8');
    expect(argv.split('\n')[0]).toBe('-n true');
    expect(argv).toContain('-S -k -H -p  -- sh -c cat');
    expect(argv).not.toContain('pwned');
    expect(argv.split('\n').filter(Boolean)).toHaveLength(4);
  });

  it('refuses a wrong password at connect time and never shows it', async () => {
    const asAdmin = host('node1', endpoint(sshd, { user: 'admin' }), { become: { enabled: true, method: 'sudo', passwordEnv: 'KC_SUDO' } });
    const error = await detectBecome(connection, asAdmin, { KC_SUDO: 'wrong "$(password)"' }).catch((e: Error) => e);
    expect((error as Error).message).toBe('node1: unreachable: sudo rejected the password in $KC_SUDO for user admin (sudo: 1 incorrect password attempt)');
  });

  it('uses passwordless sudo when `sudo -n true` works', async () => {
    writeFileSync(join(bin, 'passwordless'), '');
    try {
      const asAdmin = host('node1', endpoint(sshd, { user: 'admin' }), { become: { enabled: true, method: 'sudo' } });
      const mode = await detectBecome(connection, asAdmin, {});
      expect(mode).toEqual({ kind: 'sudo-nopasswd' });
      connection.setBecomeMode(mode);
      expect((await connection.exec(sh`id -u`, { become: true })).stdout).toBe('0\n');
    } finally {
      rmSync(join(bin, 'passwordless'));
    }
  });
});
