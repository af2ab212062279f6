// `kcluster remove-node -i FILE NAME [--yes] [--drain-timeout S]`: take one node out of a
// running cluster. Checks first (nothing changes if one fails): the host is in the inventory;
// for a control plane, it is not the last one and the etcd members left keep a healthy
// majority. Then: cordon and drain (PodDisruptionBudgets respected), remove its etcd member
// (control planes), reset the host (roles/reset), delete the Node object. The inventory is
// the user's: the command ends by saying to remove the host from it.
import type { Command } from 'commander';
import type { CliContext } from '../context.js';
import { withClusterSession, type ClusterSession } from '../cluster-session.js';
import { refusalUnlessConfirmed } from '../confirm.js';
import { runPlaybookCommand } from '../run-playbook-command.js';
import { etcdMembers, quorumProblem, removeEtcdMember, type EtcdMember } from '../../cluster/etcd-members.js';
import { nodeAddress } from '../../cluster/topology.js';
import { InputError } from '../../engine/input-error.js';
import { ApiError } from '../../kube/api-client.js';
import { cordon, drain } from '../../kube/drain.js';
import type { Connection } from '../../ssh/connection.js';
import { resetPlaybook } from '../../../playbooks/reset.js';

interface RemoveNodeOptions {
  readonly inventory: string;
  readonly yes?: boolean;
  readonly drainTimeout: string;
  readonly output?: string;
}

/** The etcd view from the first other control plane that answers. */
async function etcdFromAnotherControlPlane(session: ClusterSession, name: string): Promise<{ connection: Connection; members: EtcdMember[] }> {
  const problems: string[] = [];
  for (const cp of session.topology.controlPlanes.filter((h) => h.name !== name)) {
    try {
      const connection = await session.connect(cp.name);
      return { connection, members: await etcdMembers(connection) };
    } catch (error) {
      problems.push(`${cp.name}: ${(error as Error).message.split('\n')[0]}`);
    }
  }
  throw new InputError(`no other control plane answers to check etcd before removing ${name}: ${problems.join('; ')}; nothing was changed`);
}

export function registerRemoveNodeCommand(program: Command, cli: CliContext): void {
  program
    .command('remove-node')
    .description('drain a node, remove its etcd member, reset the host and delete the Node (asks first)')
    .argument('<name>', 'the node (an inventory host name)')
    .requiredOption('-i, --inventory <file>', 'inventory file (YAML)')
    .option('-y, --yes', 'do not ask for confirmation')
    .option('--drain-timeout <seconds>', 'how long draining may take', '300')
    .option('-o, --output <format>', 'text or json, for the reset step')
    .action(async (name: string, options: RemoveNodeOptions) => {
      const log = (line: string): void => void cli.stderr.write(`kcluster: ${line}\n`);
      await withClusterSession(cli, options.inventory, async (session) => {
        const host = session.host(name);
        const drainSeconds = Number(options.drainTimeout);
        if (!Number.isInteger(drainSeconds) || drainSeconds < 10) throw new InputError(`--drain-timeout must be a number of seconds, at least 10 (got "${options.drainTimeout}")`);
        const controlPlane = host.roles.includes('control-plane');
        let etcd: { connection: Connection; members: EtcdMember[] } | undefined;
        if (controlPlane) {
          if (session.topology.controlPlanes.length === 1) throw new InputError(`${name} is the only control plane: removing it destroys the cluster; use kcluster reset for that`);
          etcd = await etcdFromAnotherControlPlane(session, name);
          const problem = quorumProblem(etcd.members, name);
          if (problem) throw new InputError(`remove-node ${name} refused: ${problem}; nothing was changed`);
        }
        // The API through a control plane that stays.
        const other = session.topology.controlPlanes.find((h) => h.name !== name)!;
        const adminHost = new URL(session.topology.adminServerUrl).hostname;
        const api = session.api(adminHost === nodeAddress(host) ? `https://${nodeAddress(other)}:${session.topology.apiPort}` : undefined);

        const refusal = await refusalUnlessConfirmed(cli, `remove-node drains ${name}, ${controlPlane ? 'removes its etcd member, ' : ''}resets the host (everything kcluster installed, its pods and data) and deletes the Node`, options.yes);
        if (refusal) throw new InputError(refusal);

        const started = Date.now();
        const registered = await api.get(`/api/v1/nodes/${encodeURIComponent(name)}`).then(() => true, (e: unknown) => (e instanceof ApiError && e.status === 404 ? false : Promise.reject(e)));
        if (registered) {
          await cordon(api, name);
          await drain(api, name, drainSeconds * 1000, log);
          log(`${name}: cordoned and drained`);
        } else {
          log(`${name}: no Node object in the cluster: nothing to drain`);
        }
        if (etcd) {
          const member = etcd.members.find((m) => m.name === name);
          if (member) {
            await removeEtcdMember(etcd.connection, member.id);
            log(`${name}: etcd member ${member.id} removed (${etcd.members.length - 1} members left)`);
          }
        }
        const reset = await runPlaybookCommand(cli, resetPlaybook(), { inventory: options.inventory, limit: name, ...(options.output ? { output: options.output } : {}) });
        if (!reset || reset.exitCode !== 0) throw new Error(`${name}: the reset did not complete (see above); the node is drained${etcd ? ' and out of etcd' : ''}; run kcluster reset -i ${options.inventory} --limit ${name} once the host is reachable`);
        if (registered) {
          await api.delete(`/api/v1/nodes/${encodeURIComponent(name)}`).catch((e: unknown) => (e instanceof ApiError && e.status === 404 ? undefined : Promise.reject(e)));
        }
        log(`${name}: removed from the cluster in ${((Date.now() - started) / 1000).toFixed(1)} s; now delete it from ${session.inventory.file} (the next apply would install it again)${controlPlane ? ', then run kcluster apply so the other nodes stop listing it' : ''}`);
      });
    });
}
