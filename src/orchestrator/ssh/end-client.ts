// Ending an ssh2 Client cleanly: send the disconnect, then wait until its transport is closed
// (bounded), so a caller that closes a bastion after the hosts behind it never cuts a host's
// goodbye off in the tunnel (the host would log a reset instead of a disconnect).
import type { Client } from 'ssh2';

/** How long to wait for the server to close a connection we ended. */
export const CLIENT_CLOSE_GRACE_MS = 2000;

/**
 * Runs `act` (which asks the other side to close) and resolves once `closable` emitted 'close'
 * or after the grace, whichever comes first; an `act` that throws resolves at once.
 */
export function untilClosed(closable: { once(event: 'close', listener: () => void): unknown }, act: () => void, graceMs: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, graceMs);
    timer.unref();
    closable.once('close', () => {
      clearTimeout(timer);
      resolve();
    });
    try {
      act();
    } catch {
      clearTimeout(timer);
      resolve();
    }
  });
}

/** Resolves once `client` emitted 'close' (now or before `closed` was recorded) or after the grace. */
export function endClient(client: Client, alreadyClosed: boolean, graceMs = CLIENT_CLOSE_GRACE_MS): Promise<void> {
  if (alreadyClosed) return Promise.resolve();
  return untilClosed(client, () => client.end(), graceMs);
}
