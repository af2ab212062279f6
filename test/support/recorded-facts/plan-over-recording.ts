// A role plan test's run: the cluster playbook (or another) planned in check mode over a
// recording of real hosts (fake connections: nothing runs, no lab, no SSH), from the inventory
// the recording was made with, edited by the variant.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { planScenario, type Scenario } from '../plan-scenario.js';
import { catalogueFacts, type FactCatalogue } from './fact-catalogue.js';
import type { PlanVariant } from './plan-variants.js';
import { recordedFactsConnection } from './recorded-facts-connection.js';
import { FACTS_FIXTURES, readRecording, type HostRecording } from './recording.js';

/** The inventory document a scenario's recordings were made with (its hosts' names and addresses). */
export function recordedInventory(scenario: string): Record<string, unknown> {
  const doc = parse(readFileSync(join(FACTS_FIXTURES, scenario, 'inventory.yaml'), 'utf8')) as Record<string, unknown>;
  // A login the inventory check accepts; never used, nothing connects.
  return { ...doc, ssh: { user: 'root', passwordEnv: 'KC_RECORDED_FACTS_NO_LOGIN' } };
}

/** `recordingOf` is for tests of the replay itself (a recording with a section taken out). */
export function planOverRecording(
  scenario: string,
  variant: PlanVariant = {},
  recordingOf: (host: string) => HostRecording = (host) => readRecording(scenario, host),
): Promise<Scenario> {
  // What each host's tasks ask for, so that a section the recording lacks is named by its fact's key.
  const asked: FactCatalogue = new Map();
  return planScenario({
    base: recordedInventory(scenario),
    ...variant,
    wrap: (playbook) => catalogueFacts(playbook, asked),
    connect: () => async (host) => recordedFactsConnection(recordingOf(host.name), () => asked.get(host.name)?.values() ?? []),
  });
}
