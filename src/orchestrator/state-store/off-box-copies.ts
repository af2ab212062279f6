// Where a file the controller saves (an etcd snapshot) is copied off the box: a command holding
// a state store's session sets it for its state folder, and the code that saves snapshots asks
// for it without knowing about stores (issue 41: snapshots must not die with the hosts, or the
// controller, that hold them).

/** Copies the file off the box; says where, for the run's log. */
export type OffBoxCopy = (file: string) => Promise<string>;

const copies = new Map<string, OffBoxCopy>();

export function setOffBoxCopy(stateDir: string, copy: OffBoxCopy | undefined): void {
  if (copy === undefined) copies.delete(stateDir);
  else copies.set(stateDir, copy);
}

export const offBoxCopyFor = (stateDir: string): OffBoxCopy | undefined => copies.get(stateDir);
