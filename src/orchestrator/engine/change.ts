// What a task's plan returns: data, never an action. `--check --diff` prints exactly this,
// and tests assert exactly this.

/**
 * `wait`: the host gets there by itself (an API server becoming ready, a pod CIDR assigned):
 * apply only waits, and the result is "ok", not a change (a rerun right after an install may
 * wait a little and still have changed nothing; --check does not count it as pending).
 */
export type ChangeKind = 'create' | 'update' | 'delete' | 'run' | 'wait';

export interface NoChange {
  readonly kind: 'none';
  /** Why nothing is needed, e.g. "content and mode already match". */
  readonly reason: string;
  /**
   * Something the operator must know that this task does not change by itself (an etcd member
   * no inventory host matches): reported with the task and again after the recap.
   */
  readonly warning?: string;
}

export interface PendingChange<P = unknown> {
  readonly kind: ChangeKind;
  /** One line for the report: "write /etc/motd (mode 0644)". */
  readonly summary: string;
  /** Unified diff for file changes (before -> after), when the content is text. */
  readonly diff?: string;
  /** The content is a secret (a key, a token): no diff, and plan files say so. */
  readonly secret?: boolean;
  /** Whatever apply needs, computed by plan (content to write, units to restart...). */
  readonly payload: P;
}

export interface SkipChange {
  readonly kind: 'skip';
  readonly reason: string;
}

export type Change<P = unknown> = NoChange | PendingChange<P> | SkipChange;

export const noChange = (reason: string, warning?: string): NoChange => ({ kind: 'none', reason, ...(warning !== undefined ? { warning } : {}) });
export const skip = (reason: string): SkipChange => ({ kind: 'skip', reason });

export function isPending<P>(change: Change<P>): change is PendingChange<P> {
  return change.kind !== 'none' && change.kind !== 'skip';
}
