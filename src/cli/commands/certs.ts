// `kcluster certs check|renew`. check: see certs-check.ts. renew: after a confirmation (--yes,
// or "yes" typed on a terminal), replace every leaf certificate and key in <stateDir>/pki now
// (the three CAs and the service-account key pair are never touched), then distribute them:
// control planes one at a time, each back and Ready before the next, then the other nodes
// (playbooks/certs-renew.ts). With --check nothing is renewed: it shows what distributing
// the state folder's current certificates would change.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Option, type Command } from 'commander';
import { preparationIo, type CliContext } from '../context.js';
import { refusalUnlessConfirmed } from '../confirm.js';
import { addPlaybookOptions } from '../playbook-options.js';
import { runPlaybookCommand, type PlaybookCommandOptions } from '../run-playbook-command.js';
import { certsCheck, type CertsCheckOptions } from './certs-check.js';
import { clusterInputsFor, refuseUnsupportedChanges } from '../../../playbooks/cluster-inputs.js';
import { topologyOrInputError } from '../../kubernetes/cluster/installed-cluster.js';
import type { Topology } from '../../kubernetes/cluster/topology.js';
import { InputError } from '../../orchestrator/engine/input-error.js';
import { limitHosts } from '../../orchestrator/engine/play-hosts.js';
import type { Inventory } from '../../orchestrator/inventory/model.js';
import { certsRenewPlaybook } from '../../../playbooks/certs-renew.js';
import { registerRotateCaCommand } from './certs-rotate-ca.js';

interface RenewOptions extends PlaybookCommandOptions {
  readonly yes?: boolean;
}

/** Refuse before anything changes: no cluster PKI (apply never ran), or an invalid topology. */
function renewableTopology(inventory: Inventory): Topology {
  const pkiDir = join(inventory.stateDir, 'pki');
  if (!existsSync(join(pkiDir, 'ca.crt'))) {
    throw new InputError(
      `${inventory.file}: no cluster PKI in ${pkiDir}: certs renew renews the certificates of a cluster kcluster apply installed (run kcluster apply -i ${inventory.file} first)`,
    );
  }
  return topologyOrInputError(inventory);
}

/** The kubelet and control-plane roles install the inventory's version and control planes: never a silent upgrade or member add. */
async function refuseUnsupported(inventory: Inventory, say: (line: string) => void): Promise<void> {
  try {
    await refuseUnsupportedChanges(inventory, { say });
  } catch (error) {
    if (error instanceof InputError) throw new InputError(`certs renew refused (it installs what the inventory says, like apply): ${error.message}`);
    throw error;
  }
}

async function certsRenew(cli: CliContext, options: RenewOptions): Promise<void> {
  const log = (line: string): void => void cli.stderr.write(`kcluster: ${line}\n`);
  let file = options.inventory;
  const summary = await runPlaybookCommand(
    cli,
    async (inventory, mode) => {
      file = inventory.file;
      const topology = renewableTopology(inventory);
      if (options.check && !mode.probe) {
        log(`--check: the state folder's certificates are not renewed; this shows what installing the current ones would change`);
      } else if (!mode.planOnly) {
        const selected = limitHosts(
          inventory,
          options.limit
            ?.split(',')
            .map((s) => s.trim())
            .filter(Boolean),
        );
        const names = (hosts: Topology['workers']): string =>
          hosts
            .filter((h) => selected.has(h.name))
            .map((h) => h.name)
            .join(', ') || 'none';
        const what =
          `certs renew replaces every leaf certificate and key in ${join(inventory.stateDir, 'pki')} (the CAs and the service-account keys stay) and restarts ` +
          `etcd, the API server, the controller-manager, the scheduler and the kubelet on the control planes one at a time (${names(topology.controlPlanes)}), ` +
          `then the kubelet on the other nodes (${names(topology.workers)})`;
        const refusal = await refusalUnlessConfirmed(cli, what, options.yes);
        if (refusal) throw new InputError(refusal);
      }
      if (!mode.probe) await refuseUnsupported(inventory, log);
      const inputs = await clusterInputsFor(inventory, preparationIo(cli, mode.probe), new Set(), {
        registryCredentials: false,
        planOnly: mode.planOnly,
        readOnly: mode.probe,
        ...(mode.planOnly ? {} : { renewLeaves: true }),
      });
      return { playbook: certsRenewPlaybook(inputs) };
    },
    options,
  );
  if (!summary || options.check) return;
  if (summary.exitCode !== 0) {
    log(
      `the state folder holds the renewed certificates; hosts that failed or were not reached keep the previous ones (valid until their end date): fix the cause, then run kcluster apply -i ${file} to finish (certs renew again would renew everything once more)`,
    );
  } else {
    log(
      `renewed and installed. Kubeconfigs written earlier by kcluster kubeconfig hold the previous admin certificate: write them again (kcluster kubeconfig -i ${file} --file PATH)`,
    );
  }
}

export function registerCertsCommand(program: Command, cli: CliContext): void {
  const certs = program.command('certs').description('certificates of the cluster: expiry on the controller and every host, renewal, CA rotation');
  certs
    .command('check')
    .description('expiry of every certificate in the state folder and on every host (one command per host), soonest first')
    .requiredOption('-i, --inventory <file>', 'inventory file (YAML)')
    .addOption(new Option('-o, --output <format>', 'output format').choices(['text', 'json']).default('text'))
    .option('--warn-days <days>', 'warn on stderr about certificates that expire within this many days', '30')
    .action((options: CertsCheckOptions) => certsCheck(cli, options));
  const renew = certs
    .command('renew')
    .description('renew every leaf certificate now (not the CAs) and install them: control planes one at a time, then the other nodes (asks first)');
  addPlaybookOptions(renew).option('-y, --yes', 'do not ask for confirmation');
  renew.action((options: RenewOptions) => certsRenew(cli, options));
  registerRotateCaCommand(certs, cli);
}
