// A kernel parameter: its live value and its persisted line under /etc/sysctl.d.
import { noChange, type Change } from '../engine/change.js';
import type { Task } from '../engine/types.js';
import { execChecked } from '../ssh/connection.js';
import { sh } from '../ssh/quote.js';
import { fileState, type FileState } from '../facts/file-state.js';
import { sysctlPath, sysctlValue, type SysctlValue } from '../facts/sysctl-value.js';
import { planManagedFile } from './template-file.js';

export interface SysctlOptions {
  readonly key: string;
  readonly value: string;
  /** e.g. /etc/sysctl.d/90-kcluster.conf (one file per setting keeps ownership clear). */
  readonly persistFile: string;
  readonly tags?: readonly string[];
}

interface Payload {
  readonly runtime: boolean;
  readonly persist?: Buffer;
}

export function planSysctl(options: SysctlOptions, live: SysctlValue, file: FileState): Change<Payload> {
  if (!live.present) throw new Error(`${options.key} does not exist on this kernel (no ${sysctlPath(options.key)})`);
  const line = Buffer.from(`# Managed by kcluster\n${options.key} = ${options.value}\n`);
  const filePlan = planManagedFile({ path: options.persistFile, content: () => line, mode: 0o644 }, file, line);
  const runtime = live.value !== options.value;
  if (!runtime && filePlan.kind === 'none') return noChange(`${options.key} = ${options.value}, persisted in ${options.persistFile}`);
  const parts = [runtime ? `set ${options.key} = ${options.value} (was ${live.value})` : '', filePlan.kind !== 'none' ? `persist in ${options.persistFile}` : ''].filter(Boolean);
  return {
    kind: 'update',
    summary: parts.join('; '),
    ...(filePlan.kind !== 'none' && filePlan.kind !== 'skip' && filePlan.diff ? { diff: filePlan.diff } : {}),
    payload: { runtime, ...(filePlan.kind !== 'none' ? { persist: line } : {}) },
  };
}

export function sysctl(options: SysctlOptions): Task<{ live: ReturnType<typeof sysctlValue>; file: ReturnType<typeof fileState> }, Payload> {
  return {
    name: `sysctl ${options.key} = ${options.value}`,
    ...(options.tags ? { tags: options.tags } : {}),
    facts: () => ({ live: sysctlValue(options.key), file: fileState(options.persistFile, { content: true }) }),
    plan: (facts) => planSysctl(options, facts.live, facts.file),
    apply: async (change, ctx) => {
      if (change.payload.persist) {
        await ctx.connection.writeFile(options.persistFile, change.payload.persist, { mode: 0o644, owner: 'root', group: 'root', become: true, mkdirParents: true });
      }
      if (change.payload.runtime) {
        await execChecked(ctx.connection, sh`printf '%s\n' ${options.value} > ${sysctlPath(options.key)}`, { become: true, label: `sysctl ${options.key}` });
      }
    },
  };
}
