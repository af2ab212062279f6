// The user's workload the soak keeps on the cluster throughout: a 2-replica web Deployment
// behind NodePort 30080 (polled during every step), a bare pod bound to the host that is never
// removed, and a Job whose pod runs for ever. They tolerate the control-plane taint, so removing
// the last worker leaves them somewhere to run, and they carry the default service-account
// token (and with it the cluster CA), so CA rotations must deal with each kind.

import { webDeploymentBehindNodePort } from '../e2e/support/e2e-support.js';

/** The NodePort webDeploymentBehindNodePort serves on. */
export const WEB_NODE_PORT = 30080;

const tolerations = '[{ key: node-role.kubernetes.io/control-plane, operator: Exists, effect: NoSchedule }]';

export function soakWorkloadYaml(image: string, barePodNode: string): string {
  return `${webDeploymentBehindNodePort(image, tolerations)}
---
apiVersion: v1
kind: Pod
metadata: { name: soak-bare, namespace: default }
spec:
  nodeName: ${barePodNode}
  terminationGracePeriodSeconds: 1
  containers: [{ name: sleep, image: ${image}, imagePullPolicy: Never, command: [/bin/busybox, sleep, "2147483647"] }]
---
apiVersion: batch/v1
kind: Job
metadata: { name: soak-job, namespace: default }
spec:
  backoffLimit: 100
  template:
    spec:
      restartPolicy: OnFailure
      terminationGracePeriodSeconds: 1
      tolerations: ${tolerations}
      containers: [{ name: sleep, image: ${image}, imagePullPolicy: Never, command: [/bin/busybox, sleep, "2147483647"] }]
`;
}
