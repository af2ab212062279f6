// For `kcluster config --host`: how kcluster reaches a host (its SSH endpoint, login, sudo and
// bastion, with what it inherited from `ssh:`) and the vars its roles read there, each with the
// value they take (the inventory's merge, else the role's default) and where it came from.
import type { HostSettings, Inventory } from '../src/orchestrator/inventory/model.js';
import { cgroupDriverOf, dockerPackagesOf, failSwapOnOf, ociRuntimeBinaryOf } from '../src/kubernetes/cluster/node-vars.js';

const endpoint = (e: { address: string; port: number; user: string }): string => `${e.user}@${e.address}:${e.port}`;
const login = (e: HostSettings['ssh']): string =>
  e.keyFile !== undefined
    ? `key ${e.keyFile}${e.keyPassphraseEnv ? ` (passphrase in $${e.keyPassphraseEnv})` : ''}`
    : e.agent
      ? 'the ssh-agent'
      : e.passwordEnv
        ? `password in $${e.passwordEnv}`
        : 'none set';

/** Comment lines: the host's access and its vars (set ones as set, defaults marked). */
export function hostAccessLines(inventory: Inventory, name: string): string[] {
  const host = inventory.hosts.find((h) => h.name === name);
  if (host === undefined) throw new Error(`no host ${name} in ${inventory.file}`);
  const runtime = inventory.cluster.containerRuntime;
  const ctx = { host, vars: host.vars };
  const shown: Record<string, unknown> = {
    cgroupDriver: cgroupDriverOf(ctx),
    failSwapOn: failSwapOnOf(ctx),
    ociRuntimeBinary: ociRuntimeBinaryOf(ctx, runtime) ?? "(Docker's own)",
    ...(runtime === 'docker' ? { dockerPackages: dockerPackagesOf(ctx) } : {}),
  };
  const lines = [
    `## how kcluster reaches ${host.name} (${host.source})`,
    `ssh: ${endpoint(host.ssh)}, login with ${login(host.ssh)}; ${host.become.enabled ? `commands as root through ${host.become.method}${host.become.passwordEnv ? ` (password in $${host.become.passwordEnv})` : ''}` : `commands as ${host.ssh.user}`}`,
    ...(host.bastion ? [`through the bastion ${host.bastion.name}: ${endpoint(host.bastion)}, login with ${login(host.bastion)}`] : []),
    `roles: ${host.roles.join(', ')}`,
    '',
    `## the vars its roles read (the inventory's, else the role's default)`,
  ];
  for (const [name, value] of Object.entries(shown)) lines.push(`${name}: ${JSON.stringify(value)}${host.vars[name] === undefined ? '  # default' : ''}`);
  for (const [name, value] of Object.entries(host.vars)) if (!(name in shown)) lines.push(`${name}: ${JSON.stringify(value)}`);
  return lines;
}
