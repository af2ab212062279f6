// Is there a cluster here, whether or not its API servers answer right now? Then a run should
// wait for one (a control plane booting answers in seconds), not plan an installation at once.
// The journal says so: its last completed run acted on a cluster (an apply, or any day-2
// command, which all need one), and was not a reset (which removes it). A state folder with a
// PKI but no completed run (a first install that failed) has none. The journal keeps the last
// 50 runs: a history of 50 runs that never completed also reads as none.
import { join } from 'node:path';
import { JOURNAL_FOLDER } from './journal-records.js';
import { readJournalFolder } from './read-journal.js';

const RESET_PLAYBOOK = 'reset';

export function clusterInstalledBefore(stateDir: string): boolean {
  const completed = readJournalFolder(join(stateDir, JOURNAL_FOLDER), () => undefined).filter((journal) =>
    journal.records.some((r) => r.type === 'end' && r.status === 'completed'),
  );
  const last = completed.at(-1);
  return last !== undefined && last.run.playbook !== RESET_PLAYBOOK;
}
