// The plan file: what `--check --plan-out FILE` planned, per host and task in order, with a
// salted sha256 of each fact value the task planned from; never a fact's value, a file's
// content or a secret's diff. Read back by `--plan FILE` and `kcluster plan show`.
import { InputError } from '../../orchestrator/engine/input-error.js';

export const PLAN_KIND = 'kcluster-plan';
export const PLAN_FORMAT = 1;

export interface PlannedEntry {
  readonly play: string;
  readonly role: string;
  readonly task: string;
  /** A Change kind: none, skip, create, update, delete, run, wait. */
  readonly kind: string;
  /** The one line --check prints: a change's summary, or why nothing is needed or skipped. */
  readonly summary: string;
  /** The unified diff --check --diff prints; absent for secrets and content that is not text. */
  readonly diff?: string;
  /** The change writes a secret (its content is not shown, not even hashed). */
  readonly secret?: boolean;
  /** Fact key -> salted sha256 of the value it was planned from. */
  readonly facts: Readonly<Record<string, string>>;
}

export interface HostPlan {
  readonly host: string;
  readonly tasks: readonly PlannedEntry[];
}

export interface PlanFile {
  readonly kind: typeof PLAN_KIND;
  readonly format: typeof PLAN_FORMAT;
  readonly kclusterVersion: string;
  readonly createdAt: string;
  /** The command as typed (secret-looking option values redacted), program name excluded. */
  readonly argv: readonly string[];
  readonly playbook: string;
  readonly inventory: { readonly file: string; readonly sha256: string };
  /** The run options that select what runs: --plan refuses other values. */
  readonly selection: { readonly limit?: string; readonly tags?: string; readonly skipTags?: string };
  /** Random, per plan: every fact hash is salted with it. */
  readonly salt: string;
  readonly hosts: readonly HostPlan[];
}

export function serializePlan(plan: PlanFile): string {
  return `${JSON.stringify(plan, null, 2)}\n`;
}

const isString = (v: unknown): v is string => typeof v === 'string';
const isRecordOf = (v: unknown, test: (x: unknown) => boolean): boolean =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && Object.values(v).every(test);

function entryProblem(entry: unknown): string | undefined {
  if (typeof entry !== 'object' || entry === null) return 'not an object';
  const e = entry as Record<string, unknown>;
  for (const field of ['play', 'role', 'task', 'kind', 'summary']) if (!isString(e[field])) return `"${field}" is not a string`;
  if (e['diff'] !== undefined && !isString(e['diff'])) return '"diff" is not a string';
  if (!isRecordOf(e['facts'], isString)) return '"facts" is not an object of strings';
  return undefined;
}

/** Pure: the file's text in, the plan out; an InputError naming the file and the field when it is not one. */
export function parsePlanFile(text: string, file: string): PlanFile {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new InputError(`${file}: not a plan file: ${(error as Error).message} (write one with --check --plan-out ${file})`);
  }
  const bad = (what: string): InputError =>
    new InputError(`${file}: not a kcluster plan file (format ${PLAN_FORMAT}): ${what} (write one with --check --plan-out ${file})`);
  if (typeof data !== 'object' || data === null) throw bad('not a JSON object');
  const d = data as Record<string, unknown>;
  if (d['kind'] !== PLAN_KIND) throw bad(`"kind" is not "${PLAN_KIND}"`);
  if (d['format'] !== PLAN_FORMAT) throw bad(`"format" is ${JSON.stringify(d['format'])}, this kcluster reads ${PLAN_FORMAT}`);
  for (const field of ['kclusterVersion', 'createdAt', 'playbook', 'salt']) if (!isString(d[field])) throw bad(`"${field}" is not a string`);
  if (!Array.isArray(d['argv']) || !d['argv'].every(isString)) throw bad('"argv" is not a list of strings');
  const inventory = d['inventory'] as Record<string, unknown> | undefined;
  if (!isString(inventory?.['file']) || !isString(inventory?.['sha256'])) throw bad('"inventory" needs "file" and "sha256"');
  if (!isRecordOf(d['selection'], isString)) throw bad('"selection" is not an object of strings');
  if (!Array.isArray(d['hosts'])) throw bad('"hosts" is not a list');
  d['hosts'].forEach((host: unknown, i) => {
    const h = host as Record<string, unknown> | null;
    if (!isString(h?.['host']) || !Array.isArray(h['tasks'])) throw bad(`hosts[${i}] needs "host" and "tasks"`);
    h['tasks'].forEach((entry: unknown, j) => {
      const problem = entryProblem(entry);
      if (problem) throw bad(`hosts[${i}].tasks[${j}]: ${problem}`);
    });
  });
  return data as PlanFile;
}
