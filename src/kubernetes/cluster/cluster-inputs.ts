// Everything the cluster roles are built from, computed on the controller before any host is
// touched: the inventory, its topology, the verified artifacts, the cluster PKI and the keys that
// encrypt Secrets at rest.
import type { PreparedArtifact } from '../artifacts/artifact.js';
import type { Inventory } from '../../orchestrator/inventory/model.js';
import type { ClusterPki } from '../pki/cluster-pki.js';
import type { EncryptionKeys } from '../secrets/encryption-keys.js';
import type { Topology } from './topology.js';

import type { RegistryAuth } from './registries.js';
import type { OperatorManifests } from './operator-manifests.js';
import type { ComponentFiles } from './component-files.js';
import type { PreparedCharts } from '../charts/prepared-chart.js';
import type { ArtifactFanOut } from '../artifacts/fan-out/artifact-fan-out.js';
import type { SnapshotUploadInputs } from '../etcd/scheduled-snapshot-upload.js';

export interface ClusterInputs {
  readonly inventory: Inventory;
  readonly topology: Topology;
  readonly artifacts: readonly PreparedArtifact[];
  readonly pki: ClusterPki;
  /** The keys that encrypt Secrets at rest (<stateDir>/encryption/keys.json). */
  readonly encryption: EncryptionKeys;
  /** The API server's audit policy: kcluster's, or the file cluster.audit.policyFile names. */
  readonly auditPolicy: string;
  /** Preflight checks the user chose to skip (--ignore-preflight). */
  readonly ignorePreflight: ReadonlySet<string>;
  /** The controller's clock when the run started (epoch seconds), for the clock-skew check. */
  readonly controllerEpochSeconds: number;
  /** Registry credentials from the controller's environment (cluster.registries.*Env); none when absent. */
  readonly registryAuth?: RegistryAuth;
  /** The operator's manifests (cluster.manifests), read and checked on the controller; none when absent. */
  readonly operatorManifests?: OperatorManifests;
  /** Files the components' flags reference (extraFiles, the OIDC CA), read on the controller; none when absent. */
  readonly componentFiles?: ComponentFiles;
  /** The helm to run and cluster.charts checked and rendered on the controller; none when absent. */
  readonly charts?: PreparedCharts;
  /** The run's artifact distributor when hosts pass artifacts on (cluster.artifacts.fanOut and fanOutApplies); none otherwise. */
  readonly fanOut?: ArtifactFanOut;
  /** With cluster.state.scheduledSnapshots: the control planes' credential and the key they seal for; none otherwise. */
  readonly snapshotUpload?: SnapshotUploadInputs;
}

export function imageReference(inputs: ClusterInputs, name: string): string {
  const image = inputs.artifacts.find((a) => a.type === 'image' && a.name === name);
  if (!image?.reference) throw new Error(`no image named ${name} among the prepared artifacts`);
  return image.reference;
}

export function binariesFor(inputs: ClusterInputs, host: string): PreparedArtifact[] {
  return inputs.artifacts.filter((a) => a.type === 'binary' && a.hosts.includes(host));
}
