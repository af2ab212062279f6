// A HostContext for plan tests, from a small inventory parsed by the real inventory loader.
import type { HostContext } from '../../../../src/orchestrator/engine/types.js';
import type { Vars } from '../../../../src/orchestrator/inventory/model.js';
import { parseInventory } from '../../../../src/kubernetes/inventory/load-inventory.js';

const INVENTORY = `cluster:
  name: lab
ssh:
  user: root
  keyFile: /test/id_ed25519
vars:
  motd: welcome
hosts:
  - name: node-1
    address: 10.231.0.11
    roles: [control-plane, etcd]
  - name: node-2
    address: 10.231.0.12
    roles: [worker]
    vars: { motd: "it's $(not run)" }
`;

export function hostContext(hostName: string, defaults: Vars = {}): HostContext {
  const result = parseInventory(INVENTORY, '/test/inventory.yaml', { env: {} });
  if (!result.ok) throw new Error(`test inventory does not load: ${JSON.stringify(result.errors)}`);
  const host = result.inventory.hosts.find((h) => h.name === hostName);
  if (!host) throw new Error(`no host ${hostName} in the test inventory`);
  return { host, inventory: result.inventory, vars: { ...defaults, ...host.vars }, shared: new Map(), factOf: () => undefined };
}
