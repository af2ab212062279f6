// A role plan test's run: the cluster playbook (or another) planned in check mode over a
// recording of real hosts (fake connections: nothing runs, no lab, no SSH), from the inventory
// the recording was made with, edited by the variant.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { planScenario, type Scenario } from '../plan-scenario.js';
import type { PlanVariant } from './plan-variants.js';
import { recordedFactsConnection } from './recorded-facts-connection.js';
import { FACTS_FIXTURES, readRecording } from './recording.js';

/** The inventory document a scenario's recordings were made with (its hosts' names and addresses). */
export function recordedInventory(scenario: string): Record<string, unknown> {
  const doc = parse(readFileSync(join(FACTS_FIXTURES, scenario, 'inventory.yaml'), 'utf8')) as Record<string, unknown>;
  // A login the inventory check accepts; never used, nothing connects.
  return { ...doc, ssh: { user: 'root', passwordEnv: 'KC_RECORDED_FACTS_NO_LOGIN' } };
}

export function planOverRecording(scenario: string, variant: PlanVariant = {}): Promise<Scenario> {
  return planScenario({
    base: recordedInventory(scenario),
    ...variant,
    connect: () => async (host) => recordedFactsConnection(readRecording(scenario, host.name)),
  });
}
