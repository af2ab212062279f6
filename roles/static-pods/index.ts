// The static-pods role, used on each control plane by `kcluster certs renew` after the
// control-plane and kubelet roles: the control-plane role's own last task again (the API
// server answers /readyz, and etcd, kube-apiserver, kube-controller-manager and
// kube-scheduler run the manifests now on disk and are Ready, src/kubernetes/facts/static-pods.ts), now
// after the kubelet restarted with its renewed certificate, before the next control plane is
// touched. See README.md beside this file.
import type { Role } from '../../src/orchestrator/engine/types.js';
import { lastGoodManifestsUndo, waitForControlPlane } from '../control-plane/wait.js';

export function staticPodsCurrentRole(): Role {
  return { name: 'static-pods-current', tags: ['control-plane'], tasks: [waitForControlPlane(true)], undo: lastGoodManifestsUndo() };
}
