// Running commands as root through sudo. The mode is decided once per connection; the sudo
// password only ever travels as the first line of stdin, never in the command text.
import { sh, type ShellCommand } from './quote.js';

export type BecomeMode =
  | { readonly kind: 'none' }
  | { readonly kind: 'sudo-nopasswd' }
  | { readonly kind: 'sudo-password'; readonly password: string };

export interface WrappedCommand {
  readonly command: ShellCommand;
  /** Bytes to send before the caller's own stdin (the sudo password line), if any. */
  readonly stdinPrefix?: string;
}

export function wrapBecome(mode: BecomeMode, command: ShellCommand): WrappedCommand {
  switch (mode.kind) {
    case 'none':
      return { command };
    case 'sudo-nopasswd':
      return { command: sh`sudo -n -H -- sh -c ${command.text}` };
    case 'sudo-password':
      // -k: always ask, so the password line is always consumed by sudo and never reaches
      // the command's stdin; -p '': no prompt text mixed into stderr.
      return { command: sh`sudo -k -S -H -p '' -- sh -c ${command.text}`, stdinPrefix: `${mode.password}\n` };
  }
}

/** Probe run right after connecting: does sudo work without a password? */
export const SUDO_PROBE = sh`sudo -n true`;
