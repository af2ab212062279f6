// A kernel module the host needs: loaded now when its feature is missing (modprobe), and listed
// in /etc/modules-load.d so systemd-modules-load loads it at every boot. A feature already there
// (built in, or loaded by someone else) is not loaded again; the boot file is written anyway, so
// a kernel update that turns a built-in into a module does not lose it.
import { noChange, type Change } from '../engine/change.js';
import type { Task } from '../engine/types.js';
import { execChecked } from '../ssh/connection.js';
import { sh, type ShellCommand } from '../ssh/quote.js';
import { fileState, fileStateKeys, type FileState } from '../facts/file-state.js';
import { kernelModuleState, type KernelModuleState } from '../facts/kernel-module.js';
import { planManagedFile } from './managed-file.js';

export interface KernelModuleOptions {
  readonly name: string;
  /** What the module is for, for messages ("bridged pod traffic through iptables"). */
  readonly purpose: string;
  /** Exits 0 when the feature works (default: /sys/module/NAME exists). */
  readonly probe?: ShellCommand;
  /** Default /etc/modules-load.d/kcluster-NAME.conf. */
  readonly persistFile?: string;
  readonly tags?: readonly string[];
  readonly notify?: readonly string[];
}

export interface KernelModulePayload {
  readonly load: boolean;
  readonly persist?: Buffer;
}

export const persistFileOf = (options: Pick<KernelModuleOptions, 'name' | 'persistFile'>): string =>
  options.persistFile ?? `/etc/modules-load.d/kcluster-${options.name}.conf`;

export function persistedModule(options: Pick<KernelModuleOptions, 'name' | 'purpose'>): string {
  return `# Managed by kcluster: ${options.purpose}\n${options.name}\n`;
}

/** Pure: the module's state and the boot file in, the Change out. */
export function planKernelModule(options: KernelModuleOptions, state: KernelModuleState, file: FileState): Change<KernelModulePayload> {
  const path = persistFileOf(options);
  if (!state.available && !state.loadable) {
    throw new Error(
      `kernel ${state.kernel} has no ${options.name} module, needed for ${options.purpose}: install the kernel's modules (on Debian: the linux-image package of the running kernel) or use a kernel with ${options.name} built in`,
    );
  }
  const content = Buffer.from(persistedModule(options));
  const filePlan = planManagedFile({ path, mode: 0o644 }, file, content);
  const persist = filePlan.kind !== 'none';
  const load = !state.available;
  if (!load && !persist) return noChange(`${options.name} is available, loaded at boot by ${path}`);
  const parts = [load ? `load ${options.name} (modprobe)` : '', persist ? `load it at boot (${path})` : ''];
  const diff = filePlan.kind !== 'none' && filePlan.kind !== 'skip' ? filePlan.diff : undefined;
  return {
    kind: load ? 'create' : 'update',
    summary: parts.filter(Boolean).join('; '),
    ...(diff ? { diff } : {}),
    payload: { load, ...(persist ? { persist: content } : {}) },
  };
}

export function kernelModule(
  options: KernelModuleOptions,
): Task<{ state: ReturnType<typeof kernelModuleState>; file: ReturnType<typeof fileState> }, KernelModulePayload> {
  const path = persistFileOf(options);
  return {
    name: `kernel module ${options.name}`,
    ...(options.tags ? { tags: options.tags } : {}),
    ...(options.notify ? { notify: options.notify } : {}),
    invalidates: [...fileStateKeys(path), 'sysctl:*'],
    facts: () => ({ state: kernelModuleState(options.name, options.probe), file: fileState(path, { content: true }) }),
    plan: (facts) => planKernelModule(options, facts.state, facts.file),
    apply: async (change, ctx) => {
      if (change.payload.persist) {
        await ctx.connection.writeFile(path, change.payload.persist, {
          mode: 0o644,
          owner: 'root',
          group: 'root',
          become: true,
          mkdirParents: true,
          label: `write ${path}`,
        });
      }
      if (change.payload.load) await execChecked(ctx.connection, sh`modprobe -- ${options.name}`, { become: true, label: `modprobe ${options.name}` });
    },
  };
}
