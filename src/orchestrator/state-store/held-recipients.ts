// The key hosts seal objects for (recipient-envelope.ts), known while a command holds a state
// store's session: the session sets it for its state folder, and the cluster's inputs ask for it
// without knowing about stores (like off-box-copies.ts).
import type { Recipient } from './recipient-envelope.js';

const recipients = new Map<string, Recipient>();

export function setHeldRecipient(stateDir: string, recipient: Recipient | undefined): void {
  if (recipient === undefined) recipients.delete(stateDir);
  else recipients.set(stateDir, recipient);
}

export const heldRecipientFor = (stateDir: string): Recipient | undefined => recipients.get(stateDir);
