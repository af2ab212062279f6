// Every fact the cluster roles read, with its own recorded output from a real host (the
// recordings under test/fixtures/facts/<scenario>/<host>.json: the fact's script and what it
// printed) and the value its parser makes of that output, kept beside the recording
// (<host>.parsed.json): a parser change that reads a real output differently shows here, fact by
// fact. After a deliberate change: KCLUSTER_UPDATE_PARSED_FACTS=1 npx vitest run --project unit
// test/unit/facts/parsed-recordings.test.ts rewrites the files, and git shows what changed.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Fact } from '../../../src/orchestrator/engine/fact.js';
import { planScenario } from '../../support/plan-scenario.js';
import { catalogueFacts, type FactCatalogue } from '../../support/recorded-facts/fact-catalogue.js';
import { recordedInventory } from '../../support/recorded-facts/plan-over-recording.js';
import { recordedFactsConnection } from '../../support/recorded-facts/recorded-facts-connection.js';
import { FACTS_FIXTURES, readRecording } from '../../support/recorded-facts/recording.js';

const SCENARIO = 'empty-debian';
const update = process.env['KCLUSTER_UPDATE_PARSED_FACTS'] === '1';

/** A value as JSON keeps it (Maps and Sets as arrays), so that what is compared is what is written. */
const plain = (value: unknown): unknown =>
  JSON.parse(JSON.stringify(value, (_k, v: unknown) => (v instanceof Map ? Object.fromEntries(v) : v instanceof Set ? [...v] : v)));

describe(`the facts of the cluster roles, parsed from the recordings of ${SCENARIO}`, async () => {
  // What each host's tasks ask for: the cluster playbook planned over the recordings.
  const asked: FactCatalogue = new Map();
  await planScenario({
    base: recordedInventory(SCENARIO),
    wrap: (playbook) => catalogueFacts(playbook, asked),
    connect: () => async (host) => recordedFactsConnection(readRecording(SCENARIO, host.name), () => asked.get(host.name)?.values() ?? []),
  });

  it('reads facts from every host of the recording', () => {
    expect([...asked.keys()].sort()).toEqual(['kcrec1', 'kcrec2', 'kcrec3']);
  });

  for (const [host, facts] of [...asked.entries()].sort(([a], [b]) => (a < b ? -1 : 1))) {
    it(`${host}: each recorded output parses to the value kept in ${SCENARIO}/${host}.parsed.json`, () => {
      const recording = readRecording(SCENARIO, host);
      const parsed: Record<string, unknown> = {};
      for (const fact of [...facts.values()].sort((a, b) => (a.key < b.key ? -1 : 1)) as Fact<unknown>[]) {
        const section = recording.facts[fact.key];
        if (section === undefined) continue; // a fact read only in a later step of a run: not in a fresh host's recording
        parsed[fact.key] = plain(fact.parse(section.stdout, section.exitCode));
      }
      expect(Object.keys(parsed).length).toBeGreaterThan(10);
      const file = join(FACTS_FIXTURES, SCENARIO, `${host}.parsed.json`);
      if (update) writeFileSync(file, `${JSON.stringify(parsed, null, 2)}\n`);
      expect(existsSync(file), `${file} is missing: run with KCLUSTER_UPDATE_PARSED_FACTS=1 to write it`).toBe(true);
      expect(parsed, `${file}: run with KCLUSTER_UPDATE_PARSED_FACTS=1 after a deliberate parser change`).toEqual(JSON.parse(readFileSync(file, 'utf8')));
    });
  }
});
