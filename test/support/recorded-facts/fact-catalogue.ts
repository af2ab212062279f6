// Which facts a playbook's tasks asked for, per host: the playbook with each task's `facts`
// wrapped to note the Fact objects it returns. The recorder reads exactly these on a real host.
import type { Fact } from '../../../src/orchestrator/engine/fact.js';
import type { HostContext, Playbook } from '../../../src/orchestrator/engine/types.js';

export type FactCatalogue = Map<string, Map<string, Fact<unknown>>>;

export function catalogueFacts(playbook: Playbook, into: FactCatalogue): Playbook {
  const note = (ctx: HostContext, facts: Readonly<Record<string, Fact<unknown>>>) => {
    const host = into.get(ctx.host.name) ?? new Map<string, Fact<unknown>>();
    into.set(ctx.host.name, host);
    for (const fact of Object.values(facts)) host.set(fact.key, fact);
    return facts;
  };
  return {
    ...playbook,
    plays: playbook.plays.map((play) => ({
      ...play,
      roles: play.roles.map((role) => ({ ...role, tasks: role.tasks.map((task) => ({ ...task, facts: (ctx: HostContext) => note(ctx, task.facts(ctx)) })) })),
    })),
  };
}
