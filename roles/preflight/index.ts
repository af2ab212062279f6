// The preflight role: kubeadm's and k0sctl's checks, before anything changes on any host.
// Every check is one task that reads facts and plans "nothing to do" (with what it found) or
// fails with how to fix it; `--ignore-preflight NAME,...` turns a failing check into a skip.
// Two roles: `preflightRole` checks each host; `identityRole` (a later play) compares the
// hosts with each other. See README.md beside this file.
import type { ClusterInputs } from '../../src/kubernetes/cluster/cluster-inputs.js';
import { noChange } from '../../src/orchestrator/engine/change.js';
import type { Change } from '../../src/orchestrator/engine/change.js';
import type { FactValues } from '../../src/orchestrator/engine/fact.js';
import type { AnyTask, HostContext, Role, Task } from '../../src/orchestrator/engine/types.js';
import { hostFacts } from '../../src/orchestrator/facts/host-facts.js';
import { preflightFacts } from '../../src/kubernetes/facts/preflight-facts.js';
import { routeTo } from '../../src/orchestrator/facts/route-to.js';
import { checkOutcome, duplicateIdentities, PREFLIGHT_CHECKS, type HostIdentity } from './checks.js';
import { failSwapOnOf } from '../../src/kubernetes/cluster/node-vars.js';
import { virtualIpCheckTask } from './virtual-ip.js';
import { dualStackCheckTask } from './dual-stack.js';
import { dockerPackagesCheckTask } from './docker-packages.js';
import { isDualStack } from '../../src/kubernetes/cluster/dual-stack.js';

const VIRTUAL_INTERFACES = /^(lo|veth.*|cni.*|flannel.*|docker.*|kube-.*|cali.*|vxlan.*|tunl.*)$/;

/** A host's identity from the facts the first preflight play gathered on it. */
export function identityOf(
  host: string,
  facts: { host: FactValues<PreflightFactMap>['host']; preflight: FactValues<PreflightFactMap>['preflight'] },
): HostIdentity {
  const macs = Object.entries(facts.preflight.macs)
    .filter(([iface]) => !VIRTUAL_INTERFACES.test(iface))
    .map(([, mac]) => mac);
  return { host, hostname: facts.host.hostname, machineId: facts.host.machineId, macs };
}

const preflightFactMap = (serviceIp: string) => ({ host: hostFacts, preflight: preflightFacts, serviceRoute: routeTo(serviceIp) });
type PreflightFactMap = ReturnType<typeof preflightFactMap>;

/** A check reads the host's facts and plans nothing, or fails: apply never runs. */
function checkTask(
  name: string,
  facts: PreflightFactMap,
  plan: (facts: FactValues<PreflightFactMap>, ctx: HostContext) => Change<null>,
): Task<PreflightFactMap, null> {
  return { name, tags: ['preflight'], facts: () => facts, plan, apply: async () => {} };
}

export function preflightRole(inputs: ClusterInputs): Role {
  const serviceIp = inputs.topology.kubernetesServiceIp;
  const factMap = preflightFactMap(serviceIp);
  const tasks: AnyTask[] = PREFLIGHT_CHECKS.map((check) =>
    checkTask(`preflight ${check.name}`, factMap, (facts, ctx) =>
      checkOutcome(
        check.name,
        check.run({
          host: ctx.host,
          inventory: ctx.inventory,
          facts: facts.host,
          preflight: facts.preflight,
          serviceRoute: facts.serviceRoute,
          serviceIp,
          controllerEpochSeconds: inputs.controllerEpochSeconds,
          failSwapOn: failSwapOnOf(ctx),
        }),
        inputs.ignorePreflight,
      ),
    ),
  );
  const { host: vip, virtualIp } = inputs.inventory.cluster.apiEndpoint;
  if (vip !== undefined && virtualIp !== undefined)
    tasks.push(
      virtualIpCheckTask(
        vip,
        virtualIp,
        inputs.ignorePreflight,
        inputs.topology.controlPlanes.map((h) => h.name),
      ),
    );
  if (isDualStack(inputs.inventory.cluster)) tasks.push(dualStackCheckTask(inputs.ignorePreflight));
  if (inputs.inventory.cluster.containerRuntime === 'docker') tasks.push(dockerPackagesCheckTask(inputs.ignorePreflight));
  // Gathered here, compared across hosts by identityRole in the next play (ctx.factOf).
  tasks.push(checkTask('preflight identity', factMap, (facts) => noChange(`hostname ${facts.host.hostname}, machine-id ${facts.host.machineId.slice(0, 8)}…`)));
  return { name: 'preflight', tags: ['preflight'], tasks };
}

/** Runs in a play after preflightRole's: reads what every host gathered there, changes nothing. */
export function identityRole(inputs: ClusterInputs): Role {
  return {
    name: 'preflight-identity',
    tags: ['preflight'],
    tasks: [
      {
        name: 'preflight unique-identity',
        tags: ['preflight'],
        facts: () => ({}),
        plan: (_facts, ctx) => {
          const identities = ctx.inventory.hosts.flatMap((h) => {
            const host = ctx.factOf(h.name, hostFacts);
            const preflight = ctx.factOf(h.name, preflightFacts);
            return host && preflight ? [identityOf(h.name, { host, preflight })] : [];
          });
          const problems = duplicateIdentities(identities, ctx.host.name);
          return checkOutcome(
            'unique-identity',
            problems.length === 0
              ? { ok: true, note: `hostname, machine-id and MACs unique across ${identities.length} hosts` }
              : { ok: false, problem: problems.join('; ') },
            inputs.ignorePreflight,
          );
        },
        apply: async () => {},
      },
    ],
  };
}
