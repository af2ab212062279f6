// The controller's artifact cache when no inventory names one (`artifacts verify`).
import { homedir } from 'node:os';
import { join } from 'node:path';

export function defaultArtifactCacheDir(env: Readonly<Record<string, string | undefined>>): string {
  return join(env['HOME'] ?? homedir(), '.kcluster', 'cache', 'artifacts');
}
