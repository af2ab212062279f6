// Running commands as root through sudo. The mode is decided once per connection
// (detect-become.ts); the sudo password only ever travels as the first line of stdin, never
// in the command text, so it cannot show up in argv, logs or error messages.
import { sh, shellRaw, type ShellCommand } from './quote.js';

export type BecomeMode = { readonly kind: 'none' } | { readonly kind: 'sudo-nopasswd' } | { readonly kind: 'sudo-password'; readonly password: string };

export interface WrappedCommand {
  readonly command: ShellCommand;
  /** Bytes to send before the caller's own stdin (the sudo password line), if any. */
  readonly stdinPrefix?: string;
}

/**
 * Every command runs under `sh`, whatever the login shell: the scripts are POSIX sh (a fish or
 * csh login shell would not run them), and Debian's dash runs a fact batch in less host CPU
 * than bash (its forks for subshells and command substitutions are cheaper; figures:
 * bench/results/2026-11-28-figures-from-code-comments.md). `exec`:
 * the login shell becomes sh, no extra process. With sudo, sudo starts the sh.
 */
export function underSh(command: ShellCommand, session?: string): ShellCommand {
  return sh`${sessionMark(session)}exec sh -c ${command.text}`;
}

/** `command` as the channel's first process, marked with the session token when there is one. */
function marked(command: ShellCommand, session: string | undefined): ShellCommand {
  return session === undefined ? command : sh`${sessionMark(session)}exec ${command}`;
}

/**
 * `KCLUSTER_SESSION=<token> exec ...`: the first process of the command's channel (the session
 * and process group sshd made for it: sh, or sudo) carries the connection's token in its
 * environment, for the session guard (session-guard.ts) to find if the connection dies. An
 * assignment before `exec` costs no process (`exec env ...` costs one more program start).
 */
function sessionMark(session: string | undefined): ShellCommand {
  if (session === undefined) return shellRaw('');
  if (!SESSION_MARK.test(session)) throw new Error(`a session token is 16-64 hex digits, with .N for one command (got "${session}")`);
  return shellRaw(`${SESSION_VARIABLE}=${session} `);
}

export const SESSION_VARIABLE = 'KCLUSTER_SESSION';
export const SESSION_TOKEN = /^[0-9a-f]{16,64}$/;
/** What a command carries: the connection's token, then `.N`, its number on the connection. */
export const SESSION_MARK = /^[0-9a-f]{16,64}(\.[0-9]{1,15})?$/;

export function wrapBecome(mode: BecomeMode, command: ShellCommand, session?: string): WrappedCommand {
  switch (mode.kind) {
    case 'none':
      return { command: underSh(command, session) };
    case 'sudo-nopasswd':
      // -H: root's HOME, so tools run as root find root's config, not the login user's.
      // sudo (without a terminal) runs the command in its own process group: the guard ends both.
      return { command: marked(sh`sudo -n -H -- sh -c ${command.text}`, session) };
    case 'sudo-password':
      // -k: always ask, so the password line is always consumed by sudo (which reads it byte
      // by byte) and never reaches the command's stdin; -p '': no prompt text in stderr.
      return {
        command: marked(sh`sudo -S -k -H -p '' -- sh -c ${command.text}`, session),
        stdinPrefix: `${mode.password}\n`,
      };
  }
}

/** Probe run right after connecting: does sudo work without a password? */
export const SUDO_PROBE = sh`sudo -n true`;
