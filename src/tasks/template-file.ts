// A file whose content kcluster owns: plan compares the desired bytes, mode and owner with
// the host's file and shows a unified diff; apply writes it atomically.
import { createHash } from 'node:crypto';
import { createTwoFilesPatch } from 'diff';
import { noChange, type Change } from '../engine/change.js';
import type { HostContext, Task } from '../engine/types.js';
import { fileState, type FileState } from '../facts/file-state.js';

export interface ManagedFileOptions {
  readonly name?: string;
  readonly path: string;
  readonly content: (ctx: HostContext) => string | Buffer;
  readonly mode: number;
  readonly owner?: string;
  readonly group?: string;
  readonly notify?: readonly string[];
  readonly tags?: readonly string[];
  readonly invalidates?: readonly string[];
}

interface Payload {
  readonly content: Buffer;
}

function isText(buffer: Buffer): boolean {
  return !buffer.includes(0) && buffer.length <= 256 * 1024;
}

export function planManagedFile(options: ManagedFileOptions, current: FileState, desired: Buffer): Change<Payload> {
  const mode = options.mode.toString(8).padStart(4, '0');
  const owner = options.owner ?? 'root';
  const group = options.group ?? 'root';
  const sha256 = createHash('sha256').update(desired).digest('hex');
  const label = options.path.replace(/^\//, '');
  if (!current.exists) {
    const diff = isText(desired) ? createTwoFilesPatch('/dev/null', `b/${label}`, '', desired.toString('utf8')) : undefined;
    return { kind: 'create', summary: `create ${options.path} (mode ${mode}, ${owner}:${group})`, ...(diff ? { diff } : {}), payload: { content: desired } };
  }
  if (current.type !== 'file') {
    return { kind: 'update', summary: `replace the ${current.type} at ${options.path} with a file`, payload: { content: desired } };
  }
  const reasons: string[] = [];
  if (current.sha256 !== sha256) reasons.push('content');
  if (current.mode !== mode) reasons.push(`mode ${current.mode} -> ${mode}`);
  if (current.owner !== owner || current.group !== group) reasons.push(`owner ${current.owner}:${current.group} -> ${owner}:${group}`);
  if (reasons.length === 0) return noChange(`${options.path} is up to date`);
  const before = current.content;
  const diff =
    reasons.includes('content') && before && isText(before) && isText(desired)
      ? createTwoFilesPatch(`a/${label}`, `b/${label}`, before.toString('utf8'), desired.toString('utf8'))
      : undefined;
  return { kind: 'update', summary: `update ${options.path} (${reasons.join(', ')})`, ...(diff ? { diff } : {}), payload: { content: desired } };
}

export function managedFile(options: ManagedFileOptions): Task<{ file: ReturnType<typeof fileState> }, Payload> {
  return {
    name: options.name ?? `file ${options.path}`,
    ...(options.tags ? { tags: options.tags } : {}),
    ...(options.notify ? { notify: options.notify } : {}),
    ...(options.invalidates ? { invalidates: options.invalidates } : {}),
    facts: () => ({ file: fileState(options.path, { content: true }) }),
    plan: (facts, ctx) => {
      const content = options.content(ctx);
      return planManagedFile(options, facts.file, Buffer.isBuffer(content) ? content : Buffer.from(content));
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
