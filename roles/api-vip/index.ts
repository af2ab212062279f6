// The api-vip role (cluster.apiEndpoint.virtualIp): every control plane runs keepalived, which
// holds the API's address (cluster.apiEndpoint.host) on one of them at a time and moves it
// when that one's API server stops answering /readyz or the host goes. See README.md beside
// this file.
import { join } from 'node:path';
import type { ClusterInputs } from '../../src/kubernetes/cluster/cluster-inputs.js';
import { nodeAddress } from '../../src/kubernetes/cluster/topology.js';
import type { AnyTask, Role } from '../../src/orchestrator/engine/types.js';
import { addressInterface } from '../../src/orchestrator/facts/address-interface.js';
import { execChecked } from '../../src/orchestrator/ssh/connection.js';
import { sh } from '../../src/orchestrator/ssh/quote.js';
import { factDerivedFile } from '../../src/orchestrator/tasks/fact-derived-file.js';
import { systemdService } from '../../src/orchestrator/tasks/systemd-service.js';
import { templateFile } from '../../src/orchestrator/tasks/template-file.js';
import { createTemplateRenderer } from '../../src/orchestrator/templates/render.js';
import { packageRoot } from '../../src/orchestrator/util/package-root.js';
import { binaryTasks } from '../artifacts/index.js';

export const KEEPALIVED_CONFIG = '/etc/kcluster/keepalived.conf';
export const KEEPALIVED_UNIT = 'kcluster-keepalived.service';
const RESTART = `restart ${KEEPALIVED_UNIT}`;
const RELOAD = `reload ${KEEPALIVED_UNIT}`;
const templateDir = join(packageRoot(), 'roles', 'api-vip', 'templates');

/** The components this role installs (the artifacts role leaves them to it). */
export const API_VIP_COMPONENTS: ReadonlySet<string> = new Set(['keepalived']);

/** 200 for the first control plane in the inventory, one less for each after it (VRRP's range is 1-254). */
export const vrrpPriority = (index: number): number => Math.max(1, 200 - index);

/** keepalived's settings: the interface comes from the host (the one holding its inventory address). */
function configTask(inputs: ClusterInputs, vip: string, routerId: number): AnyTask {
  const render = createTemplateRenderer().compile(join(templateDir, 'keepalived.conf.hbs'));
  return factDerivedFile({
    path: KEEPALIVED_CONFIG,
    mode: 0o644,
    notify: [RELOAD],
    facts: (ctx) => ({ iface: addressInterface(nodeAddress(ctx.host)) }),
    content: (facts, ctx) => {
      const address = nodeAddress(ctx.host);
      const dev = facts.iface.dev;
      if (dev === undefined)
        throw new Error(
          `no interface of ${ctx.host.name} has its inventory address ${address}, so keepalived has no interface to hold ${vip} on: give the host that address, or correct its address in the inventory`,
        );
      const controlPlanes = inputs.topology.controlPlanes;
      const peers = controlPlanes.filter((h) => h.name !== ctx.host.name).map(nodeAddress);
      const priority = vrrpPriority(controlPlanes.findIndex((h) => h.name === ctx.host.name));
      return render({ hostName: ctx.host.name, interface: dev, address, peers, vip, routerId, priority, apiPort: inputs.topology.apiPort });
    },
  });
}

export function apiVipRole(inputs: ClusterInputs): Role {
  const { host: vip, virtualIp } = inputs.inventory.cluster.apiEndpoint;
  if (vip === undefined || virtualIp === undefined) return { name: 'api-vip', tasks: [] };
  const tasks: AnyTask[] = [
    ...binaryTasks(inputs, (a) => API_VIP_COMPONENTS.has(a.component), [RESTART]),
    // keepalived's health check runs it (kcluster-apiproxy -check); a new one needs no restart.
    ...binaryTasks(inputs, (a) => a.component === 'kcluster-apiproxy'),
    configTask(inputs, vip, virtualIp.routerId),
    templateFile({
      path: `/etc/systemd/system/${KEEPALIVED_UNIT}`,
      template: join(templateDir, 'kcluster-keepalived.service.hbs'),
      mode: 0o644,
      renderer: createTemplateRenderer(),
      data: { vip },
      notify: [RESTART],
      invalidates: ['systemd:*'],
    }),
    systemdService({ name: KEEPALIVED_UNIT, enabled: true, state: 'started' }),
  ];
  return {
    name: 'api-vip',
    templateDir,
    tags: ['api-vip'],
    tasks,
    handlers: [
      {
        name: RESTART,
        run: async (ctx) =>
          void (await execChecked(ctx.connection, sh`systemctl daemon-reload && systemctl restart ${KEEPALIVED_UNIT}`, { become: true, label: RESTART })),
      },
      {
        // A changed peer list (a control plane added or removed) is read again without giving the address up.
        name: RELOAD,
        run: async (ctx) => void (await execChecked(ctx.connection, sh`systemctl reload-or-restart ${KEEPALIVED_UNIT}`, { become: true, label: RELOAD })),
      },
    ],
  };
}
