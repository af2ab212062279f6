// The run journal (<stateDir>/journal: what each run changed and left) mirrored in the state
// store, so that `kcluster status` on any controller names what the last run, made on any
// machine, left (issue 41). One sealed object per run's file; a run is written by one controller
// at a time (the lease), so a file is copied to the store when it changed since it was last
// seen there, and from the store when it is newer there than here. Unlike the state, nothing is
// ever moved aside: each file is one run's own record.
import { readdirSync, statSync, utimesSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { open, seal } from '../../orchestrator/state-store/envelope.js';
import type { S3Client } from '../../orchestrator/state-store/s3/s3-client.js';
import type { StateKey } from '../../orchestrator/state-store/state-key.js';
import { JOURNAL_FOLDER } from '../journal/journal-records.js';

const STORE_FOLDER = 'journal/';
const isJournal = (name: string): boolean => name.endsWith('.jsonl') && !name.startsWith('.');

export class JournalMirror {
  /** What the store held when last listed or written: file name -> its local size then. */
  private readonly published = new Map<string, number>();

  constructor(
    private readonly s3: S3Client,
    private readonly prefix: string,
    private readonly key: StateKey,
    private readonly stateDir: string,
  ) {}

  private get dir(): string {
    return join(this.stateDir, JOURNAL_FOLDER);
  }

  /** Brings the store's run files here where they are missing or newer there; the count brought. */
  async pull(): Promise<number> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    let brought = 0;
    for await (const o of this.s3.list(`${this.prefix}${STORE_FOLDER}`)) {
      const name = o.key.slice(`${this.prefix}${STORE_FOLDER}`.length).replace(/\.kce$/, '');
      if (!isJournal(name)) continue;
      const local = join(this.dir, name);
      const here = statOrUndefined(local);
      if (here !== undefined && here.mtimeMs >= o.lastModified.getTime()) {
        this.published.set(name, here.size);
        continue;
      }
      const got = await this.s3.get(o.key);
      if (got === undefined) continue;
      const content = open(this.key, `${STORE_FOLDER}${name}`, got.body, this.s3.describe(o.key));
      await writeFile(local, content, { mode: 0o600 });
      // Dated as the store's copy: it is not newer here than there.
      utimesSync(local, o.lastModified, o.lastModified);
      this.published.set(name, content.length);
      brought += 1;
    }
    return brought;
  }

  /** Copies to the store each run file that changed since the store last had it. */
  async push(): Promise<void> {
    let names: string[];
    try {
      names = readdirSync(this.dir).filter(isJournal);
    } catch {
      return;
    }
    for (const name of names) {
      const path = join(this.dir, name);
      const size = statOrUndefined(path)?.size;
      if (size === undefined || this.published.get(name) === size) continue;
      const content = await readFile(path);
      await this.s3.put(`${this.prefix}${STORE_FOLDER}${name}.kce`, seal(this.key, `${STORE_FOLDER}${name}`, content));
      this.published.set(name, content.length);
    }
  }
}

function statOrUndefined(path: string): { size: number; mtimeMs: number } | undefined {
  try {
    const s = statSync(path);
    return { size: s.size, mtimeMs: s.mtimeMs };
  } catch {
    return undefined;
  }
}
