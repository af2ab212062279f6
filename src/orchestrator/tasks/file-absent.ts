// A file that must not be there (a path kcluster used before and moved away from): removed
// when present, with the reason in the change's summary. A directory at the path is an error
// that names it (never removed: it may hold data).
import { noChange, type Change } from '../engine/change.js';
import type { Task } from '../engine/types.js';
import { fileState, fileStateKeys, type FileState } from '../facts/file-state.js';
import { execChecked } from '../ssh/connection.js';
import { sh } from '../ssh/quote.js';

export interface FileAbsentOptions {
  readonly path: string;
  /** Why it goes, for the plan, e.g. "moved to /etc/kubernetes/etcd". */
  readonly why: string;
  readonly tags?: readonly string[];
  /** Handlers to run when the file is removed (e.g. restart the unit a drop-in belonged to). */
  readonly notify?: readonly string[];
  /** Fact keys the removal makes stale besides the file's own (e.g. "systemd:*" for a drop-in). */
  readonly invalidates?: readonly string[];
}

/** Pure: the host's path in, the Change out. */
export function planFileAbsent(options: FileAbsentOptions, current: FileState): Change<null> {
  if (!current.exists) return noChange(`${options.path} is absent`);
  if (current.type === 'directory') throw new Error(`${options.path} is a directory, where kcluster expects at most a file it no longer uses: move it away`);
  return { kind: 'delete', summary: `remove ${options.path} (${options.why})`, payload: null };
}

export function fileAbsent(options: FileAbsentOptions): Task<{ file: ReturnType<typeof fileState> }, null> {
  if (!options.path.startsWith('/')) throw new Error(`file paths must be absolute (got "${options.path}")`);
  return {
    name: `no file ${options.path}`,
    ...(options.tags ? { tags: options.tags } : {}),
    ...(options.notify ? { notify: options.notify } : {}),
    invalidates: [...fileStateKeys(options.path), ...(options.invalidates ?? [])],
    facts: () => ({ file: fileState(options.path) }),
    plan: (facts) => planFileAbsent(options, facts.file),
    apply: async (_change, ctx) => {
      await execChecked(ctx.connection, sh`rm -f -- ${options.path}`, { become: true, label: `remove ${options.path}` });
    },
  };
}
