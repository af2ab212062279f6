// The containerd role: containerd, its shim and runc from the artifacts, config.toml for
// Kubernetes (CRI, cgroup driver, sandbox image, CNI paths, OCI runtime binary), the systemd
// unit, crictl's config, and the service running. containerd restarts only when its binary,
// unit or config changed. See README.md beside this file.
import { join } from 'node:path';
import type { ClusterInputs } from '../../src/kubernetes/cluster/cluster-inputs.js';
import { imageReference } from '../../src/kubernetes/cluster/cluster-inputs.js';
import { kernelPrerequisiteTasks } from '../../src/kubernetes/cluster/kernel-prerequisites.js';
import type { HostContext, Role } from '../../src/orchestrator/engine/types.js';
import { execChecked } from '../../src/orchestrator/ssh/connection.js';
import { sh } from '../../src/orchestrator/ssh/quote.js';
import { systemdService } from '../../src/orchestrator/tasks/systemd-service.js';
import { templateFile } from '../../src/orchestrator/tasks/template-file.js';
import { createTemplateRenderer } from '../../src/orchestrator/templates/render.js';
import { packageRoot } from '../../src/orchestrator/util/package-root.js';
import { binaryTasks } from '../artifacts/index.js';
import { registryHostsTasks } from './registry-hosts.js';
import { proxyDropInTask } from '../../src/kubernetes/cluster/proxy-environment.js';
import { cgroupDriverOf, ociRuntimeBinaryOf } from '../../src/kubernetes/cluster/node-vars.js';

export const RESTART_CONTAINERD = 'restart containerd';
const templateDir = join(packageRoot(), 'roles', 'containerd', 'templates');

export function containerdRole(inputs: ClusterInputs): Role {
  const renderer = createTemplateRenderer();
  const sandboxImage = imageReference(inputs, 'pause');
  const data = (ctx: HostContext) => ({
    cgroupDriver: cgroupDriverOf(ctx),
    systemdCgroup: cgroupDriverOf(ctx) === 'systemd' ? 'true' : 'false',
    sandboxImage,
    ociRuntimeBinary: ociRuntimeBinaryOf(ctx, 'containerd'),
  });
  const file = (name: string, path: string, notify: readonly string[] = [], invalidates: readonly string[] = []) =>
    templateFile({ path, template: join(templateDir, name), data, mode: 0o644, renderer, notify, invalidates });
  return {
    name: 'containerd',
    templateDir,
    tags: ['containerd', 'runtime'],
    tasks: [
      ...kernelPrerequisiteTasks(['containerd', 'runtime', 'kernel']),
      ...binaryTasks(inputs, (a) => a.component === 'containerd' || a.component === 'runc', [RESTART_CONTAINERD]),
      file('config.toml.hbs', '/etc/containerd/config.toml', [RESTART_CONTAINERD]),
      file('containerd.service.hbs', '/etc/systemd/system/containerd.service', [RESTART_CONTAINERD], ['systemd:*']),
      proxyDropInTask(inputs.inventory, 'containerd.service', [RESTART_CONTAINERD], ['containerd', 'proxy']),
      file('crictl.yaml.hbs', '/etc/crictl.yaml'),
      ...registryHostsTasks(inputs),
      systemdService({ name: 'containerd.service', enabled: true, state: 'started' }),
    ],
    handlers: [
      {
        name: RESTART_CONTAINERD,
        run: async (ctx) => {
          // Running containers survive: the shims keep them (KillMode=process).
          await execChecked(
            ctx.connection,
            sh`systemctl daemon-reload && systemctl restart containerd.service && for i in $(seq 1 50); do ctr version >/dev/null 2>&1 && exit 0; sleep 0.2; done; echo "containerd did not answer within 10 s after the restart" >&2; journalctl -u containerd --no-pager -n 20 >&2; exit 1`,
            { become: true, label: RESTART_CONTAINERD },
          );
        },
      },
    ],
  };
}
