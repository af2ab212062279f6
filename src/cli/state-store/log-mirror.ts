// The runs' debug logs (<stateDir>/logs) copied into the state store, sealed, so that a run made
// on another controller (a CI runner whose disk is gone) can still be read: `kcluster state
// pull` brings the logs this folder lacks, and `kcluster report` reads them here (issue 41:
// everything the state folder holds lives in the store). A log is copied when the session
// publishes (each commit, the end of the run), if it was written during this session and grew
// since it was last copied; the store keeps the newest LOGS_KEPT. Logs are not brought at every
// session's start: they can be large, and only the state decides what a run does.
import { readdirSync, statSync, utimesSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { S3Client } from '../../orchestrator/state-store/s3/s3-client.js';
import { EnvelopeError } from '../../orchestrator/state-store/envelope.js';
import { openFile } from '../../orchestrator/state-store/sealed-file.js';
import { getSealedFile, putSealedFile } from '../../orchestrator/state-store/sealed-objects.js';
import type { StateKey } from '../../orchestrator/state-store/state-key.js';

const STORE_FOLDER = 'logs/';
/** Logs kept in the store: a few months of daily runs. */
export const LOGS_KEPT = 200;
const isLog = (name: string): boolean => name.endsWith('.log') && !name.startsWith('.');

export class LogMirror {
  /** Local size of each log when it was last copied. */
  private readonly copied = new Map<string, number>();
  private readonly since: number;

  constructor(
    private readonly s3: S3Client,
    private readonly prefix: string,
    private readonly key: StateKey,
    private readonly stateDir: string,
    /** The session's start (ms): only logs written since then are this session's to copy. */
    since: number,
  ) {
    // File times come from the kernel's coarse clock, a few milliseconds behind Date.now(): a
    // log opened right after the session began may look older than it. Two seconds of slack
    // at worst copies a log of a run that ended just before, once more.
    this.since = since - 2_000;
  }

  private get dir(): string {
    return join(this.stateDir, 'logs');
  }

  private get folder(): string {
    return `${this.prefix}${STORE_FOLDER}`;
  }

  /** Copies this session's logs that grew since their last copy; then keeps the newest LOGS_KEPT in the store. */
  async push(): Promise<number> {
    let names: string[];
    try {
      names = readdirSync(this.dir).filter(isLog);
    } catch {
      return 0;
    }
    let pushed = 0;
    for (const name of names) {
      const path = join(this.dir, name);
      const stat = statSync(path, { throwIfNoEntry: false });
      if (stat === undefined || stat.mtimeMs < this.since || this.copied.get(name) === stat.size) continue;
      await putSealedFile(this.s3, this.key, `${STORE_FOLDER}${name}`, path, `${this.folder}${name}.kce`);
      this.copied.set(name, stat.size);
      pushed += 1;
    }
    if (pushed > 0) await this.prune();
    return pushed;
  }

  /** Deletes the oldest logs beyond LOGS_KEPT (names start with their run's time). */
  private async prune(): Promise<void> {
    const stored = (await this.s3.listEndingWith(this.folder, '.log.kce')).map((o) => o.key).sort();
    for (const key of stored.slice(0, Math.max(0, stored.length - LOGS_KEPT))) await this.s3.delete(key);
  }

  /** Brings the store's logs this folder lacks, dated as the store's copies: the count brought, and why any was not (a damaged one is skipped). */
  async pull(): Promise<{ brought: number; refused: string[] }> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    let brought = 0;
    const refused: string[] = [];
    for await (const o of this.s3.list(this.folder)) {
      const name = o.key.slice(this.folder.length).replace(/\.kce$/, '');
      const local = join(this.dir, name);
      if (!isLog(name) || statSync(local, { throwIfNoEntry: false }) !== undefined) continue;
      try {
        const opened = await getSealedFile(this.s3, o.key, local, (sealed) =>
          openFile(this.key, `${STORE_FOLDER}${name}`, sealed, local, this.s3.describe(o.key)),
        );
        if (opened === undefined) continue;
      } catch (error) {
        if (!(error instanceof EnvelopeError)) throw error;
        refused.push(error.message);
        continue;
      }
      utimesSync(local, o.lastModified, o.lastModified);
      brought += 1;
    }
    return { brought, refused };
  }
}
