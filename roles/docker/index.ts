// The docker role, the runtime option `containerRuntime: docker`: Docker Engine from the OS
// packages, configured for Kubernetes before its first start (cgroup driver, log rotation, no
// docker0 bridge and no iptables rules of its own: pods get their network from CNI), and
// cri-dockerd from the artifacts as the kubelet's CRI endpoint. Restarts Docker only when
// daemon.json changed, cri-dockerd only when its binary or unit changed.
// See README.md beside this file.
import { join } from 'node:path';
import type { ClusterInputs } from '../../src/kubernetes/cluster/cluster-inputs.js';
import { imageReference } from '../../src/kubernetes/cluster/cluster-inputs.js';
import { kernelPrerequisiteTasks } from '../../src/kubernetes/cluster/kernel-prerequisites.js';
import type { HostContext, Role } from '../../src/orchestrator/engine/types.js';
import { execChecked } from '../../src/orchestrator/ssh/connection.js';
import { sh } from '../../src/orchestrator/ssh/quote.js';
import { packagePresent } from '../../src/orchestrator/tasks/package-present.js';
import { systemdService } from '../../src/orchestrator/tasks/systemd-service.js';
import { templateFile } from '../../src/orchestrator/tasks/template-file.js';
import { createTemplateRenderer } from '../../src/orchestrator/templates/render.js';
import { packageRoot } from '../../src/orchestrator/util/package-root.js';
import { binaryTasks } from '../artifacts/index.js';
import { cgroupDriverOf, dockerPackagesOf, ociRuntimeBinaryOf } from '../../src/kubernetes/cluster/node-vars.js';
import { dockerRegistrySettings, kubeletRegistryCredentials } from '../../src/kubernetes/cluster/registries.js';
import { managedFile } from '../../src/orchestrator/tasks/managed-file.js';
import { proxyDropInTask } from '../../src/kubernetes/cluster/proxy-environment.js';

const RESTART_DOCKER = 'restart docker';
const RESTART_CRI_DOCKERD = 'restart cri-dockerd';
const templateDir = join(packageRoot(), 'roles', 'docker', 'templates');

export function dockerRole(inputs: ClusterInputs): Role {
  const renderer = createTemplateRenderer();
  const sandboxImage = imageReference(inputs, 'pause');
  const registries = dockerRegistrySettings(inputs.inventory.cluster.registries);
  const registryJson = {
    registryMirrors: registries.mirrors.length > 0 ? JSON.stringify(registries.mirrors) : '',
    insecureRegistries: registries.insecure.length > 0 ? JSON.stringify(registries.insecure) : '',
  };
  const data = (ctx: HostContext) => ({
    cgroupDriver: cgroupDriverOf(ctx),
    ociRuntimeBinary: ociRuntimeBinaryOf(ctx, 'docker') ?? '',
    sandboxImage,
    ...registryJson,
  });
  const auth = inputs.registryAuth ?? {};
  const file = (name: string, path: string, notify: readonly string[] = [], invalidates: readonly string[] = []) =>
    templateFile({ path, template: join(templateDir, name), data, mode: 0o644, renderer, notify, invalidates });
  return {
    name: 'docker',
    templateDir,
    tags: ['docker', 'runtime'],
    tasks: [
      ...kernelPrerequisiteTasks(['docker', 'runtime', 'kernel']),
      // Before the package: its first start must already see this configuration.
      file('daemon.json.hbs', '/etc/docker/daemon.json', [RESTART_DOCKER]),
      packagePresent({ name: 'Docker Engine packages present', names: (ctx) => [...dockerPackagesOf(ctx)], install: true }),
      ...binaryTasks(inputs, (a) => a.component === 'cri-dockerd', [RESTART_CRI_DOCKERD]),
      file('cri-docker.service.hbs', '/etc/systemd/system/cri-docker.service', [RESTART_CRI_DOCKERD], ['systemd:*']),
      proxyDropInTask(inputs.inventory, 'docker.service', [RESTART_DOCKER], ['docker', 'proxy']),
      file('crictl.yaml.hbs', '/etc/crictl.yaml'),
      // The registries' credentials, which the kubelet hands to cri-dockerd with each pull.
      ...(Object.keys(auth).length > 0
        ? [
            managedFile({
              name: 'registry credentials for the kubelet',
              path: '/var/lib/kubelet/config.json',
              content: () => kubeletRegistryCredentials(auth),
              mode: 0o600,
              secret: true,
              tags: ['docker', 'registries'],
            }),
          ]
        : []),
      systemdService({ name: 'docker.service', enabled: true, state: 'started' }),
      systemdService({ name: 'cri-docker.service', enabled: true, state: 'started' }),
    ],
    handlers: [
      {
        name: RESTART_DOCKER,
        run: async (ctx) => {
          await execChecked(
            ctx.connection,
            sh`systemctl daemon-reload; systemctl reset-failed docker.service 2>/dev/null; systemctl restart docker.service && for i in $(seq 1 50); do docker info >/dev/null 2>&1 && exit 0; sleep 0.2; done; echo "docker did not answer within 10 s after the restart" >&2; journalctl -u docker --no-pager -n 20 >&2; exit 1`,
            { become: true, label: RESTART_DOCKER },
          );
        },
      },
      {
        name: RESTART_CRI_DOCKERD,
        run: async (ctx) => {
          await execChecked(ctx.connection, sh`systemctl daemon-reload && systemctl restart cri-docker.service`, { become: true, label: RESTART_CRI_DOCKERD });
        },
      },
    ],
  };
}
