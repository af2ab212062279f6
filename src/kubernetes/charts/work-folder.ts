// A private folder (mode 0700) for what Helm reads during one step: the kubeconfig with the
// admin credentials (apply: in the state folder, beside the PKI it comes from) and the inline
// values, each written with mode 0600, and Helm's own cache and configuration. Removed when
// the step ends, whatever happened.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { mkdirSync } from 'node:fs';

export interface WorkFolder {
  readonly dir: string;
  /** Writes a file readable only by the controller's user; returns its path. */
  secretFile(name: string, content: string): Promise<string>;
}

/** A new folder under `parent` (created 0700 when missing) for `use`, removed after. */
export async function withWorkFolder<T>(parent: string, use: (work: WorkFolder) => Promise<T>): Promise<T> {
  mkdirSync(parent, { recursive: true, mode: 0o700 });
  const dir = await mkdtemp(join(parent, 'kcluster-helm-'));
  try {
    return await use({
      dir,
      secretFile: async (name, content) => {
        const path = join(dir, name);
        await writeFile(path, content, { mode: 0o600, flag: 'wx' });
        return path;
      },
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
