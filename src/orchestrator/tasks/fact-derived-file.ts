// A managed file whose content depends on facts of the host besides the file itself (the
// kubelet's config depends on the cgroup version, its resolv.conf path on what exists).
// Plan stays pure: the extra facts come in like the file's own.
import { skip } from '../engine/change.js';
import type { FactMap, FactValues } from '../engine/fact.js';
import type { HostContext, Task } from '../engine/types.js';
import { fileState, fileStateKeys } from '../facts/file-state.js';
import { planManagedFile, type ManagedFilePayload } from './managed-file.js';

export interface FactDerivedFileOptions<M extends FactMap> {
  readonly path: string;
  readonly mode: number;
  readonly facts: (ctx: HostContext) => M;
  /** The content, or { skip } when it cannot be known yet (e.g. in --check before a dependency exists). */
  readonly content: (facts: FactValues<M>, ctx: HostContext) => string | { readonly skip: string };
  readonly notify?: readonly string[];
  readonly tags?: readonly string[];
  /** Fact keys its write makes stale besides the file's own. */
  readonly invalidates?: readonly string[];
}

export function factDerivedFile<M extends FactMap>(options: FactDerivedFileOptions<M>): Task<FactMap, ManagedFilePayload> {
  return {
    name: `file ${options.path}`,
    ...(options.tags ? { tags: options.tags } : {}),
    ...(options.notify ? { notify: options.notify } : {}),
    invalidates: [...fileStateKeys(options.path), ...(options.invalidates ?? [])],
    facts: (ctx) => ({ ...options.facts(ctx), __file: fileState(options.path, { content: true }) }),
    plan: (facts, ctx) => {
      const all = facts as unknown as FactValues<M> & { __file: ReturnType<typeof fileState> extends import('../engine/fact.js').Fact<infer T> ? T : never };
      const content = options.content(all, ctx);
      if (typeof content !== 'string') return skip(content.skip);
      return planManagedFile({ path: options.path, mode: options.mode }, all.__file, Buffer.from(content, 'utf8'));
    },
    apply: async (change, ctx) => {
      await ctx.connection.writeFile(options.path, change.payload.content, {
        mode: options.mode,
        owner: 'root',
        group: 'root',
        become: true,
        mkdirParents: true,
        label: `write ${options.path}`,
      });
    },
  };
}
