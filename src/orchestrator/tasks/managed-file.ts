// A file whose content kcluster owns: plan compares the desired bytes, mode and owner with
// the host's file (its bytes when the read brought them, else its sha256: a big or binary
// file needs no content) and shows a unified diff for text; apply writes it atomically.
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import type { createTwoFilesPatch as CreateTwoFilesPatch } from 'diff';
import { noChange, type Change } from '../engine/change.js';
import type { HostContext, Task } from '../engine/types.js';
import { bytesAsText, fetchedBytes, fileState, fileStateKeys, DEFAULT_MAX_CONTENT_BYTES, type FileState } from '../facts/file-state.js';

export interface ManagedFileOptions {
  readonly name?: string;
  readonly path: string;
  /** Called at plan time: must be pure (compute from ctx, no I/O). */
  readonly content: (ctx: HostContext) => string | Buffer;
  /** Octal, e.g. 0o644. */
  readonly mode: number;
  /** Default root:root. */
  readonly owner?: string;
  readonly group?: string;
  readonly notify?: readonly string[];
  readonly tags?: readonly string[];
  /** Fact keys this write makes stale besides the file's own (e.g. "systemd:*" for a unit). */
  readonly invalidates?: readonly string[];
  /**
   * Never show the content in a diff (`--diff`, JSON events, the debug log): keys, tokens,
   * kubeconfigs with credentials. Content that looks like a private key or a kubeconfig's
   * client key is hidden without it too.
   */
  readonly secret?: boolean;
}

export interface ManagedFilePayload {
  readonly content: Buffer;
}

type FilePlanOptions = Pick<ManagedFileOptions, 'path' | 'mode' | 'owner' | 'group' | 'secret'>;

/** What gives a secret away even when no task said so: PEM private keys, kubeconfig client keys, bearer tokens. */
const SECRET_MARKERS = /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----|\bclient-key-data:|^\s*token:\s*\S/m;

export function looksSecret(content: Buffer | string | undefined): boolean {
  if (content === undefined) return false;
  return SECRET_MARKERS.test(typeof content === 'string' ? content : content.toString('latin1'));
}

/**
 * Whether a planned content change must not be shown: asked only when there is a diff to show,
 * so a converged file (every no-op rerun) pays nothing for it.
 */
function hidesContent(options: FilePlanOptions, current: FileState, desired: Buffer): boolean {
  if (options.secret === true || looksSecret(desired)) return true;
  return current.exists && current.type === 'file' && looksSecret(fetchedBytes(current) ?? current.content);
}

// The diff library is loaded on the first diff (a no-op run shows none: about 20 ms of start-up).
const requireFromHere = createRequire(import.meta.url);
let diffLibrary: { createTwoFilesPatch: typeof CreateTwoFilesPatch } | undefined;
/** A unified diff of two texts, the diff library loaded on first use (shared by every task that shows one). */
export function createTwoFilesPatch(oldName: string, newName: string, oldText: string, newText: string): string {
  diffLibrary ??= requireFromHere('diff') as { createTwoFilesPatch: typeof CreateTwoFilesPatch };
  return diffLibrary.createTwoFilesPatch(oldName, newName, oldText, newText);
}

export const octalMode = (mode: number): string => mode.toString(8).padStart(4, '0');

function textForDiff(bytes: Buffer): string | undefined {
  return bytes.length <= DEFAULT_MAX_CONTENT_BYTES ? bytesAsText(bytes) : undefined;
}

/** Pure: the host's file and the desired bytes in, the Change out. */
export function planManagedFile(options: FilePlanOptions, current: FileState, desired: Buffer): Change<ManagedFilePayload> {
  const mode = octalMode(options.mode);
  const owner = options.owner ?? 'root';
  const group = options.group ?? 'root';
  const label = options.path.replace(/^\/+/, '');
  const payload = { content: desired };
  if (!current.exists) {
    if (hidesContent(options, current, desired))
      return {
        kind: 'create',
        summary: `create ${options.path} (mode ${mode}, ${owner}:${group}; ${desired.length} bytes, secret: content not shown)`,
        secret: true,
        payload,
      };
    const desiredText = textForDiff(desired);
    const diff = desiredText !== undefined ? createTwoFilesPatch('/dev/null', `b/${label}`, '', desiredText) : undefined;
    return { kind: 'create', summary: `create ${options.path} (mode ${mode}, ${owner}:${group})`, ...(diff ? { diff } : {}), payload };
  }
  if (current.type !== 'file') {
    return { kind: 'update', summary: `replace the ${current.type ?? 'thing'} at ${options.path} with a file (mode ${mode}, ${owner}:${group})`, payload };
  }
  const currentBytes = fetchedBytes(current);
  const contentDiffers = currentBytes ? !currentBytes.equals(desired) : current.sha256 !== createHash('sha256').update(desired).digest('hex');
  const attributes: string[] = [];
  if (current.mode !== mode) attributes.push(`mode ${current.mode ?? '?'} -> ${mode}`);
  if (current.owner !== owner || current.group !== group) attributes.push(`owner ${current.owner ?? '?'}:${current.group ?? '?'} -> ${owner}:${group}`);
  if (!contentDiffers && attributes.length === 0) return noChange(`${options.path} already has this content, mode ${mode} and owner ${owner}:${group}`);
  if (!contentDiffers) {
    return { kind: 'update', summary: `update ${options.path} (${attributes.join(', ')}; content unchanged)`, payload };
  }
  if (hidesContent(options, current, desired))
    return { kind: 'update', summary: `update ${options.path} (${['content (secret: not shown)', ...attributes].join(', ')})`, secret: true, payload };
  // Decoded for the diff only: a converged file costs one comparison, not a UTF-8 round trip.
  const desiredText = current.content !== undefined ? textForDiff(desired) : undefined;
  const diff =
    current.content !== undefined && desiredText !== undefined ? createTwoFilesPatch(`a/${label}`, `b/${label}`, current.content, desiredText) : undefined;
  const what = diff ? 'content' : 'content (binary or too large to diff)';
  return { kind: 'update', summary: `update ${options.path} (${[what, ...attributes].join(', ')})`, ...(diff ? { diff } : {}), payload };
}

export function managedFile(options: ManagedFileOptions): Task<{ file: ReturnType<typeof fileState> }, ManagedFilePayload> {
  return {
    name: options.name ?? `file ${options.path}`,
    ...(options.tags ? { tags: options.tags } : {}),
    ...(options.notify ? { notify: options.notify } : {}),
    // Other reads of the same path (metadata only, other size caps) are stale too.
    invalidates: [...fileStateKeys(options.path), ...(options.invalidates ?? [])],
    facts: () => ({ file: fileState(options.path, { content: true }) }),
    plan: (facts, ctx) => {
      const content = options.content(ctx);
      return planManagedFile(options, facts.file, Buffer.isBuffer(content) ? content : Buffer.from(content, 'utf8'));
    },
    apply: async (change, ctx) => {
      await ctx.connection.writeFile(options.path, change.payload.content, {
        mode: options.mode,
        owner: options.owner ?? 'root',
        group: options.group ?? 'root',
        become: true,
        mkdirParents: true,
        label: `write ${options.path}`,
      });
    },
  };
}
