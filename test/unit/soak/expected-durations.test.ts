// The soak aims a fault at a share of its command's expected duration: the first guess by the
// command's words (the longest match), then what the same command took last without a fault.
import { describe, expect, it } from 'vitest';
import { commandSignature, ExpectedDurations } from '../../soak/expected-durations.js';

describe('ExpectedDurations', () => {
  it('keys a command by its words without the inventory and the output format', () => {
    expect(commandSignature(['certs', 'renew', '-i', '/x/inv.yaml', '--yes', '--output', 'json'])).toBe('certs renew --yes');
    expect(commandSignature(['remove-node', '--inventory', '/x', 'kcsoak2', '--yes'])).toBe('remove-node kcsoak2 --yes');
  });

  it('guesses by the longest matching words first, then uses what the same command of the same operation took last', () => {
    const durations = new ExpectedDurations();
    expect(durations.expectedMs('rotate-ca#1', ['certs', 'rotate-ca', '-i', 'f', '--yes', '--restart-workloads'])).toBe(300_000);
    expect(
      durations.expectedMs('rotate-service-account-key#1', ['certs', 'rotate-ca', '-i', 'f', '--yes', '--service-account-key', '--keep-old-key', '10s']),
    ).toBe(90_000);
    expect(durations.expectedMs('add-worker#1', ['apply', '-i', 'f'])).toBe(20_000);
    expect(durations.expectedMs('x#1', ['status', '-i', 'f'])).toBe(20_000);
    durations.record('add-worker#1', ['apply', '-i', 'other-file'], 7_500);
    expect(durations.expectedMs('add-worker#1', ['apply', '-i', 'f', '--output', 'json'])).toBe(7_500);
    // The apply of another operation (a no-op after a reboot, a control plane joining) keeps its own.
    expect(durations.expectedMs('reboot-host#1', ['apply', '-i', 'f'])).toBe(20_000);
    expect(durations.expectedMs('certs-renew#1', ['certs', 'renew', '-i', 'f', '--yes'])).toBe(100_000);
  });
});
