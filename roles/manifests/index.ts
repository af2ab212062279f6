// The manifests role: the operator's own manifests (cluster.manifests), applied server-side on
// the first control plane after the built-in addons (field manager kcluster-manifests), and the
// objects that left them deleted from the cluster. The plan compares with the record of the
// last apply: `--check --diff` shows the text that changes and every object that would go.
// See README.md beside this file.
import { createHash } from 'node:crypto';
import { noChange } from '../../src/orchestrator/engine/change.js';
import { createTwoFilesPatch } from '../../src/orchestrator/tasks/managed-file.js';
import type { Role, Task } from '../../src/orchestrator/engine/types.js';
import { execChecked } from '../../src/orchestrator/ssh/connection.js';
import { sh } from '../../src/orchestrator/ssh/quote.js';
import type { ClusterInputs } from '../../src/kubernetes/cluster/cluster-inputs.js';
import { refText, removedObjects, type ObjectRef } from '../../src/kubernetes/cluster/operator-manifests.js';
import { manifestRecord, recordManifest } from './record.js';
import { adminKubectl } from '../../src/kubernetes/facts/admin-kubectl.js';

interface ManifestPayload {
  readonly text: string;
  readonly sha256: string;
  readonly objects: readonly ObjectRef[];
  readonly remove: readonly ObjectRef[];
}

const FIELD_MANAGER = 'kcluster-manifests';

/** A stub of an object, enough for `kubectl delete -f`. */
const stub = (r: ObjectRef): string =>
  JSON.stringify({ apiVersion: r.apiVersion, kind: r.kind, metadata: { name: r.name, ...(r.namespace !== undefined ? { namespace: r.namespace } : {}) } });

function operatorManifestsTask(inputs: ClusterInputs): Task<{ record: typeof manifestRecord }, ManifestPayload> {
  const manifests = inputs.operatorManifests ?? { text: '', objects: [] };
  const sha256 = createHash('sha256').update(manifests.text).digest('hex');
  return {
    name: 'operator manifests',
    tags: ['manifests'],
    facts: () => ({ record: manifestRecord }),
    plan: (facts) => {
      if (!facts.record.reachable) throw new Error(`cannot read the manifest record through the API server: ${facts.record.detail}`);
      const record = facts.record;
      if (manifests.objects.length === 0 && record.objects.length === 0) return noChange('no operator manifests (cluster.manifests), and none applied before');
      if (record.sha256 === sha256)
        return noChange(`the ${manifests.objects.length} objects of cluster.manifests are applied as written (sha256 ${sha256.slice(0, 12)}…)`);
      const remove = removedObjects(record.objects, manifests.objects);
      const parts = [
        ...(manifests.objects.length > 0 ? [`apply ${manifests.objects.length} objects (server-side)`] : []),
        ...(remove.length > 0 ? [`delete ${remove.map(refText).join(', ')} (no longer in cluster.manifests)`] : []),
      ];
      const diff = createTwoFilesPatch('a/cluster.manifests', 'b/cluster.manifests', record.text, manifests.text);
      return {
        kind: record.sha256 === undefined ? 'create' : 'update',
        summary: parts.join('; '),
        diff,
        payload: { text: manifests.text, sha256, objects: manifests.objects, remove },
      };
    },
    apply: async (change, ctx) => {
      const kubectl = adminKubectl(60);
      if (change.payload.objects.length > 0) {
        await execChecked(ctx.connection, sh`${kubectl} apply --server-side --force-conflicts --field-manager=${FIELD_MANAGER} -f -`, {
          become: true,
          stdin: change.payload.text,
          label: 'apply cluster.manifests',
        });
      }
      if (change.payload.remove.length > 0) {
        const stubs = change.payload.remove.map(stub).join('\n');
        await execChecked(ctx.connection, sh`${kubectl} delete --ignore-not-found --wait=false -f -`, {
          become: true,
          stdin: stubs,
          label: 'delete objects no longer in cluster.manifests',
        });
      }
      await execChecked(ctx.connection, sh`${kubectl} apply --server-side --force-conflicts --field-manager=${FIELD_MANAGER} -f -`, {
        become: true,
        stdin: recordManifest(change.payload.sha256, change.payload.objects, change.payload.text),
        label: 'record cluster.manifests',
      });
    },
    invalidates: ['manifest-record'],
  };
}

export function manifestsRole(inputs: ClusterInputs): Role {
  return { name: 'manifests', tags: ['manifests'], tasks: [operatorManifestsTask(inputs)] };
}
