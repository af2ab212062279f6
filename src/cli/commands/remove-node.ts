// `kcluster remove-node -i FILE NAME [--yes] [--drain-timeout S] [--unreachable] [--allow-even]
// [--check] [-o json]`: take one node out of a running cluster, as a playbook
// (playbooks/remove-node.ts): --check shows every step it would take, -o json streams the
// events, the debug log records every command, Ctrl-C stops it between steps and a rerun goes
// on. Refused before anything runs: a host not in the inventory (unless --unreachable), the only
// control plane, no other control plane answering; the quorum check (and the even-count check)
// runs on a control plane that stays. The inventory is the user's: the command ends by saying
// to remove the host from it, and with --unreachable what was left on the dead host.
import { Option, type Command } from 'commander';
import type { CliContext } from '../context.js';
import { refusalUnlessConfirmed } from '../confirm.js';
import { runPlaybookCommand, type PlaybookCommandOptions } from '../run-playbook-command.js';
import { InputError } from '../../orchestrator/engine/input-error.js';
import { removeNodePlaybook } from '../../../playbooks/remove-node.js';

interface RemoveNodeOptions extends PlaybookCommandOptions {
  readonly yes?: boolean;
  readonly drainTimeout: string;
  readonly unreachable?: boolean;
  readonly allowEven?: boolean;
}

/** What --unreachable leaves on the host, for the operator to deal with if it ever comes back. */
const leftOnTheHost = (name: string, inInventory: boolean): string =>
  `${name}'s host was not reset (${inInventory ? 'it did not answer' : 'it is no host of the inventory'}): if it ever comes back, it still holds the cluster's certificates and keys (/etc/kubernetes), ` +
  `its etcd data (/var/lib/etcd) and a kubelet whose client certificate is valid until it expires and would register the Node again: ` +
  `keep it off the network and wipe its disk, or run kcluster reset -i INVENTORY --limit ${name} once it answers`;

export function registerRemoveNodeCommand(program: Command, cli: CliContext): void {
  program
    .command('remove-node')
    .description('drain a node, remove its etcd member, reset the host and delete the Node (asks first)')
    .argument('<name>', 'the node (an inventory host name)')
    .requiredOption('-i, --inventory <file>', 'inventory file (YAML)')
    .option('-y, --yes', 'do not ask for confirmation')
    .option('--drain-timeout <seconds>', 'how long draining may take', '300')
    .option('--unreachable', 'the host is gone or cannot be reached: remove its etcd member and its Node through another control plane, without drain or reset')
    .option(
      '--allow-even',
      'remove a healthy control plane even if etcd is left with an even number of members (which survives no more failures than one fewer)',
    )
    .option('-C, --check', 'plan only: report every step it would take, change nothing')
    .option('-D, --diff', 'show unified diffs of file changes')
    .addOption(new Option('-o, --output <format>', 'text (live tree on a terminal, lines otherwise) or json (NDJSON events)').choices(['text', 'json']))
    .action(async (name: string, options: RemoveNodeOptions) => {
      const log = (line: string): void => void cli.stderr.write(`kcluster: ${line}\n`);
      const started = Date.now();
      let controlPlane = false;
      let inInventory = true;
      const summary = await runPlaybookCommand(
        cli,
        async (inventory) => {
          const drainSeconds = Number(options.drainTimeout);
          if (!Number.isInteger(drainSeconds) || drainSeconds < 10)
            throw new InputError(`--drain-timeout must be a number of seconds, at least 10 (got "${options.drainTimeout}")`);
          const plan = await removeNodePlaybook(inventory, name, {
            drainTimeoutMs: drainSeconds * 1000,
            ...(options.unreachable ? { unreachable: true } : {}),
            ...(options.allowEven ? { allowEven: true } : {}),
            say: log,
          });
          controlPlane = plan.controlPlane;
          inInventory = inventory.hosts.some((h) => h.name === name);
          log(`remove-node works through ${plan.operator.name}`);
          if (!options.check) {
            const what = options.unreachable
              ? `remove-node removes ${name}'s etcd member (if any), taints its Node out-of-service and force-deletes its pods (right only if the host is really down), then deletes the Node; its host is not touched`
              : `remove-node drains ${name}, ${controlPlane ? 'removes its etcd member, ' : ''}resets the host (everything kcluster installed, its pods and data) and deletes the Node`;
            const refusal = await refusalUnlessConfirmed(cli, what, options.yes);
            if (refusal) throw new InputError(refusal);
          }
          return { playbook: plan.playbook };
        },
        options,
      );
      if (!summary || options.check || summary.exitCode !== 0) {
        if (summary && !options.check && summary.exitCode !== 0 && !summary.interrupted) {
          log(
            `${name} was not removed completely (see above); run the same command again: it goes on where it stopped${options.unreachable ? '' : ` (if ${name}'s host is gone for good, add --unreachable)`}`,
          );
        }
        return;
      }
      log(
        `${name}: removed from the cluster in ${((Date.now() - started) / 1000).toFixed(1)} s; ${inInventory ? `now delete it from ${options.inventory} (the next apply would install it again), then run` : `it is no host of ${options.inventory}; run`} kcluster apply -i ${options.inventory} so the other nodes follow (${controlPlane ? 'they stop listing it' : 'CoreDNS replicas and the control-plane taint depend on the nodes there are'}; --check --diff shows what changes)`,
      );
      if (options.unreachable) log(leftOnTheHost(name, inInventory));
    });
}
