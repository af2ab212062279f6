// Pure: a plan file's hosts against what the same run plans now. Each difference names the
// host, the task and, when a fact changed, the fact: the first one found per host (what
// follows a difference is planned from it and says nothing new).
import type { HostPlan, PlannedEntry } from './plan-file.js';

const where = (host: string, e: PlannedEntry): string => `${host}: ${e.play} / ${e.role} / ${e.task}`;
const short = (hash: string | undefined): string => (hash === undefined ? 'not read' : `sha256 ${hash.slice(0, 12)}`);

function entryDifference(host: string, then: PlannedEntry, now: PlannedEntry): string | undefined {
  if (then.play !== now.play || then.role !== now.role || then.task !== now.task) {
    return `${where(host, then)}: the plan has this task where the playbook now runs "${now.play} / ${now.role} / ${now.task}" (another kcluster, playbook or tag selection)`;
  }
  for (const [key, hash] of Object.entries(then.facts)) {
    if (now.facts[key] !== hash) return `${where(host, then)}: fact ${key} changed since the plan (${short(hash)} then, ${short(now.facts[key])} now)`;
  }
  for (const key of Object.keys(now.facts)) {
    if (!(key in then.facts)) return `${where(host, then)}: the task now reads fact ${key}, which the plan did not`;
  }
  // Why nothing is needed may say a duration or an age ("clock within 1 s"): only a change's summary is the plan.
  const pending = then.kind !== 'none' && then.kind !== 'skip';
  if (then.kind !== now.kind || (pending && then.summary !== now.summary))
    return `${where(host, then)}: planned "${then.kind}: ${then.summary}", now "${now.kind}: ${now.summary}"`;
  if (then.diff !== now.diff || then.secret !== now.secret) return `${where(host, then)}: the content it writes differs from the plan's diff`;
  return undefined;
}

function hostDifference(then: HostPlan, now: HostPlan | undefined): string | undefined {
  if (now === undefined) return `${then.host}: in the plan, but the run now plans nothing on it (--limit, the inventory's hosts or an earlier failure)`;
  const count = Math.min(then.tasks.length, now.tasks.length);
  for (let i = 0; i < count; i++) {
    const difference = entryDifference(then.host, then.tasks[i]!, now.tasks[i]!);
    if (difference) return difference;
  }
  if (then.tasks.length > count)
    return `${where(then.host, then.tasks[count]!)}: in the plan, not planned now (the run stopped before it, or the playbook changed)`;
  if (now.tasks.length > count) return `${where(now.host, now.tasks[count]!)}: planned now, not in the plan`;
  return undefined;
}

/** Every host's first difference, in the plan's host order, then hosts the plan does not have. */
export function comparePlans(planned: readonly HostPlan[], now: readonly HostPlan[]): string[] {
  const nowByHost = new Map(now.map((h) => [h.host, h]));
  const differences = planned.map((h) => hostDifference(h, nowByHost.get(h.host))).filter((d): d is string => d !== undefined);
  const known = new Set(planned.map((h) => h.host));
  for (const h of now) if (!known.has(h.host)) differences.push(`${h.host}: planned now, not in the plan`);
  return differences;
}
