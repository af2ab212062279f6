// Reads journal files back. A run killed while writing leaves a torn last line: it is left
// out without a word (the run then has no end record: "did not finish"). Any other line that
// is not a record is skipped with a note naming file:line.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { JournalRecord, RunRecord } from './journal-records.js';
import { journalFiles } from './journal-writer.js';

export interface JournalFile {
  readonly file: string;
  readonly run: RunRecord;
  /** Every record after the first. */
  readonly records: readonly JournalRecord[];
  /** The last line was cut short (the run was killed while writing it). */
  readonly torn: boolean;
}

const TYPES = new Set(['run', 'role', 'change', 'host-end', 'interrupt', 'end']);

function recordOf(line: string): JournalRecord | undefined {
  try {
    const value = JSON.parse(line) as { type?: unknown };
    return typeof value === 'object' && value !== null && typeof value.type === 'string' && TYPES.has(value.type) ? (value as JournalRecord) : undefined;
  } catch {
    return undefined;
  }
}

/** One file's records, or undefined (with a note) when its first line is not a run record. */
export function parseJournal(text: string, file: string, note: (line: string) => void): JournalFile | undefined {
  const lines = text.split('\n');
  // A complete file ends with a newline: the last piece is '' or the torn line.
  const last = lines.pop() ?? '';
  let torn = last !== '';
  const records: JournalRecord[] = [];
  const skipped: string[] = [];
  lines.forEach((line, index) => {
    if (line.trim() === '') return;
    const record = recordOf(line);
    if (record) records.push(record);
    else skipped.push(`${file}:${index + 1}: not a journal record, skipped`);
  });
  // A torn line that happens to parse was still written whole (only its newline is missing).
  if (torn && recordOf(last) !== undefined) {
    records.push(recordOf(last)!);
    torn = false;
  }
  const [first, ...rest] = records;
  if (first?.type !== 'run') {
    note(`${file}:1: no run record at the start of this journal file, skipped (delete it if it is not kcluster's)`);
    return undefined;
  }
  skipped.forEach(note);
  return { file, run: first, records: rest, torn };
}

/** Every run of a journal folder, oldest first. */
export function readJournalFolder(dir: string, note: (line: string) => void): JournalFile[] {
  return journalFiles(dir).flatMap((name) => {
    const file = join(dir, name);
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      note(`${file}: cannot read it: ${(error as Error).message}`);
      return [];
    }
    const parsed = parseJournal(text, file, note);
    return parsed ? [parsed] : [];
  });
}
