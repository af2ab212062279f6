// Whether a kernel feature a module provides is available on the host, judged by its effect
// (many kernels build overlay or br_netfilter in, so lsmod says nothing), and whether
// `modprobe` could load the module if it is not (a dry run: the module exists for this kernel
// and the host may load modules at all).
import { sh, type ShellCommand } from '../ssh/quote.js';
import type { Fact } from '../engine/fact.js';

export interface KernelModuleState {
  /** The feature works now (loaded or built in). */
  readonly available: boolean;
  /** `modprobe -n` finds the module for the running kernel. */
  readonly loadable: boolean;
  /** The running kernel's release, to name in messages. */
  readonly kernel: string;
}

export const MODULE_NAME = /^[a-z0-9_-]{1,64}$/;

/** The default effect test: the module shows in /sys/module (loaded, or built in with parameters). */
export const loadedModuleProbe = (name: string): ShellCommand => sh`[ -d ${`/sys/module/${name}`} ]`;

export function parseKernelModuleState(stdout: string): KernelModuleState {
  const lines = stdout.split('\n');
  const value = (key: string): string | undefined => lines.find((l) => l.startsWith(`${key} `))?.slice(key.length + 1);
  const available = value('available');
  if (available === undefined) throw new Error('the kernel module read printed nothing');
  return { available: available === 'yes', loadable: value('loadable') === 'yes', kernel: value('kernel') ?? 'unknown' };
}

export function kernelModuleState(name: string, probe: ShellCommand = loadedModuleProbe(name)): Fact<KernelModuleState> {
  if (!MODULE_NAME.test(name)) throw new Error(`invalid kernel module name "${name}"`);
  return {
    key: `kernel-module:${name}`,
    become: true,
    script: sh`if ${probe}; then echo "available yes"; else echo "available no"; fi
if command -v modprobe >/dev/null 2>&1 && [ -e /proc/modules ] && modprobe -n -q -- ${name} 2>/dev/null; then echo "loadable yes"; else echo "loadable no"; fi
echo "kernel $(uname -r)"`,
    parse: parseKernelModuleState,
  };
}
