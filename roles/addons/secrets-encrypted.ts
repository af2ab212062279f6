// The addons role's last task: every Secret in etcd is encrypted with the current key. A cluster
// installed before encryption at rest (or right after a new key became the writing one) holds
// Secrets stored in plain text or with an older key: they are read and written back through the
// API, which encrypts them with the current key. Read from etcd itself (secrets-at-rest.ts).
import { noChange } from '../../src/orchestrator/engine/change.js';
import type { Task } from '../../src/orchestrator/engine/types.js';
import { execChecked } from '../../src/orchestrator/ssh/connection.js';
import { sh } from '../../src/orchestrator/ssh/quote.js';
import type { EncryptionKeys } from '../../src/kubernetes/secrets/encryption-keys.js';
import { secretsAtRest } from '../../src/kubernetes/secrets/secrets-at-rest.js';
import { adminKubectl } from '../../src/kubernetes/facts/admin-kubectl.js';

export function secretsEncryptedTask(encryption: EncryptionKeys): Task<{ stored: typeof secretsAtRest }, null> {
  const current = `secretbox:${encryption.keys[0]!.name}`;
  return {
    name: 'Secrets encrypted at rest with the current key',
    tags: ['addons', 'secrets', 'encryption'],
    facts: () => ({ stored: secretsAtRest }),
    plan: ({ stored }) => {
      if (!stored.known) return { kind: 'update', summary: `encrypt every Secret with ${current} (etcd cannot be read yet: ${stored.detail})`, payload: null };
      const others = Object.entries(stored.byKey).filter(([key]) => key !== current);
      if (others.length === 0) return noChange(`${stored.total} Secrets, all encrypted with ${current}`);
      const count = others.reduce((n, [, c]) => n + c, 0);
      return {
        kind: 'update',
        summary: `rewrite ${count} of ${stored.total} Secrets so that ${current} encrypts them (now: ${others.map(([k, c]) => `${c} ${k}`).join(', ')})`,
        payload: null,
      };
    },
    apply: async (_change, ctx) => {
      // Every Secret read and written back unchanged: the API server stores it with the current
      // key. A Secret changed in between makes replace conflict: the next round reads it again.
      const kubectl = adminKubectl(120);
      await execChecked(
        ctx.connection,
        sh`for i in 1 2 3; do ${kubectl} get secrets --all-namespaces -o json | ${kubectl} replace -f - >/dev/null && exit 0; sleep 2; done; exit 1`,
        {
          become: true,
          label: 'rewrite every Secret',
          timeoutMs: 600_000,
        },
      );
    },
    verify: true,
  };
}
