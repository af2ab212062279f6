// Exit codes of every kcluster command: defined by the engine (src/engine/exit-code.ts), which
// decides a run's; the commands import them from here.
export { ExitCode, type ExitCodeValue } from '../engine/exit-code.js';
