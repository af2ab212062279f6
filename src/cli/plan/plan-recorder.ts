// Collects what each task planned on each host (RunOptions.onPlanned) as plan entries: fact
// values hashed at once, a diff kept only when it shows no secret.
import type { PlannedTask } from '../../orchestrator/engine/planned-task.js';
import { looksSecret } from '../../orchestrator/tasks/managed-file.js';
import { factHash } from './fact-hash.js';
import type { HostPlan, PlannedEntry } from './plan-file.js';

export interface PlanRecorder {
  record(planned: PlannedTask): void;
  /** Hosts in the order they first planned, each with its tasks in the order they planned. */
  hosts(): HostPlan[];
}

/** Pure: one planned task as a plan entry. */
export function planEntry(salt: string, planned: PlannedTask): PlannedEntry {
  const { change } = planned;
  const facts = Object.fromEntries(planned.facts.map((f) => [f.key, factHash(salt, f.value)]));
  const base = { play: planned.play, role: planned.role, task: planned.task, kind: change.kind };
  if (change.kind === 'none' || change.kind === 'skip') return { ...base, summary: change.reason, facts };
  // A diff that looks like a key or a token is dropped even when the task did not say secret.
  const secret = change.secret === true || (change.diff !== undefined && looksSecret(change.diff));
  return { ...base, summary: change.summary, ...(secret ? { secret: true } : change.diff !== undefined ? { diff: change.diff } : {}), facts };
}

export function planRecorder(salt: string): PlanRecorder {
  const byHost = new Map<string, PlannedEntry[]>();
  return {
    record(planned) {
      const tasks = byHost.get(planned.host) ?? [];
      tasks.push(planEntry(salt, planned));
      byHost.set(planned.host, tasks);
    },
    hosts: () => [...byHost.entries()].map(([host, tasks]) => ({ host, tasks })),
  };
}
