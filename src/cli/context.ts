// What every CLI command gets: its streams, environment and a way to set the exit code.
// Commands never call process.exit: main() returns the code so the library stays testable.
import type { Writable } from 'node:stream';

export interface CliContext {
  readonly stdout: Writable & { isTTY?: boolean; columns?: number };
  readonly stderr: Writable & { isTTY?: boolean };
  readonly env: NodeJS.ProcessEnv;
  readonly cwd: string;
  /** The arguments after the program (["apply", "-i", "inventory.yaml"]); main() sets them. */
  readonly argv?: readonly string[];
  /** Interactive prompts are allowed (stdin is a TTY and CI is not set). */
  readonly interactive: boolean;
  /** Aborted on SIGINT/SIGTERM. */
  readonly signal: AbortSignal;
  /** Set the process exit code; the highest-priority (largest) code set wins. */
  setExitCode(code: number): void;
}

/** How work on the controller before a run reports (`kcluster: ` lines on stderr) and stops (Ctrl-C). */
export function preparationIo(cli: CliContext, quiet = false): { log: (line: string) => void; signal: AbortSignal } {
  return { log: quiet ? () => undefined : (line) => void cli.stderr.write(`kcluster: ${line}\n`), signal: cli.signal };
}

/** A context that prints nothing and runs nothing interactive: for building the command tree to describe it. */
export function quietCliContext(): CliContext {
  const quiet = { write: () => true } as unknown as CliContext['stdout'];
  return { stdout: quiet, stderr: quiet, env: {}, cwd: '/', interactive: false, signal: new AbortController().signal, setExitCode: () => undefined };
}
