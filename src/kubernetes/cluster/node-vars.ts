// The vars kcluster's roles read, in one place, typed, with their defaults. Each also has an
// entry in the inventory schema (definitions.vars), so editors complete them and a mistake is
// reported with its file:line before any host is touched; the readers here check again, since
// a role used from a library has no inventory schema in front of it, and name the host.
import type { HostContext } from '../../orchestrator/engine/types.js';
import { HostError } from '../../orchestrator/ssh/host-error.js';

type VarsOf = Pick<HostContext, 'host' | 'vars'>;

export type CgroupDriver = 'systemd' | 'cgroupfs';

/** The defaults; a role's README documents the vars it reads. */
export const NODE_VAR_DEFAULTS = {
  /** The runtime's and the kubelet's cgroup driver: they must agree (kubeadm's default). */
  cgroupDriver: 'systemd' as CgroupDriver,
  /** The OCI runtime containerd starts containers with (runc from the artifacts). */
  containerdOciRuntime: '/usr/local/sbin/runc',
  /** The kubelet refuses to start with swap on, unless told otherwise (preflight checks swap). */
  failSwapOn: true,
  /** The OS packages that provide Docker Engine (Debian and Ubuntu). */
  dockerPackages: ['docker.io'] as readonly string[],
} as const;

const PACKAGE_NAME = /^[a-z0-9][a-z0-9.+-]*$/;

function refuse(ctx: VarsOf, name: string, expected: string, value: unknown): never {
  throw new HostError(ctx.host.name, `var ${name} must be ${expected} (got ${JSON.stringify(value)})`);
}

/** `cgroupDriver`: systemd or cgroupfs, the same for the runtime and the kubelet. */
export function cgroupDriverOf(ctx: VarsOf): CgroupDriver {
  const value = ctx.vars['cgroupDriver'] ?? NODE_VAR_DEFAULTS.cgroupDriver;
  if (value !== 'systemd' && value !== 'cgroupfs') refuse(ctx, 'cgroupDriver', 'systemd or cgroupfs', value);
  return value;
}

/** `ociRuntimeBinary`: an absolute path; unset means runc from the artifacts (containerd) or Docker's own (docker). */
export function ociRuntimeBinaryOf(ctx: VarsOf, runtime: 'containerd' | 'docker'): string | undefined {
  const value = ctx.vars['ociRuntimeBinary'];
  if (value === undefined || value === '') return runtime === 'containerd' ? NODE_VAR_DEFAULTS.containerdOciRuntime : undefined;
  if (typeof value !== 'string' || !value.startsWith('/') || /\s/.test(value)) refuse(ctx, 'ociRuntimeBinary', 'an absolute path', value);
  return value;
}

/** `failSwapOn`: true (default) or false. */
export function failSwapOnOf(ctx: VarsOf): boolean {
  const value = ctx.vars['failSwapOn'] ?? NODE_VAR_DEFAULTS.failSwapOn;
  if (typeof value !== 'boolean') refuse(ctx, 'failSwapOn', 'true or false', value);
  return value;
}

/** `dockerPackages`: a non-empty list of OS package names. */
export function dockerPackagesOf(ctx: VarsOf): readonly string[] {
  const value = ctx.vars['dockerPackages'] ?? NODE_VAR_DEFAULTS.dockerPackages;
  if (!Array.isArray(value) || value.length === 0 || !value.every((v) => typeof v === 'string' && PACKAGE_NAME.test(v)))
    refuse(ctx, 'dockerPackages', 'a list of package names', value);
  return value as readonly string[];
}

/** `kubeProxyConntrackMaxPerCore`: a whole number >= 0 (0: leave the conntrack table alone); unset: kube-proxy's default. */
export function kubeProxyConntrackMaxPerCoreOf(ctx: VarsOf): number | undefined {
  const value = ctx.vars['kubeProxyConntrackMaxPerCore'];
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) refuse(ctx, 'kubeProxyConntrackMaxPerCore', 'a whole number, 0 or more', value);
  return value;
}

/** `kubeletConfig`: KubeletConfiguration fields added to kcluster's (a map; empty when unset). */
export function kubeletConfigOf(ctx: VarsOf): Readonly<Record<string, unknown>> {
  const value = ctx.vars['kubeletConfig'] ?? {};
  if (typeof value !== 'object' || value === null || Array.isArray(value)) refuse(ctx, 'kubeletConfig', 'a map of KubeletConfiguration fields', value);
  return value as Readonly<Record<string, unknown>>;
}

export interface WantedTaint {
  readonly key: string;
  readonly value?: string;
  readonly effect: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';
}

/** `nodeLabels`: label key -> value, put on the host's Node (empty when unset). */
export function nodeLabelsOf(ctx: VarsOf): Readonly<Record<string, string>> {
  const value = ctx.vars['nodeLabels'] ?? {};
  if (typeof value !== 'object' || value === null || Array.isArray(value) || !Object.values(value).every((v) => typeof v === 'string'))
    refuse(ctx, 'nodeLabels', 'a map of label key to string value', value);
  return value as Readonly<Record<string, string>>;
}

/** `nodeTaints`: a list of { key, value?, effect } put on the host's Node (empty when unset). */
export function nodeTaintsOf(ctx: VarsOf): readonly WantedTaint[] {
  const value = ctx.vars['nodeTaints'] ?? [];
  const valid = (t: unknown): t is WantedTaint =>
    typeof t === 'object' &&
    t !== null &&
    typeof (t as WantedTaint).key === 'string' &&
    ['NoSchedule', 'PreferNoSchedule', 'NoExecute'].includes((t as WantedTaint).effect) &&
    ((t as WantedTaint).value === undefined || typeof (t as WantedTaint).value === 'string');
  if (!Array.isArray(value) || !value.every(valid))
    refuse(ctx, 'nodeTaints', 'a list of { key, value, effect: NoSchedule | PreferNoSchedule | NoExecute }', value);
  return value as readonly WantedTaint[];
}

/** `controlPlaneTaint`: false lets ordinary pods run on the control planes of a cluster with workers (default true). */
export function controlPlaneTaintOf(ctx: VarsOf): boolean {
  const value = ctx.vars['controlPlaneTaint'] ?? true;
  if (typeof value !== 'boolean') refuse(ctx, 'controlPlaneTaint', 'true or false', value);
  return value;
}
