// etcd runs as a system user of its own, `etcd`, which owns its 0700 data dir and its keys
// (CIS 1.1.12): created by kcluster on each control plane (marked in its comment, so that
// `kcluster reset` removes only a user kcluster made), its uid and gid read back as a fact for
// the static pod's securityContext.
import type { Fact } from '../../orchestrator/engine/fact.js';
import { sh, shellRaw } from '../../orchestrator/ssh/quote.js';

export const ETCD_USER = 'etcd';
export const ETCD_USER_COMMENT = 'etcd (kcluster)';
export const ETCD_DATA_DIR = '/var/lib/etcd';

export type EtcdUser = { readonly exists: false } | { readonly exists: true; readonly uid: number; readonly gid: number };

export const etcdUser: Fact<EtcdUser> = {
  key: 'etcd-user',
  script: sh`getent passwd ${ETCD_USER} | cut -d: -f3,4; true`,
  parse(stdout) {
    const line = stdout.trim();
    if (line === '') return { exists: false };
    const match = /^(\d+):(\d+)$/.exec(line);
    if (!match) throw new Error(`unexpected getent output "${line.slice(0, 80)}"`);
    return { exists: true, uid: Number(match[1]), gid: Number(match[2]) };
  },
};

/** Creates the user and its group, system accounts without a login. */
export const createEtcdUser = sh`getent group ${ETCD_USER} >/dev/null || groupadd --system ${ETCD_USER}
getent passwd ${ETCD_USER} >/dev/null || useradd --system --gid ${ETCD_USER} --no-create-home --home-dir ${ETCD_DATA_DIR} --shell /usr/sbin/nologin --comment ${ETCD_USER_COMMENT} ${ETCD_USER}`;

/** Files under the data dir that the etcd user does not own (a restore or an older kcluster made them as root). */
export const etcdDataOwnership: Fact<{ readonly foreign: number }> = {
  key: 'etcd-data-ownership',
  become: true,
  script: shellRaw(
    `if getent passwd ${ETCD_USER} >/dev/null && [ -d ${ETCD_DATA_DIR} ]; then find ${ETCD_DATA_DIR} -mindepth 1 \\( ! -user ${ETCD_USER} -o ! -group ${ETCD_USER} \\) -print | wc -l; else echo 0; fi`,
  ),
  parse: (stdout) => ({ foreign: Number(stdout.trim()) || 0 }),
};
