// How this connection becomes root, decided once right after connecting: nothing for root,
// passwordless sudo when `sudo -n true` works, else sudo with the password from the variable
// named in become.passwordEnv (checked now, so a wrong one fails here, clearly).
import type { HostSettings } from '../inventory/model.js';
import { UnreachableError } from './connection.js';
import { SUDO_PROBE, type BecomeMode } from './become.js';
import { sh } from './quote.js';
import type { SshConnection } from './ssh-connection.js';

/** What detection needs from a connection (an SshConnection, or a fake in tests). */
export type BecomeProbeTarget = Pick<SshConnection, 'exec' | 'setBecomeMode'>;

export async function detectBecome(connection: BecomeProbeTarget, host: HostSettings, env: NodeJS.ProcessEnv): Promise<BecomeMode> {
  if (!host.become.enabled || host.ssh.user === 'root') return { kind: 'none' };
  const probe = await connection.exec(SUDO_PROBE, { label: 'become probe' });
  if (probe.code === 0) return { kind: 'sudo-nopasswd' };
  if (/command not found|not found/i.test(probe.stderr) && probe.code === 127) {
    throw new UnreachableError(host.name, `sudo is not installed, and ${host.ssh.user} is not root: install sudo, or log in as root (ssh.user: root)`);
  }
  const variable = host.become.passwordEnv;
  if (!variable) {
    throw new UnreachableError(
      host.name,
      `sudo asks ${host.ssh.user} for a password: set become.passwordEnv to the NAME of a variable holding it, or allow passwordless sudo for ${host.ssh.user}`,
    );
  }
  const password = env[variable];
  if (password === undefined) throw new UnreachableError(host.name, `sudo needs a password, but the variable $${variable} (become.passwordEnv) is not set`);
  const mode: BecomeMode = { kind: 'sudo-password', password };
  connection.setBecomeMode(mode);
  const check = await connection.exec(sh`true`, { become: true, label: 'become password check' });
  connection.setBecomeMode({ kind: 'none' });
  if (check.code !== 0) {
    // sudo's own words only ("incorrect password attempt"); the password is never echoed.
    const said = check.stderr.trim().split('\n').pop() ?? '';
    throw new UnreachableError(host.name, `sudo rejected the password in $${variable} for user ${host.ssh.user}${said ? ` (${said})` : ''}`);
  }
  return mode;
}
