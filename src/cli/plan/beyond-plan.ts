// Pure: what the apply of a --plan run planned differently from the file, task by task. Not a
// refusal (the check pass already matched): a task that runs after an earlier change of the
// same run is planned against the host as that change left it, which the file cannot know.
// The operator is told which, so the reviewed plan and what ran can be told apart.
import type { HostPlan, PlannedEntry } from './plan-file.js';

const PENDING = new Set(['create', 'update', 'delete', 'run']);
const said = (e: PlannedEntry): string => (PENDING.has(e.kind) ? `${e.kind}: ${e.summary}` : e.kind === 'wait' ? `wait: ${e.summary}` : `nothing (${e.kind})`);

/** One line per task whose change (kind or summary) differs between the plan and the apply. */
export function beyondPlan(planned: readonly HostPlan[], applied: readonly HostPlan[]): string[] {
  const lines: string[] = [];
  for (const now of applied) {
    const then = planned.find((h) => h.host === now.host)?.tasks ?? [];
    now.tasks.forEach((task, i) => {
      const before = then[i];
      if (before === undefined || before.task !== task.task || before.role !== task.role || before.play !== task.play) return;
      const differs = before.kind !== task.kind || (PENDING.has(task.kind) && before.summary !== task.summary);
      if (differs && (PENDING.has(task.kind) || PENDING.has(before.kind))) {
        lines.push(`${now.host}: ${task.play} / ${task.role} / ${task.task}: planned ${said(before)}; at its turn ${said(task)}`);
      }
    });
  }
  return lines;
}
