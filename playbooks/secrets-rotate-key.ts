// secrets-rotate-key: what `kcluster secrets rotate-key` runs. The control planes one at a time
// (each API server back, its static pods current, before the next), three times: the new key
// made readable everywhere, then the writing key, then (after every Secret is rewritten from
// the first control plane) the old key dropped. No Secret is unreadable at any moment: a server
// only ever meets values written with a key it holds (src/kubernetes/secrets/key-rotation.ts).
import type { ClusterInputs } from '../src/kubernetes/cluster/cluster-inputs.js';
import type { RotationPlan } from '../src/kubernetes/secrets/key-rotation.js';
import type { Playbook } from '../src/orchestrator/engine/types.js';
import { controlPlaneRole } from '../roles/control-plane/index.js';
import { secretsEncryptedTask } from '../roles/addons/secrets-encrypted.js';
import { snapshotName } from '../src/kubernetes/etcd/etcd-snapshot.js';

export function rotateKeyPlaybook(inputs: ClusterInputs, rotation: RotationPlan): Playbook {
  // One etcd snapshot, before the first control plane changes (the three plays share it).
  const snapshot = snapshotName(new Date());
  const controlPlanes = (encryption: ClusterInputs['encryption']) => ({
    hosts: 'control-plane',
    serial: 1,
    anyErrorsFatal: true,
    roles: [controlPlaneRole({ ...inputs, encryption }, { running: true, snapshotBeforeChange: snapshot })],
  });
  return {
    name: 'secrets-rotate-key',
    description: `rotate the key that encrypts Secrets at rest from ${rotation.from.name} to ${rotation.to.name}`,
    plays: [
      { name: `${rotation.to.name} readable on every API server`, ...controlPlanes(rotation.readable) },
      { name: `${rotation.to.name} encrypts, ${rotation.from.name} still reads`, ...controlPlanes(rotation.writing) },
      {
        name: `every Secret encrypted with ${rotation.to.name}`,
        hosts: inputs.topology.firstControlPlane.name,
        anyErrorsFatal: true,
        roles: [{ name: 'secrets', tags: ['secrets'], tasks: [secretsEncryptedTask(rotation.writing)] }],
      },
      { name: `${rotation.from.name} dropped`, ...controlPlanes(rotation.done) },
    ],
  };
}
