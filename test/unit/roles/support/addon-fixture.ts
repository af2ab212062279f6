// What the addon unit tests share: cluster inputs built from a small inventory (1 control plane,
// 1 worker; images referenced as kcluster.local/NAME:VERSION), the kcluster-addons record as its
// fact reads it, and an addon task's plan for a `cluster:` snippet and a recorded state.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ClusterInputs } from '../../../../src/kubernetes/cluster/cluster-inputs.js';
import { topologyOf } from '../../../../src/kubernetes/cluster/topology.js';
import { requiredArtifacts } from '../../../../src/kubernetes/artifacts/required-artifacts.js';
import { addonRecord, type AddonRecord } from '../../../../src/kubernetes/facts/addon-record.js';
import { isPending, type Change } from '../../../../src/orchestrator/engine/change.js';
import type { AnyTask, HostContext } from '../../../../src/orchestrator/engine/types.js';
import { loadInventoryText } from '../../support/inventory-text.js';

export const TWO_HOSTS = 'hosts:\n  - { name: cp1, address: 10.0.0.1, roles: [control-plane] }\n  - { name: w1, address: 10.0.0.2, roles: [worker] }\n';

export type AddonChange = Change<{ manifest: string; sha256: string }>;

export interface AddonFixture {
  /** A folder for files the inventory names (a bundle path, say). */
  readonly root: string;
  readonly inputs: (cluster?: string, hosts?: string) => ClusterInputs;
  readonly record: (data: Record<string, string>) => AddonRecord;
  /** The addon task's plan with `cluster` (lines under `cluster:`) and the record holding `data`. */
  readonly planOf: (cluster: string, data: Record<string, string>) => AddonChange;
  /** The manifest the task would apply with `cluster`; throws when it would not apply. */
  readonly manifestOf: (cluster?: string, hosts?: string) => string;
}

export function addonFixture(name: string, task: (inputs: ClusterInputs) => AnyTask): AddonFixture {
  const root = mkdtempSync(join(tmpdir(), `kc-${name}-`));
  const inputs = (cluster = '', hosts = TWO_HOSTS): ClusterInputs => {
    const inventory = loadInventoryText(root, `${cluster ? `cluster:\n${cluster}` : ''}${hosts}`);
    const artifacts = requiredArtifacts(inventory).map((a) => ({ ...a, reference: a.type === 'image' ? `kcluster.local/${a.name}:${a.version}` : undefined }));
    return { inventory, topology: topologyOf(inventory), artifacts, encryption: { keys: [{ name: 'key-1', secret: 'unused' }] } } as unknown as ClusterInputs;
  };
  const record = (data: Record<string, string>): AddonRecord => addonRecord.parse(`ok\n${JSON.stringify(data)}\n`, 0);
  const planOf = (cluster: string, data: Record<string, string>, hosts?: string): AddonChange =>
    task(inputs(cluster, hosts)).plan({ record: record(data) } as never, {} as HostContext) as AddonChange;
  const manifestOf = (cluster = '', hosts?: string): string => {
    const change = planOf(cluster, {}, hosts);
    if (!isPending(change)) throw new Error(`expected ${name} to be applied, got ${change.kind}`);
    return change.payload.manifest;
  };
  return { root, inputs, record, planOf, manifestOf };
}
