// The CLI's side of a run's journal: the command line without secrets, the version, the
// inventory, warnings on stderr, and Ctrl-C heard as it arrives.
import type { CliContext } from '../context.js';
import type { Inventory } from '../../orchestrator/inventory/model.js';
import { packageVersion } from '../../orchestrator/util/package-version.js';
import { journalArgv } from './command-line.js';
import { runJournal, type RunJournal } from './run-journal.js';

export interface CommandJournal extends RunJournal {
  /** Stops listening for Ctrl-C; call once the run is over. */
  detach(): void;
}

export function journalForRun(cli: CliContext, inventory: Inventory): CommandJournal {
  const journal = runJournal({
    stateDir: inventory.stateDir,
    inventoryFile: inventory.file,
    argv: journalArgv(cli.argv ?? process.argv.slice(2)),
    cwd: cli.cwd,
    version: packageVersion(),
    warn: (line) => void cli.stderr.write(`${line}\n`),
  });
  const onAbort = (): void => journal.interrupted();
  cli.signal.addEventListener('abort', onAbort, { once: true });
  return Object.assign(journal, { detach: () => cli.signal.removeEventListener('abort', onAbort) });
}
