// A cluster playbook planned in check mode (--check --diff) from real inputs: the parsed
// inventory, a generated PKI, artifacts prepared from a stand-in bundle. The hosts are reached
// through `connect`: real SSH (the integration smoke test, the fact recorder) or a replay of
// recorded facts (the role plan unit tests). Preflight is left out: lab hosts share this
// machine's kernel. What each task would change, skip or wait for comes back per host.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { prepareArtifacts } from '../../src/kubernetes/artifacts/prepare-artifacts.js';
import { requiredArtifacts } from '../../src/kubernetes/artifacts/required-artifacts.js';
import type { ClusterInputs } from '../../src/kubernetes/cluster/cluster-inputs.js';
import { pkiSpecOf } from '../../src/kubernetes/cluster/pki-spec.js';
import { topologyOf } from '../../src/kubernetes/cluster/topology.js';
import { DEFAULT_AUDIT_POLICY } from '../../src/kubernetes/cluster/audit-policy.js';
import { EncryptionKeyStore, type EncryptionKeys } from '../../src/kubernetes/secrets/encryption-keys.js';
import type { RunEvent } from '../../src/orchestrator/engine/events.js';
import { runPlaybook } from '../../src/orchestrator/engine/run-playbook.js';
import { loadInventory } from '../../src/kubernetes/inventory/load-inventory.js';
import type { HostSettings, Inventory } from '../../src/orchestrator/inventory/model.js';
import { ensureClusterPki } from '../../src/kubernetes/pki/cluster-pki.js';
import type { Connection } from '../../src/orchestrator/ssh/connection.js';
import type { Playbook } from '../../src/orchestrator/engine/types.js';
import { clusterPlaybook } from '../../playbooks/cluster.js';
import { registryAuthFrom } from '../../src/kubernetes/cluster/registries.js';
import { loadOperatorManifests } from '../../src/kubernetes/cluster/operator-manifests.js';
import { loadComponentFiles } from '../../src/kubernetes/cluster/component-files.js';
import { writeStandInBundle } from './stand-in-bundle.js';
import { sharedPkiStateDir } from './shared-pki.js';

export interface Planned {
  readonly host: string;
  readonly role: string;
  readonly task: string;
  readonly summary: string;
  readonly diff?: string;
}

export interface Scenario {
  readonly planned: Planned[];
  /** host task -> why it was skipped */
  readonly skipped: Map<string, string>;
  /** In order: "host role/task: would wait for ..." (a wait is planned as ok, not as a change). */
  readonly waits: string[];
  readonly encryption: EncryptionKeys;
  readonly failures: string[];
  readonly exitCode: number;
  readonly log: string[];
  tasks(host: string, role: string): string[];
  diff(host: string, task: string): string;
}

export interface PlanOptions {
  /** The inventory document the scenario starts from (the lab's, or a recording's). */
  readonly base: Record<string, unknown>;
  readonly edit?: (doc: Record<string, unknown>) => void;
  readonly build?: (inputs: ClusterInputs) => Playbook;
  /** Applied to the playbook before it runs (the fact recorder notes what each task reads). */
  readonly wrap?: (playbook: Playbook) => Playbook;
  /** The connection to each host; given the parsed inventory and the run's debug log. */
  connect(inventory: Inventory, log: (line: string) => void): (host: HostSettings, signal: AbortSignal) => Promise<Connection>;
}

async function load(file: string): Promise<Inventory> {
  const result = await loadInventory(file, { env: process.env });
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return result.inventory;
}

export async function planScenario(options: PlanOptions): Promise<Scenario> {
  const work = mkdtempSync(join(tmpdir(), 'kc-roles-plan-'));
  const bundle = join(work, 'bundle');
  const variant = (stateDir: string): string => {
    const doc = structuredClone(options.base);
    options.edit?.(doc);
    doc['stateDir'] = stateDir;
    doc['cluster'] = { ...(doc['cluster'] as object), artifacts: { source: 'bundle', bundle, cacheDir: join(work, 'cache') } };
    const file = join(mkdtempSync(join(work, 'inv-')), 'inventory.yaml');
    writeFileSync(file, stringify(doc));
    return file;
  };
  const first = await load(variant(join(work, 'state')));
  writeStandInBundle(bundle, requiredArtifacts(first));
  const stateDir = await sharedPkiStateDir(pkiSpecOf(first, topologyOf(first)));
  const inventory = await load(variant(stateDir));
  const topology = topologyOf(inventory);
  const pki = await ensureClusterPki(stateDir, pkiSpecOf(inventory, topology));
  const artifacts = await prepareArtifacts(inventory, {});
  const encryption = await new EncryptionKeyStore(stateDir).ensure();
  const inputs: ClusterInputs = {
    inventory,
    topology,
    artifacts,
    pki,
    encryption,
    auditPolicy: DEFAULT_AUDIT_POLICY,
    ignorePreflight: new Set(),
    controllerEpochSeconds: Math.floor(Date.now() / 1000),
    registryAuth: registryAuthFrom(inventory.cluster.registries, process.env),
    operatorManifests: await loadOperatorManifests(inventory.cluster.manifests),
    componentFiles: await loadComponentFiles(inventory.cluster),
  };
  const built = (options.build ?? ((i) => clusterPlaybook(i, { running: false })))(inputs);
  const withoutPreflight = { ...built, plays: built.plays.filter((p) => !p.name.startsWith('preflight')) };
  const playbook = options.wrap ? options.wrap(withoutPreflight) : withoutPreflight;
  const log: string[] = [];
  const connect = options.connect(inventory, (line) => log.push(line));
  const events: RunEvent[] = [];
  const summary = await runPlaybook({
    inventory,
    playbook,
    connect,
    concurrency: 8,
    check: true,
    diff: true,
    events: { emit: (e) => events.push(e) },
    signal: new AbortController().signal,
    log: (line) => log.push(line),
  });
  const planned = events.flatMap((e) =>
    e.type === 'task-result' && e.status === 'changed'
      ? [{ host: e.host, role: e.role, task: e.task, summary: e.summary ?? '', ...(e.diff ? { diff: e.diff } : {}) }]
      : [],
  );
  const failures = events.flatMap((e) =>
    e.type === 'task-result' && e.status === 'failed' ? [`${e.host}: ${e.task}: ${e.error ?? ''}`] : e.type === 'host-failed' ? [`${e.host}: ${e.error}`] : [],
  );
  const skipped = new Map(
    events.flatMap((e) => (e.type === 'task-result' && e.status === 'skipped' ? [[`${e.host} ${e.task}`, e.reason ?? ''] as const] : [])),
  );
  const waits = events.flatMap((e) =>
    e.type === 'task-result' && e.status === 'ok' && (e.reason ?? '').startsWith('would ') ? [`${e.host} ${e.role}/${e.task}: ${e.reason}`] : [],
  );
  return {
    planned,
    skipped,
    waits,
    encryption,
    failures,
    exitCode: summary.exitCode,
    log,
    tasks: (host, role) => planned.filter((p) => p.host === host && p.role === role).map((p) => p.task),
    diff: (host, task) => planned.find((p) => p.host === host && p.task === task)?.diff ?? '',
  };
}
