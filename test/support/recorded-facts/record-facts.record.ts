// Records the fact sections the role plan tests read, from real lab hosts (run by
// `npm run record:facts`, see record-facts.sh; not part of any test run). Each plan variant is
// planned in check mode over real SSH with every task's facts noted; then every noted fact's own
// script runs once more on its host, and its stdout and exit code are written, per host, to
// test/fixtures/facts/<scenario>/<host>.json, with the inventory the plans start from.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { buildFactBatch, newNonce, parseFactBatch } from '../../../src/orchestrator/engine/fact-batch.js';
import type { Inventory } from '../../../src/orchestrator/inventory/model.js';
import { loadInventory } from '../../../src/kubernetes/inventory/load-inventory.js';
import { createSshConnector } from '../../../src/orchestrator/ssh/connector.js';
import { hostKeyPolicyFor } from '../../../src/orchestrator/ssh/host-key-policy-for.js';
import { planScenario } from '../plan-scenario.js';
import { catalogueFacts, type FactCatalogue } from './fact-catalogue.js';
import { emptyHostVariants, OLD_EXTRA_FILES, settingsVariant, type PlanVariant } from './plan-variants.js';
import { FACTS_FIXTURES, writeRecording, type RecordedSection } from './recording.js';

const labDir = process.env['KCLUSTER_RECORD_LAB'] ?? '';
const labInventory = join(labDir, 'inventory.yaml');

const sshConnect = (inventory: Inventory, log: (line: string) => void) => {
  const connector = createSshConnector({ inventory, env: process.env, hostKeys: hostKeyPolicyFor(inventory, process.env), log });
  return (host: Parameters<typeof connector.connect>[0], signal: AbortSignal) => connector.connect(host, signal);
};

/** Plans each variant over real SSH, noting every fact each host's tasks read. */
async function catalogue(base: Record<string, unknown>, variants: readonly PlanVariant[]): Promise<FactCatalogue> {
  const facts: FactCatalogue = new Map();
  for (const variant of variants) {
    const plan = await planScenario({ base, ...variant, wrap: (p) => catalogueFacts(p, facts), connect: sshConnect });
    expect(plan.failures).toEqual([]);
  }
  return facts;
}

/** Every noted fact's own script, in one batch per host, as root; written as the scenario's recording. */
async function record(scenario: string, about: string, facts: FactCatalogue): Promise<void> {
  const loaded = await loadInventory(labInventory, { env: process.env });
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.errors));
  const connect = sshConnect(loaded.inventory, () => undefined);
  for (const host of loaded.inventory.hosts) {
    const own = [...(facts.get(host.name)?.values() ?? [])];
    const connection = await connect(host, new AbortController().signal);
    try {
      const nonce = newNonce();
      const result = await connection.exec(
        buildFactBatch(
          own.map((f) => ({ script: f.script })),
          nonce,
        ),
        { become: true, label: 'record facts' },
      );
      const sections = parseFactBatch(result.stdout, own.length, nonce);
      const recorded = new Map<string, RecordedSection>(
        own.map((f, i) => [
          f.key,
          {
            script: f.script.text,
            ...(f.group ? { group: { id: f.group.id, item: f.group.item } } : {}),
            stdout: sections[i]!.stdout,
            exitCode: sections[i]!.exitCode,
          },
        ]),
      );
      console.log(`${scenario}/${host.name}: ${recorded.size} fact sections -> ${writeRecording(scenario, host.name, about, recorded)}`);
    } finally {
      await connection.close();
    }
  }
}

/** The lab's inventory without what only this machine has (state folder, SSH key paths). */
function baseInventory(scenario: string): Record<string, unknown> {
  const doc = parse(readFileSync(labInventory, 'utf8')) as Record<string, unknown>;
  const hosts = doc['hosts'] as Record<string, unknown>[];
  writeFileSync(
    join(FACTS_FIXTURES, scenario, 'inventory.yaml'),
    `# The lab inventory the recordings of this folder were made with (npm run record:facts).\n${stringify({ cluster: doc['cluster'], hosts })}`,
  );
  return doc;
}

const ssh = (host: string, command: string): void => void execFileSync('ssh', ['-F', join(labDir, 'ssh_config'), host, command], { stdio: 'inherit' });

it('records the fact sections of fresh Debian hosts (1 control plane, 2 workers)', async () => {
  const facts = await catalogue(parse(readFileSync(labInventory, 'utf8')) as Record<string, unknown>, emptyHostVariants());
  await record('empty-debian', 'A fresh lab host (Debian, systemd, nothing of Kubernetes): each fact section its own script printed.', facts);
  baseInventory('empty-debian');
});

it('records the same hosts with files an earlier inventory listed in extraFiles on the control plane', async () => {
  const base = parse(readFileSync(labInventory, 'utf8')) as Record<string, unknown>;
  const first = (base['hosts'] as { name: string }[])[0]!.name;
  ssh(first, OLD_EXTRA_FILES);
  try {
    const facts = await catalogue(base, [settingsVariant()]);
    await record(
      'old-extra-files',
      `Fresh lab hosts; on ${first}, /etc/kubernetes/extra/kube-apiserver holds old-webhook.conf and admission.yaml from an earlier inventory.`,
      facts,
    );
    baseInventory('old-extra-files');
  } finally {
    ssh(first, 'rm -rf /etc/kubernetes/extra');
  }
});
