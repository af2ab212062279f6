// Exit codes of every kcluster command: defined by the engine (src/orchestrator/engine/exit-code.ts), which
// decides a run's; the commands import them from here.
export { ExitCode, type ExitCodeValue } from '../orchestrator/engine/exit-code.js';
