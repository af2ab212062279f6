// etcd's host side on a control plane: the system user it runs as and its data dir's owner.
import { noChange } from '../../src/orchestrator/engine/change.js';
import type { Task } from '../../src/orchestrator/engine/types.js';
import { sh } from '../../src/orchestrator/ssh/quote.js';
import { execChecked } from '../../src/orchestrator/ssh/connection.js';
import { createEtcdUser, ETCD_DATA_DIR, ETCD_USER, etcdDataOwnership, etcdUser } from '../../src/kubernetes/etcd/etcd-user.js';

/** The etcd user, made before anything it owns (CIS 1.1.12: etcd does not run as root). */
export function etcdUserTask(): Task<{ user: typeof etcdUser }, null> {
  return {
    name: 'user etcd',
    tags: ['control-plane', 'etcd'],
    facts: () => ({ user: etcdUser }),
    plan: ({ user }) => (user.exists ? noChange(`etcd runs as uid ${user.uid}, gid ${user.gid}`) : { kind: 'create', summary: `create the system user and group ${ETCD_USER} (etcd runs as it, owns ${ETCD_DATA_DIR} and its keys)`, payload: null }),
    apply: async (_change, ctx) => {
      await execChecked(ctx.connection, createEtcdUser, { become: true, label: 'create the etcd user' });
    },
    invalidates: ['etcd-user', 'etcd-data-ownership'],
  };
}

/** Everything under the data dir owned by the etcd user (a restore, or etcd once run as root, left root's files). */
export function etcdDataOwnedTask(): Task<{ data: typeof etcdDataOwnership }, null> {
  return {
    name: `${ETCD_DATA_DIR} owned by ${ETCD_USER}`,
    tags: ['control-plane', 'etcd'],
    facts: () => ({ data: etcdDataOwnership }),
    plan: ({ data }) => (data.foreign === 0 ? noChange(`everything under ${ETCD_DATA_DIR} belongs to ${ETCD_USER}`) : { kind: 'update', summary: `give ${data.foreign} files under ${ETCD_DATA_DIR} to ${ETCD_USER}:${ETCD_USER}`, payload: null }),
    apply: async (_change, ctx) => {
      await execChecked(ctx.connection, sh`chown -R ${`${ETCD_USER}:${ETCD_USER}`} ${ETCD_DATA_DIR}`, { become: true, label: 'etcd data ownership' });
    },
  };
}
