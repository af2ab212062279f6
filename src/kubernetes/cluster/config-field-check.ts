// An operator's configuration fragment (vars.kubeletConfig, cluster.kubeProxy.config) checked
// against the field tree of its component (config-fields.ts): a field the tree does not know,
// at any depth it describes, and a scalar of the wrong JSON kind. The component would ignore
// the first (a misspelling such as maxpods keeps the default) and refuse to start on the second.
import { closest } from '../../orchestrator/inventory/suggest.js';
import type { ConfigFieldKind, ConfigFieldNode } from './config-fields.js';

export interface ConfigFieldProblem {
  /** Where the problem is, from the fragment's root (map keys and list indexes). */
  readonly path: readonly (string | number)[];
  /** True when the last segment of `path` is a key that is itself the problem (an unknown field). */
  readonly atKey: boolean;
  readonly message: string;
}

/** Go duration text, as time.ParseDuration reads it ("90s", "1h30m", "0"). */
const DURATION = /^[-+]?(0|((\d+(\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h))+)$/;

/** What each scalar kind accepts, and how a message names it. */
const SCALARS: Readonly<Partial<Record<ConfigFieldKind, { readonly ok: (v: unknown) => boolean; readonly what: string }>>> = {
  string: { ok: (v) => typeof v === 'string', what: 'a string' },
  int: { ok: (v) => typeof v === 'number' && Number.isInteger(v), what: 'a whole number' },
  float: { ok: (v) => typeof v === 'number', what: 'a number' },
  bool: { ok: (v) => typeof v === 'boolean', what: 'true or false' },
  duration: { ok: (v) => typeof v === 'string' && DURATION.test(v), what: 'a duration such as 10s or 1m30s' },
  durationOrInt: {
    ok: (v) => (typeof v === 'number' && Number.isInteger(v)) || (typeof v === 'string' && DURATION.test(v)),
    what: 'a duration such as 10s, or whole nanoseconds',
  },
  quantity: { ok: (v) => typeof v === 'number' || typeof v === 'string', what: 'a quantity such as 500m or 1Gi' },
  intOrString: { ok: (v) => (typeof v === 'number' && Number.isInteger(v)) || typeof v === 'string', what: 'a whole number or a string' },
};

const CONTAINERS: Readonly<Partial<Record<ConfigFieldKind, string>>> = { object: 'a map of fields', map: 'a map', list: 'a list' };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function kindOf(value: unknown): string {
  if (Array.isArray(value)) return 'a list';
  if (isRecord(value)) return 'a map';
  if (typeof value === 'string') return `the string "${value}"`;
  return String(value);
}

/**
 * Every problem of `value` against `node`; `component` names the configuration in messages
 * (e.g. "the kubelet's KubeletConfiguration of Kubernetes v1.37.2"). A null value is left
 * alone: the component reads it as unset.
 */
export function configFieldProblems(value: unknown, node: ConfigFieldNode, component: string, path: (string | number)[] = []): ConfigFieldProblem[] {
  if (value === null || value === undefined || node.kind === 'any') return [];
  const scalar = SCALARS[node.kind];
  // YAML reads 1, 1.5 and true unquoted as a number or a boolean: say how to keep them text.
  const hint = node.kind === 'string' && (typeof value === 'number' || typeof value === 'boolean') ? ` (quote it: "${String(value)}")` : '';
  const wrong = (what: string): ConfigFieldProblem[] => [{ path, atKey: false, message: `must be ${what} in ${component}, not ${kindOf(value)}${hint}` }];
  if (scalar) return scalar.ok(value) ? [] : wrong(scalar.what);
  const fits = node.kind === 'list' ? Array.isArray(value) : isRecord(value);
  if (!fits) return wrong(CONTAINERS[node.kind] ?? node.kind);
  if (Array.isArray(value)) return node.items ? value.flatMap((item, i) => configFieldProblems(item, node.items!, component, [...path, i])) : [];
  const out: ConfigFieldProblem[] = [];
  for (const [key, child] of Object.entries(value as Record<string, unknown>)) {
    if (node.kind === 'map') {
      if (node.values) out.push(...configFieldProblems(child, node.values, component, [...path, key]));
      continue;
    }
    const known = node.fields?.[key];
    if (known) {
      out.push(...configFieldProblems(child, known, component, [...path, key]));
      continue;
    }
    const names = Object.keys(node.fields ?? {});
    const guess = closest(key, names);
    const within = path.length === 0 ? '' : ` under ${path.join('.')}`;
    out.push({
      path: [...path, key],
      atKey: true,
      message: `"${key}" is not a field${within} in ${component}${guess !== undefined ? `: did you mean "${guess}"?` : ''}`,
    });
  }
  return out;
}
