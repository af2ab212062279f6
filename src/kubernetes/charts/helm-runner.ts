// How kcluster runs Helm on the controller: the bundle's binary with an argument list (no
// shell), Helm's own folders (cache, config, data) inside a private work folder so that the
// operator's ~/.config/helm (repositories, plugins, registry logins) plays no part, and its
// output captured. Values never appear in the arguments: they are passed as files (--values).
import { execFile } from 'node:child_process';
import { join } from 'node:path';

export interface HelmResult {
  readonly stdout: string;
  readonly stderr: string;
  readonly code: number;
}

/** Runs `helm ARGS`; tests give a fake one. */
export type HelmRunner = (args: readonly string[]) => Promise<HelmResult>;

/** Helm's output can be a whole rendered chart. */
const MAX_OUTPUT = 64 * 1024 * 1024;

/** The bundle's helm at `binary`, with its folders under `workDir` (private to this run). */
export function localHelm(binary: string, workDir: string, signal?: AbortSignal): HelmRunner {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env['PATH'] ?? '/usr/bin:/bin',
    HOME: workDir,
    HELM_CACHE_HOME: join(workDir, 'cache'),
    HELM_CONFIG_HOME: join(workDir, 'config'),
    HELM_DATA_HOME: join(workDir, 'data'),
    // No update check, no telemetry; kubeconfig only from --kubeconfig.
    KUBECONFIG: join(workDir, 'no-kubeconfig'),
  };
  return (args) =>
    new Promise((resolve, reject) => {
      execFile(binary, [...args], { env, maxBuffer: MAX_OUTPUT, encoding: 'utf8', ...(signal ? { signal } : {}) }, (error, stdout, stderr) => {
        if (error && typeof error.code !== 'number') {
          reject(new Error(`cannot run ${binary}: ${error.message}`));
          return;
        }
        resolve({ stdout, stderr, code: error ? (error.code as unknown as number) : 0 });
      });
    });
}

/** Helm's error for a message: its last "Error: ..." line (then hints follow), else its last lines. */
export function helmError(result: HelmResult): string {
  const lines = result.stderr.trim().split('\n').filter(Boolean);
  const error = lines.filter((l) => l.startsWith('Error: ')).pop();
  return (error?.slice('Error: '.length) ?? (lines.slice(-3).join(' ') || `exit code ${result.code}`)).slice(0, 800);
}
