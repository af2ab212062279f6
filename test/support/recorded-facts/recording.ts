// A recording of fact sections: per host, what each fact's own script printed on a real host,
// keyed by the fact's key. One file per host under test/fixtures/facts/<scenario>/<host>.json,
// written by `npm run record:facts` (see record-facts.sh) and replayed by recordedFactsConnection.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

export interface RecordedSection {
  /** The fact's own script, as the engine sends it when the fact is read alone. */
  readonly script: string;
  /** The group the fact is read with when a batch holds several of its kind. */
  readonly group?: { readonly id: string; readonly item: string };
  readonly stdout: string;
  readonly exitCode: number;
}

export interface HostRecording {
  /** Where this recording lives (relative to the repository), for error messages. */
  readonly file: string;
  readonly host: string;
  readonly facts: Readonly<Record<string, RecordedSection>>;
}

export const repoRoot = resolve(import.meta.dirname, '../../..');
export const FACTS_FIXTURES = join(repoRoot, 'test/fixtures/facts');

export function recordingFile(scenario: string, host: string): string {
  return join(FACTS_FIXTURES, scenario, `${host}.json`);
}

export function readRecording(scenario: string, host: string): HostRecording {
  const file = recordingFile(scenario, host);
  const doc = JSON.parse(readFileSync(file, 'utf8')) as { host: string; facts: Record<string, RecordedSection> };
  return { file: relative(repoRoot, file), host: doc.host, facts: doc.facts };
}

/** Keys sorted, so a refresh shows in git as the sections that changed. */
export function writeRecording(scenario: string, host: string, about: string, facts: ReadonlyMap<string, RecordedSection>): string {
  const file = recordingFile(scenario, host);
  mkdirSync(dirname(file), { recursive: true });
  const sorted = Object.fromEntries([...facts.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  writeFileSync(file, `${JSON.stringify({ about, host, facts: sorted }, null, 2)}\n`);
  return file;
}
