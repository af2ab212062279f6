// containerd's registry configuration (cluster.registries): one hosts.toml per registry under
// /etc/containerd/certs.d, read by containerd at each pull (no restart), and the hosts.toml
// files kcluster wrote for registries no longer in the inventory removed again. A file with
// credentials is 0600 and never shown in a diff.
import { noChange } from '../../src/orchestrator/engine/change.js';
import type { Fact } from '../../src/orchestrator/engine/fact.js';
import type { AnyTask, Task } from '../../src/orchestrator/engine/types.js';
import { execChecked } from '../../src/orchestrator/ssh/connection.js';
import { sh } from '../../src/orchestrator/ssh/quote.js';
import { managedFile } from '../../src/orchestrator/tasks/managed-file.js';
import type { ClusterInputs } from '../../src/kubernetes/cluster/cluster-inputs.js';
import { CONTAINERD_CERTS_DIR, containerdHostsToml } from '../../src/kubernetes/cluster/registries.js';

/** The first line of every hosts.toml kcluster writes: how it recognises its own files. */
export const REGISTRY_MARKER = '# Managed by kcluster (cluster.registries): local changes are replaced on the next run.';

const hostsTomlOf = (name: string): string => `${CONTAINERD_CERTS_DIR}/${name}/hosts.toml`;

/** The registries whose hosts.toml kcluster wrote (first line is the marker). */
export function kclusterRegistryFiles(): Fact<string[]> {
  return {
    key: `registry-hosts:${CONTAINERD_CERTS_DIR}`,
    script: sh`for f in ${CONTAINERD_CERTS_DIR}/*/hosts.toml; do [ -f "$f" ] || continue; IFS= read -r first < "$f" || true; [ "$first" = ${REGISTRY_MARKER} ] && printf '%s\\n' "$f"; done; true`,
    become: true,
    parse: (stdout) => stdout.split('\n').filter((line) => line.startsWith(`${CONTAINERD_CERTS_DIR}/`)),
  };
}

function staleRegistriesRemoved(wanted: ReadonlySet<string>): Task<{ files: Fact<string[]> }, string[]> {
  return {
    name: 'no hosts.toml for registries no longer in the inventory',
    tags: ['containerd', 'registries'],
    facts: () => ({ files: kclusterRegistryFiles() }),
    plan: (facts) => {
      const stale = facts.files.filter((f) => !wanted.has(f));
      if (stale.length === 0) return noChange('every hosts.toml kcluster wrote belongs to a registry in the inventory');
      return { kind: 'delete', summary: `remove ${stale.join(', ')} (registry no longer in cluster.registries)`, payload: stale };
    },
    apply: async (change, ctx) => {
      for (const file of change.payload) {
        await execChecked(ctx.connection, sh`rm -f -- ${file} && rmdir -- ${file.slice(0, file.lastIndexOf('/'))} 2>/dev/null; true`, {
          become: true,
          label: `remove ${file}`,
        });
      }
    },
    invalidates: [`registry-hosts:${CONTAINERD_CERTS_DIR}`],
  };
}

export function registryHostsTasks(inputs: ClusterInputs): AnyTask[] {
  const registries = inputs.inventory.cluster.registries;
  const auth = inputs.registryAuth ?? {};
  const names = Object.keys(registries).sort();
  const files = names.map((name) => {
    const authorization = auth[name];
    return managedFile({
      name: `registry ${name}`,
      path: hostsTomlOf(name),
      content: () => containerdHostsToml(registries[name]!, authorization, REGISTRY_MARKER),
      mode: authorization !== undefined ? 0o600 : 0o644,
      tags: ['containerd', 'registries'],
      ...(authorization !== undefined ? { secret: true } : {}),
    });
  });
  return [...files, staleRegistriesRemoved(new Set(names.map(hostsTomlOf)))];
}
