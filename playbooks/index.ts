// Every playbook kcluster ships that `kcluster run NAME` can run, by name: the table of
// contents of what it does. Each is loaded only when it is asked for (building a playbook
// compiles its templates, which a run of another playbook need not pay for).
import type { Playbook } from '../src/orchestrator/engine/types.js';

const PLAYBOOKS: ReadonlyArray<readonly [string, () => Promise<Playbook>]> = [['demo', async () => (await import('./demo.js')).demoPlaybook]];

export function playbookNames(): string[] {
  return PLAYBOOKS.map(([name]) => name);
}

export async function findPlaybook(name: string): Promise<Playbook | undefined> {
  const load = PLAYBOOKS.find(([known]) => known === name)?.[1];
  return load ? load() : undefined;
}
