// A kernel parameter: its live value (/proc/sys) and its persisted line under /etc/sysctl.d,
// so it survives a reboot.
import { noChange, type Change } from '../engine/change.js';
import type { Task } from '../engine/types.js';
import { execChecked } from '../ssh/connection.js';
import { sh } from '../ssh/quote.js';
import { fileState, fileStateKeys, type FileState } from '../facts/file-state.js';
import { sysctlPath, sysctlValue, type SysctlValue } from '../facts/sysctl-value.js';
import { planManagedFile } from './managed-file.js';

export interface SysctlOptions {
  readonly key: string;
  readonly value: string;
  /** e.g. /etc/sysctl.d/90-kcluster.conf (one file per setting keeps ownership clear). */
  readonly persistFile: string;
  /**
   * The kernel module that provides the key (net.bridge.* comes with br_netfilter): when the
   * key is missing, apply loads it first instead of failing, so a check run before the module
   * is loaded plans the change.
   */
  readonly module?: string;
  readonly tags?: readonly string[];
  readonly notify?: readonly string[];
}

export interface SysctlPayload {
  readonly runtime: boolean;
  readonly persist?: Buffer;
}

/** The kernel prints multi-value settings separated by tabs; compare them word by word. */
const normalise = (value: string): string => value.trim().replace(/\s+/g, ' ');

export function persistedSysctl(options: Pick<SysctlOptions, 'key' | 'value'>): string {
  return `# Managed by kcluster\n${options.key} = ${normalise(options.value)}\n`;
}

/** Pure: live value and persisted file in, the Change out. */
export function planSysctl(options: SysctlOptions, live: SysctlValue, file: FileState): Change<SysctlPayload> {
  const want = normalise(options.value);
  if (!live.present) {
    if (options.module === undefined) {
      throw new Error(`${options.key} does not exist on this kernel (no ${sysctlPath(options.key)}): load the module that provides it, or drop the setting`);
    }
    const persist = planManagedFile({ path: options.persistFile, mode: 0o644 }, file, Buffer.from(persistedSysctl(options))).kind !== 'none';
    return {
      kind: 'update',
      summary: `load ${options.module}, then set ${options.key} = ${want}${persist ? `; persist in ${options.persistFile}` : ''}`,
      payload: { runtime: true, ...(persist ? { persist: Buffer.from(persistedSysctl(options)) } : {}) },
    };
  }
  const line = Buffer.from(persistedSysctl(options));
  const filePlan = planManagedFile({ path: options.persistFile, mode: 0o644 }, file, line);
  const runtime = normalise(live.value ?? '') !== want;
  const persist = filePlan.kind !== 'none';
  if (!runtime && !persist) return noChange(`${options.key} = ${want}, persisted in ${options.persistFile}`);
  const parts = [runtime ? `set ${options.key} = ${want} (was ${normalise(live.value ?? '')})` : '', persist ? `persist in ${options.persistFile}` : ''];
  const diff = filePlan.kind !== 'none' && filePlan.kind !== 'skip' ? filePlan.diff : undefined;
  return {
    kind: 'update',
    summary: parts.filter(Boolean).join('; '),
    ...(diff ? { diff } : {}),
    payload: { runtime, ...(persist ? { persist: line } : {}) },
  };
}

export function sysctl(options: SysctlOptions): Task<{ live: ReturnType<typeof sysctlValue>; file: ReturnType<typeof fileState> }, SysctlPayload> {
  const path = sysctlPath(options.key);
  return {
    name: `sysctl ${options.key} = ${normalise(options.value)}`,
    ...(options.tags ? { tags: options.tags } : {}),
    ...(options.notify ? { notify: options.notify } : {}),
    invalidates: fileStateKeys(options.persistFile),
    facts: () => ({ live: sysctlValue(options.key), file: fileState(options.persistFile, { content: true }) }),
    plan: (facts) => planSysctl(options, facts.live, facts.file),
    apply: async (change, ctx) => {
      if (change.payload.persist) {
        await ctx.connection.writeFile(options.persistFile, change.payload.persist, {
          mode: 0o644,
          owner: 'root',
          group: 'root',
          become: true,
          mkdirParents: true,
          label: `write ${options.persistFile}`,
        });
      }
      if (change.payload.runtime) {
        // Writing /proc/sys directly needs no sysctl binary (absent from minimal images).
        const load = options.module !== undefined ? sh`[ -e ${path} ] || modprobe -- ${options.module} || exit 1; ` : sh``;
        await execChecked(ctx.connection, sh`${load}printf '%s\n' ${normalise(options.value)} > ${path}`, { become: true, label: `sysctl ${options.key}` });
      }
    },
  };
}
