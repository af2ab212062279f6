// The control plane's last good static pod manifests: a copy of the four manifests kept on
// each control plane once they ran (the control-plane wait succeeded), so that a change that
// keeps a component from starting (a bad flag, an image that crashes) can be undone on that
// host before the run stops: the previous manifest goes back, the component comes back.
// Kept outside /etc/kubernetes/manifests, where the kubelet would run every file as a pod;
// each copy is written to a temporary name and renamed, so no reader ever sees half a file.
import type { Fact } from '../../orchestrator/engine/fact.js';
import { sh } from '../../orchestrator/ssh/quote.js';
import { MANIFESTS_DIR } from '../facts/static-pods.js';

export const LAST_GOOD_MANIFESTS_DIR = '/etc/kubernetes/manifests-last-good';
export const CONTROL_PLANE_MANIFESTS = ['etcd.yaml', 'kube-apiserver.yaml', 'kube-controller-manager.yaml', 'kube-scheduler.yaml'] as const;

/** The control-plane manifests on disk, and those that have a kept copy. */
export const lastGoodManifests: Fact<{ readonly present: readonly string[]; readonly kept: readonly string[] }> = {
  key: 'last-good-manifests',
  become: true,
  script: sh`for f in ${CONTROL_PLANE_MANIFESTS}; do [ -f ${MANIFESTS_DIR}/"$f" ] && echo "present $f"; [ -f ${LAST_GOOD_MANIFESTS_DIR}/"$f" ] && echo "kept $f"; done; true`,
  parse: (stdout) => {
    const listed = (what: string) =>
      stdout
        .split('\n')
        .filter((line) => line.startsWith(`${what} `))
        .map((line) => line.slice(what.length + 1))
        .filter((f) => (CONTROL_PLANE_MANIFESTS as readonly string[]).includes(f));
    return { present: listed('present'), kept: listed('kept') };
  },
};

/** Keeps the manifests now on disk as the last good ones. */
export const keepLastGoodManifests = sh`install -d -m 0700 ${LAST_GOOD_MANIFESTS_DIR} && for f in ${CONTROL_PLANE_MANIFESTS}; do
  if [ -f ${MANIFESTS_DIR}/"$f" ]; then cp -p ${MANIFESTS_DIR}/"$f" ${LAST_GOOD_MANIFESTS_DIR}/."$f".tmp && mv -f ${LAST_GOOD_MANIFESTS_DIR}/."$f".tmp ${LAST_GOOD_MANIFESTS_DIR}/"$f" || exit 1; fi
done`;

/** Puts back each kept manifest that differs from the one on disk; prints the file names put back. */
export const restoreLastGoodManifests = sh`for f in ${CONTROL_PLANE_MANIFESTS}; do
  if [ -f ${LAST_GOOD_MANIFESTS_DIR}/"$f" ] && ! cmp -s ${LAST_GOOD_MANIFESTS_DIR}/"$f" ${MANIFESTS_DIR}/"$f"; then
    cp -p ${LAST_GOOD_MANIFESTS_DIR}/"$f" ${LAST_GOOD_MANIFESTS_DIR}/."$f".restore && mv -f ${LAST_GOOD_MANIFESTS_DIR}/."$f".restore ${MANIFESTS_DIR}/"$f" && echo "$f" || exit 1
  fi
done`;
