// The api-proxy role: with several control planes and no load balancer named in the
// inventory, every node runs kcluster-apiproxy on 127.0.0.1:6444, a TCP balancer across the
// control planes' API servers (TLS passes through untouched); the kubelet and kube-proxy talk
// to it, so the node keeps working when a control plane is down. See README.md beside this file.
import { join } from 'node:path';
import type { ClusterInputs } from '../../src/kubernetes/cluster/cluster-inputs.js';
import { LOCAL_PROXY_PORT, nodeAddress } from '../../src/kubernetes/cluster/topology.js';
import type { Role } from '../../src/orchestrator/engine/types.js';
import { execChecked } from '../../src/orchestrator/ssh/connection.js';
import { sh } from '../../src/orchestrator/ssh/quote.js';
import { systemdService } from '../../src/orchestrator/tasks/systemd-service.js';
import { templateFile } from '../../src/orchestrator/tasks/template-file.js';
import { createTemplateRenderer } from '../../src/orchestrator/templates/render.js';
import { packageRoot } from '../../src/orchestrator/util/package-root.js';
import { binaryTasks } from '../artifacts/index.js';

const RESTART = 'restart kcluster-apiproxy';
const templateDir = join(packageRoot(), 'roles', 'api-proxy', 'templates');

export function apiProxyRole(inputs: ClusterInputs): Role {
  if (!inputs.topology.localProxy) return { name: 'api-proxy', tasks: [] };
  const backends = inputs.topology.controlPlanes.map((h) => `${nodeAddress(h)}:${inputs.topology.apiPort}`);
  return {
    name: 'api-proxy',
    templateDir,
    tags: ['api-proxy'],
    tasks: [
      ...binaryTasks(inputs, (a) => a.component === 'kcluster-apiproxy', [RESTART]),
      templateFile({
        path: '/etc/systemd/system/kcluster-apiproxy.service',
        template: join(templateDir, 'kcluster-apiproxy.service.hbs'),
        mode: 0o644,
        renderer: createTemplateRenderer(),
        data: { port: LOCAL_PROXY_PORT, backends },
        notify: [RESTART],
        invalidates: ['systemd:*'],
      }),
      systemdService({ name: 'kcluster-apiproxy.service', enabled: true, state: 'started' }),
    ],
    handlers: [
      {
        name: RESTART,
        run: async (ctx) =>
          void (await execChecked(ctx.connection, sh`systemctl daemon-reload && systemctl restart kcluster-apiproxy.service`, {
            become: true,
            label: RESTART,
          })),
      },
    ],
  };
}
