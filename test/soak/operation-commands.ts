// The kcluster commands of each operation, in order, with the inventory each one runs against
// (the host to add already listed, the host to remove still listed). Pure: the executor writes
// the inventory, runs the command, injects the planned fault and resumes.
import type { ClusterModel } from './cluster-model.js';
import { modelAfter, type PlannedOperation } from './operations.js';

export interface PlannedCommand {
  /** The inventory written before it runs. */
  readonly inventory: ClusterModel;
  /** The arguments after `kcluster`, given the inventory file. */
  readonly args: (inventoryFile: string) => string[];
  /** Waited before it runs (the service-account key's keep time). */
  readonly waitBeforeMs?: number;
  /**
   * Run only while a CA or key rotation is under way in the state folder, and again (after the
   * same wait) while it still is, up to this many times: a run killed between two phases leaves
   * the next run to go through reissue, which starts the keep time over.
   */
  readonly whileRotating?: number;
  /** This host is shut down cleanly and booted again (by `kcluster lab up`) before the command runs. */
  readonly rebootFirst?: number;
  /** This host is destroyed (killed whole, kept down) before the command runs: no fault targets it. */
  readonly destroyFirst?: number;
  /** This host is down while the command runs (destroyed by an earlier command): no fault targets it. */
  readonly down?: number;
}

export interface OperationCommands {
  readonly commands: readonly PlannedCommand[];
  /** The inventory written once they all succeeded. */
  readonly inventoryAfter: ClusterModel;
  /** Once they all succeeded: this destroyed host's disk is wiped and it boots again, a spare. */
  readonly wipeAfter?: number;
}

/** The service-account key's old public key is kept this long; the second run comes after it. */
export const KEEP_OLD_KEY_SECONDS = 10;

export function commandsFor(
  op: PlannedOperation,
  before: ClusterModel,
  hostName: (host: number) => string,
  newestSnapshot: () => string = () => '<the newest snapshot in the state folder>',
): OperationCommands {
  const after = modelAfter(before, op);
  const apply = (inventory: ClusterModel): PlannedCommand => ({ inventory, args: (i) => ['apply', '-i', i] });
  const only = (command: PlannedCommand): OperationCommands => ({ commands: [command], inventoryAfter: after });
  switch (op.kind) {
    case 'add-worker':
    case 'add-control-plane':
    case 'kubelet-max-pods':
    case 'api-server-mutating-inflight':
      return only(apply(after));
    case 'upgrade':
      return only({ inventory: after, args: (i) => ['upgrade', '-i', i] });
    case 'reboot-host':
      return only({ ...apply(before), rebootFirst: op.host });
    // As the docs and remove-node's last line say: the host out of the inventory, then apply, so
    // that the others follow (a control plane's address, CoreDNS's replicas, the control-plane
    // taint once the last worker goes).
    case 'remove-worker':
      return { commands: [{ inventory: before, args: (i) => ['remove-node', '-i', i, hostName(op.host), '--yes'] }, apply(after)], inventoryAfter: after };
    case 'remove-control-plane':
      return {
        commands: [{ inventory: before, args: (i) => ['remove-node', '-i', i, hostName(op.host), '--yes', '--allow-even'] }, apply(after)],
        inventoryAfter: after,
      };
    case 'lose-control-plane':
      return {
        commands: [
          { inventory: before, args: (i) => ['remove-node', '-i', i, hostName(op.host), '--unreachable', '--yes', '--allow-even'], destroyFirst: op.host },
          { ...apply(after), down: op.host },
        ],
        inventoryAfter: after,
        wipeAfter: op.host,
      };
    case 'readd-control-plane':
      return {
        commands: [{ inventory: before, args: (i) => ['remove-node', '-i', i, hostName(op.host), '--yes', '--allow-even'] }, apply(before)],
        inventoryAfter: after,
      };
    case 'certs-renew':
      return only({ inventory: before, args: (i) => ['certs', 'renew', '-i', i, '--yes'] });
    case 'rotate-ca':
      return only({ inventory: before, args: (i) => ['certs', 'rotate-ca', '-i', i, '--yes', '--restart-workloads'] });
    case 'rotate-service-account-key': {
      const args = (i: string) => ['certs', 'rotate-ca', '-i', i, '--yes', '--service-account-key', '--keep-old-key', `${KEEP_OLD_KEY_SECONDS}s`];
      return {
        commands: [
          { inventory: before, args },
          { inventory: before, args, waitBeforeMs: (KEEP_OLD_KEY_SECONDS + 5) * 1000, whileRotating: 3 },
        ],
        inventoryAfter: after,
      };
    }
    case 'secrets-rotate-key':
      return only({ inventory: before, args: (i) => ['secrets', 'rotate-key', '-i', i, '--yes'] });
    case 'etcd-snapshot-save':
      return only({ inventory: before, args: (i) => ['etcd', 'snapshot', 'save', '-i', i] });
    // The snapshot restored is the newest in the state folder when the restore starts: the one
    // the save just took (a resumed save ends with the same file).
    case 'etcd-snapshot-restore':
      return {
        commands: [
          { inventory: before, args: (i) => ['etcd', 'snapshot', 'save', '-i', i] },
          { inventory: before, args: (i) => ['etcd', 'snapshot', 'restore', '-i', i, newestSnapshot(), '--yes'] },
        ],
        inventoryAfter: after,
      };
  }
}
