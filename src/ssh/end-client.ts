// Ending an ssh2 Client cleanly: send the disconnect, then wait until its transport is closed
// (bounded), so a caller that closes a bastion after the hosts behind it never cuts a host's
// goodbye off in the tunnel (the host would log a reset instead of a disconnect).
import type { Client } from 'ssh2';

/** How long to wait for the server to close a connection we ended. */
export const CLIENT_CLOSE_GRACE_MS = 2000;

/** Resolves once `client` emitted 'close' (now or before `closed` was recorded) or after the grace. */
export function endClient(client: Client, alreadyClosed: boolean, graceMs = CLIENT_CLOSE_GRACE_MS): Promise<void> {
  if (alreadyClosed) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, graceMs);
    timer.unref();
    client.once('close', () => {
      clearTimeout(timer);
      resolve();
    });
    client.end();
  });
}
