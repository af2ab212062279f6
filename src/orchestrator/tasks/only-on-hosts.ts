// Restrict a task to some hosts of its play: elsewhere it plans "skip" (and reads no facts).
import { skip } from '../engine/change.js';
import type { AnyTask } from '../engine/types.js';

export function onlyOnHosts(task: AnyTask, hosts: readonly string[], why: string): AnyTask {
  const allowed = new Set(hosts);
  return {
    ...task,
    facts: (ctx) => (allowed.has(ctx.host.name) ? task.facts(ctx) : {}),
    plan: (facts, ctx) => (allowed.has(ctx.host.name) ? task.plan(facts, ctx) : skip(why)),
  };
}
