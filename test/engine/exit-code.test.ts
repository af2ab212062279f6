// The exit code a run ends with, from its recap alone (pure).
import { describe, expect, it } from 'vitest';
import { ExitCode } from '../../src/cli/exit-codes.js';
import { exitCodeFor } from '../../src/orchestrator/engine/exit-code.js';
import { emptyRecap, type HostRecap } from '../../src/orchestrator/engine/recap.js';

const host = (name: string, extra: Partial<HostRecap> = {}): HostRecap => ({ ...emptyRecap(name), ...extra });
const code = (hosts: HostRecap[], flags: { check?: boolean; interrupted?: boolean } = {}): number =>
  exitCodeFor({ hosts, check: flags.check ?? false, interrupted: flags.interrupted ?? false });

describe('exitCodeFor', () => {
  it('is 0 when everything is in place or was changed', () => {
    expect(code([host('a', { ok: 3 }), host('b', { changed: 2 })])).toBe(ExitCode.Success);
    expect(code([])).toBe(ExitCode.Success);
  });

  it('is 3 in check mode when something would change, 0 when nothing would', () => {
    expect(code([host('a', { ok: 1 }), host('b', { changed: 1 })], { check: true })).toBe(ExitCode.ChangesPending);
    expect(code([host('a', { ok: 1 })], { check: true })).toBe(ExitCode.Success);
  });

  it('is 4 when a host failed, whatever else happened', () => {
    expect(code([host('a', { failed: 1 }), host('b', { unreachable: true }), host('c', { changed: 1 })], { check: true })).toBe(ExitCode.HostsFailed);
  });

  it('is 5 when a host was unreachable and none failed, even with pending changes', () => {
    expect(code([host('a', { unreachable: true }), host('b', { changed: 1 })], { check: true })).toBe(ExitCode.HostsUnreachable);
  });

  it('is 130 when interrupted, before anything else', () => {
    expect(code([host('a', { failed: 1 })], { interrupted: true })).toBe(ExitCode.Interrupted);
  });
});
