// Remembers the sha256 of local files already hashed, keyed by path, size and mtime, so a
// rerun does not re-read a 700 MB bundle: a changed file (other size or mtime) is hashed again.
// Kept as one JSON file in the artifact cache; a missing or unreadable record just means
// "hash again".
import { readFile, rename, stat, writeFile, mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { sha256File } from '../../orchestrator/util/sha256-file.js';

interface Record {
  readonly size: number;
  readonly mtimeMs: number;
  readonly sha256: string;
}

export class VerifiedFiles {
  private records: Map<string, Record> | undefined;
  private dirty = false;
  private readonly file: string;

  constructor(cacheDir: string) {
    this.file = join(cacheDir, 'verified-files.json');
  }

  private async load(): Promise<Map<string, Record>> {
    if (this.records) return this.records;
    try {
      this.records = new Map(Object.entries(JSON.parse(await readFile(this.file, 'utf8')) as { [path: string]: Record }));
    } catch {
      this.records = new Map();
    }
    return this.records;
  }

  /** sha256 and size of a local file, from the record when the file is unchanged. */
  async sha256(path: string): Promise<{ sha256: string; size: number }> {
    const records = await this.load();
    const info = await stat(path);
    const known = records.get(path);
    if (known && known.size === info.size && known.mtimeMs === info.mtimeMs) return { sha256: known.sha256, size: info.size };
    const sha256 = await sha256File(path);
    records.set(path, { size: info.size, mtimeMs: info.mtimeMs, sha256 });
    this.dirty = true;
    return { sha256, size: info.size };
  }

  async save(): Promise<void> {
    if (!this.dirty || !this.records) return;
    await mkdir(dirname(this.file), { recursive: true });
    const temp = `${this.file}.${process.pid}.tmp`;
    await writeFile(temp, JSON.stringify(Object.fromEntries(this.records)));
    await rename(temp, this.file);
    this.dirty = false;
  }
}
