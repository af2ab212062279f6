// A directory with a mode and an owner: created with its parents when absent, its mode and
// owner fixed when they differ. Something else at the path is an error that names it (never
// removed: it may hold data).
import { noChange, type Change } from '../engine/change.js';
import type { Task } from '../engine/types.js';
import { fileState, fileStateKeys, type FileState } from '../facts/file-state.js';
import { execChecked } from '../ssh/connection.js';
import { sh } from '../ssh/quote.js';
import { octalMode } from './managed-file.js';

export interface DirectoryOptions {
  readonly path: string;
  /** Octal, e.g. 0o700. */
  readonly mode: number;
  /** Default root:root. */
  readonly owner?: string;
  readonly group?: string;
  readonly tags?: readonly string[];
}

/** Pure: the host's path and the wanted directory in, the Change out. */
export function planDirectory(options: DirectoryOptions, current: FileState): Change<null> {
  const mode = octalMode(options.mode);
  const owner = options.owner ?? 'root';
  const group = options.group ?? 'root';
  if (!current.exists) return { kind: 'create', summary: `create directory ${options.path} (mode ${mode}, ${owner}:${group})`, payload: null };
  if (current.type !== 'directory')
    throw new Error(`${options.path} is a ${current.type ?? 'thing'}, not a directory: move it away (kcluster does not remove what may hold data)`);
  const fixes: string[] = [];
  if (current.mode !== mode) fixes.push(`mode ${current.mode ?? '?'} -> ${mode}`);
  if (current.owner !== owner || current.group !== group) fixes.push(`owner ${current.owner ?? '?'}:${current.group ?? '?'} -> ${owner}:${group}`);
  return fixes.length === 0
    ? noChange(`${options.path} is a directory, mode ${mode}, ${owner}:${group}`)
    : { kind: 'update', summary: `fix ${options.path}: ${fixes.join(', ')}`, payload: null };
}

export function directory(options: DirectoryOptions): Task<{ dir: ReturnType<typeof fileState> }, null> {
  if (!options.path.startsWith('/')) throw new Error(`directory paths must be absolute (got "${options.path}")`);
  const owner = `${options.owner ?? 'root'}:${options.group ?? 'root'}`;
  return {
    name: `directory ${options.path}`,
    ...(options.tags ? { tags: options.tags } : {}),
    invalidates: fileStateKeys(options.path),
    facts: () => ({ dir: fileState(options.path) }),
    plan: (facts) => planDirectory(options, facts.dir),
    apply: async (_change, ctx) => {
      await execChecked(
        ctx.connection,
        sh`mkdir -p -- ${options.path} && chmod ${octalMode(options.mode)} ${options.path} && chown -- ${owner} ${options.path}`,
        { become: true, label: `directory ${options.path}` },
      );
    },
  };
}
