// The PKI folder on the controller (<stateDir>/pki): directories 0700, keys 0600, every file
// written to a temporary name and renamed, so an interrupted run never leaves half a key.
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

export class PkiFiles {
  constructor(readonly dir: string) {}

  path(name: string): string {
    return join(this.dir, name);
  }

  async read(name: string): Promise<string | undefined> {
    const file = this.path(name);
    if (!existsSync(file)) return undefined;
    return readFile(file, 'utf8');
  }

  async write(name: string, content: string, mode: number): Promise<void> {
    const file = this.path(name);
    await mkdir(dirname(file), { recursive: true, mode: 0o700 });
    await chmod(dirname(file), 0o700);
    const temp = `${file}.${process.pid}.tmp`;
    await writeFile(temp, content, { mode });
    await chmod(temp, mode);
    await rename(temp, file);
  }
}
