// The etcd snapshot roles, run by `kcluster etcd snapshot save|restore` (playbooks/etcd-snapshot.ts).
// - saveRole, on one control plane: etcd's members must answer; a snapshot is taken there,
//   checked with etcdutl, copied to the controller over SFTP and checked again by sha256.
// - the restore roles, each in a play of its own on every control plane, so that each step is
//   done everywhere before the next starts (a member restored alone would form a cluster of its
//   own): the snapshot on the host (sha256 checked), the restored data dir built beside the
//   current one, the control plane stopped, the data dirs swapped and the control plane started;
//   restartRole is a cleanup play that puts parked manifests back whatever failed before it.
// Every step is a task: --check shows each step, -o json streams them. See README.md here.
import { basename } from 'node:path';
import { noChange } from '../../src/orchestrator/engine/change.js';
import type { Role, Task } from '../../src/orchestrator/engine/types.js';
import { fileState } from '../../src/orchestrator/facts/file-state.js';
import { execChecked } from '../../src/orchestrator/ssh/connection.js';
import { sh } from '../../src/orchestrator/ssh/quote.js';
import { etcdMembership } from '../../src/kubernetes/etcd/etcd-membership.js';
import { saveEtcdSnapshot, type SavedSnapshot } from '../../src/kubernetes/etcd/etcd-snapshot.js';
import {
  buildRestoredDataDir,
  discardRestoredDataDir,
  PARKED_MANIFESTS,
  restoreLeftovers,
  startControlPlane,
  stopControlPlane,
  swapDataDir,
  type RestorePlan,
} from '../../src/kubernetes/etcd/etcd-restore.js';

export interface SnapshotSaveTarget {
  readonly stateDir: string;
  /** File name under <stateDir>/backups (chosen by the command: plans read no clock). */
  readonly name: string;
  /** Told the saved snapshot, for the command's report. */
  readonly saved: (snapshot: SavedSnapshot) => void;
}

export function saveRole(target: SnapshotSaveTarget): Role {
  const task: Task<{ members: ReturnType<typeof etcdMembership> }, null> = {
    name: 'save an etcd snapshot',
    tags: ['etcd', 'snapshot'],
    facts: () => ({ members: etcdMembership() }),
    plan: ({ members }, ctx) => {
      const healthy = members.filter((m) => m.healthy).length;
      if (healthy * 2 <= members.length)
        throw new Error(
          `etcd has no healthy majority as ${ctx.host.name} sees it (${healthy} of ${members.length} members answer): no snapshot can be taken; look at the etcd containers (crictl ps -a --name etcd)`,
        );
      return {
        kind: 'create',
        summary: `snapshot of etcd (${healthy} of ${members.length} members healthy) to ${target.stateDir}/backups/${target.name}`,
        payload: null,
      };
    },
    apply: async (_change, ctx) => {
      const saved = await saveEtcdSnapshot(ctx.connection, target.stateDir, target.name);
      ctx.log(`etcd snapshot: revision ${saved.revision}, ${saved.keys} keys, ${saved.bytes} bytes, sha256 ${saved.sha256}`);
      target.saved(saved);
    },
    // A snapshot is an event, not a state: there is nothing to re-read.
    verify: false,
  };
  return { name: 'etcd-snapshot-save', tags: ['etcd'], tasks: [task] };
}

export interface SnapshotRestoreTarget extends RestorePlan {
  /** The snapshot on the controller and its sha256 (read by the command before the run). */
  readonly localFile: string;
  readonly sha256: string;
}

/** Step 1: the snapshot on the host, byte for byte; etcdutl reads it. */
export function uploadRole(target: SnapshotRestoreTarget): Role {
  const remote = target.remoteSnapshot;
  const task: Task<{ file: ReturnType<typeof fileState> }, null> = {
    name: 'the snapshot on the control plane',
    tags: ['etcd', 'restore'],
    facts: () => ({ file: fileState(remote, { content: false }) }),
    plan: ({ file }) =>
      file.exists && file.sha256 === target.sha256
        ? noChange(`${remote} (sha256 ${target.sha256.slice(0, 12)}...)`)
        : { kind: file.exists ? 'update' : 'create', summary: `upload ${basename(target.localFile)} to ${remote} (sha256 checked)`, payload: null },
    apply: async (_change, ctx) => {
      await ctx.transfers.run(() =>
        ctx.connection.uploadFile(target.localFile, remote, {
          mode: 0o600,
          owner: 'root',
          group: 'root',
          become: true,
          mkdirParents: true,
          sha256: target.sha256,
          label: 'upload etcd snapshot',
        }),
      );
      const status = await execChecked(ctx.connection, sh`/usr/local/bin/etcdutl snapshot status ${remote} -w json`, {
        become: true,
        label: 'etcdutl snapshot status',
      });
      ctx.log(`etcdutl snapshot status: ${status.stdout.trim().split('\n').pop() ?? ''}`);
    },
    verify: true,
  };
  return { name: 'etcd-restore-upload', tags: ['etcd'], tasks: [task] };
}

function step(name: string, summary: (host: string) => string, run: Task<Record<string, never>, null>['apply']): Task<Record<string, never>, null> {
  return {
    name,
    tags: ['etcd', 'restore'],
    facts: () => ({}),
    plan: (_facts, ctx) => ({ kind: 'run', summary: summary(ctx.host.name), payload: null }),
    apply: run,
    verify: false,
  };
}

/** Step 2: the restored data dir beside the current one; nothing running changes. */
export function buildRole(target: SnapshotRestoreTarget): Role {
  return {
    name: 'etcd-restore-build',
    tags: ['etcd'],
    tasks: [
      step(
        'build the restored etcd data dir',
        (host) => `etcdutl snapshot restore into /var/lib/etcd.restoring as member ${host} of ${target.members.length}`,
        (_c, ctx) => buildRestoredDataDir(ctx.connection, target, ctx.host.name),
      ),
    ],
  };
}

/** Step 3: the four static pods stopped (manifests parked in /etc/kubernetes/restoring). */
export function stopRole(): Role {
  return {
    name: 'etcd-restore-stop',
    tags: ['etcd'],
    tasks: [
      step(
        'stop the control plane',
        () => `park the control-plane manifests in ${PARKED_MANIFESTS} and wait for the containers to stop`,
        (_c, ctx) => stopControlPlane(ctx.connection),
      ),
    ],
  };
}

/** Step 4: the restored data in place (the previous kept beside it), the control plane started. */
export function swapRole(target: SnapshotRestoreTarget): Role {
  return {
    name: 'etcd-restore-swap',
    tags: ['etcd'],
    tasks: [
      step(
        'swap in the restored data dir',
        () => `move /var/lib/etcd to ${target.keptDataDir}, the restored data dir to /var/lib/etcd`,
        (_c, ctx) => swapDataDir(ctx.connection, target),
      ),
      step(
        'start the control plane',
        () => 'put the control-plane manifests back',
        (_c, ctx) => startControlPlane(ctx.connection),
      ),
    ],
  };
}

/** Cleanup (an `always` play): parked manifests go back, a half-built data dir goes away. */
export function restartRole(): Role {
  const task: Task<{ left: ReturnType<typeof restoreLeftovers> }, null> = {
    name: 'the control plane is not left stopped',
    tags: ['etcd', 'restore'],
    facts: () => ({ left: restoreLeftovers() }),
    plan: ({ left }) => {
      if (left.parked.length === 0 && !left.halfBuilt) return noChange('nothing of a restore is left over');
      const what = [
        ...(left.parked.length > 0 ? [`put ${left.parked.join(', ')} back from ${PARKED_MANIFESTS}`] : []),
        ...(left.halfBuilt ? ['remove the restored data dir that was not swapped in'] : []),
      ];
      return { kind: 'run', summary: what.join('; '), payload: null };
    },
    apply: async (_c, ctx) => {
      await startControlPlane(ctx.connection);
      await discardRestoredDataDir(ctx.connection);
    },
    verify: true,
  };
  return { name: 'etcd-restore-restart', tags: ['etcd'], tasks: [task] };
}
