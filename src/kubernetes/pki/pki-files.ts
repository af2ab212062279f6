// The PKI folder on the controller (<stateDir>/pki): directories 0700, keys 0600, every file
// written to a temporary name and renamed, so an interrupted run never leaves half a key. In
// memory (a --check or --list-tags run) it reads the folder and keeps what it would write to
// itself: the run plans with the keys a first run would make, and the folder stays as it was.
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

export class PkiFiles {
  /** What an in-memory folder would have written, by name. */
  private readonly unwritten: Map<string, string> | undefined;

  constructor(
    readonly dir: string,
    options: { readonly inMemory?: boolean } = {},
  ) {
    this.unwritten = options.inMemory === true ? new Map() : undefined;
  }

  /** In memory: `name` reads as `content` from now on (a file the run would have put there). */
  overlay(name: string, content: string): void {
    if (this.unwritten === undefined) throw new Error(`${this.path(name)}: overlay is for an in-memory PKI folder`);
    this.unwritten.set(name, content);
  }

  path(name: string): string {
    return join(this.dir, name);
  }

  async read(name: string): Promise<string | undefined> {
    const kept = this.unwritten?.get(name);
    if (kept !== undefined) return kept;
    const file = this.path(name);
    if (!existsSync(file)) return undefined;
    return readFile(file, 'utf8');
  }

  async write(name: string, content: string, mode: number): Promise<void> {
    if (this.unwritten !== undefined) {
      this.unwritten.set(name, content);
      return;
    }
    const file = this.path(name);
    await mkdir(dirname(file), { recursive: true, mode: 0o700 });
    await chmod(dirname(file), 0o700);
    const temp = `${file}.${process.pid}.tmp`;
    await writeFile(temp, content, { mode });
    await chmod(temp, mode);
    await rename(temp, file);
  }
}
