// `kcluster secrets rotate-key -i FILE [--check] [--yes] [-o text|json]`: a new key encrypts
// Secrets at rest, the old one is dropped, and no Secret is unreadable at any moment (see
// playbooks/secrets-rotate-key.ts). The state folder keeps both keys until the last step is on
// every control plane; a rotation cut short goes on when run again. It rewrites every Secret,
// so it asks first, like every command that changes a running cluster's identity.
import { Option, type Command } from 'commander';
import { preparationIo, type CliContext } from '../context.js';
import { refusalUnlessConfirmed } from '../confirm.js';
import { loadInventoryOrReport } from '../load-inventory-or-report.js';
import { withStateLock } from '../lock-or-report.js';
import { runPlaybookCommand, type PlaybookCommandOptions } from '../run-playbook-command.js';
import { EncryptionKeyStore } from '../../kubernetes/secrets/encryption-keys.js';
import { rotationPlan, type RotationPlan } from '../../kubernetes/secrets/key-rotation.js';
import { requireInstalledPki } from '../../kubernetes/cluster/installed-cluster.js';
import { InputError } from '../../orchestrator/engine/input-error.js';
import { clusterInputsFor, refuseUnsupportedChanges } from '../../../playbooks/cluster-inputs.js';
import { rotateKeyPlaybook } from '../../../playbooks/secrets-rotate-key.js';

export function registerSecretsCommand(program: Command, cli: CliContext): void {
  const log = (line: string): void => void cli.stderr.write(`kcluster: ${line}\n`);
  program
    .command('secrets')
    .description('Secrets encrypted at rest')
    .command('rotate-key')
    .description('encrypt Secrets with a new key and drop the old one, the API servers one at a time (asks first)')
    .requiredOption('-i, --inventory <file>', 'inventory file (YAML)')
    .option('-C, --check', 'plan only: report every step it would take, change nothing')
    .option('-y, --yes', 'do not ask for confirmation')
    .addOption(new Option('-o, --output <format>', 'text (live tree on a terminal, lines otherwise) or json (NDJSON events)').choices(['text', 'json']))
    .action(async (options: PlaybookCommandOptions & { readonly yes?: boolean }) => {
      const loaded = await loadInventoryOrReport(cli, options.inventory);
      if (!loaded) return;
      // The run and the last record (the old key gone from the state folder) under one hold of the lock.
      await withStateLock(cli, loaded, () => rotateKey(options));
    });

  async function rotateKey(options: PlaybookCommandOptions & { readonly yes?: boolean }): Promise<void> {
    let store: EncryptionKeyStore | undefined;
    let rotation: RotationPlan | undefined;
    const summary = await runPlaybookCommand(
      cli,
      async (inventory) => {
        requireInstalledPki(inventory, 'secrets rotate-key');
        // Waits for an API server (one restarting after an interrupted rotation), then refuses naming why none answered.
        await refuseUnsupportedChanges(inventory, { say: log, requireRunning: 'secrets rotate-key' });
        store = new EncryptionKeyStore(inventory.stateDir);
        const current = await store.read();
        if (!current) throw new InputError(`${store.path}: no encryption key in the state folder: run kcluster apply first (it makes one)`);
        rotation = rotationPlan(current, new Date());
        if (!options.check) {
          const refusal = await refusalUnlessConfirmed(
            cli,
            `secrets rotate-key ${current.rotatingTo !== undefined ? 'goes on with the rotation' : 'rotates the Secrets encryption key'} to ${rotation.to.name}: every Secret is rewritten encrypted with it, the API servers restart one at a time, and ${rotation.from.name} is dropped from them and from ${store.path}`,
            options.yes,
          );
          if (refusal) throw new InputError(refusal);
        }
        if (current.rotatingTo !== undefined) log(`resuming the rotation to ${rotation.to.name}`);
        // Before any host sees the new key, the state folder has it (beside the old one).
        if (!options.check) await store.write(rotation.during);
        const inputs = await clusterInputsFor(inventory, preparationIo(cli), new Set(), { registryCredentials: false, planOnly: options.check === true });
        return { playbook: rotateKeyPlaybook(inputs, rotation) };
      },
      options,
    );
    if (!summary || options.check || !store || !rotation) return;
    if (summary.exitCode !== 0) {
      if (!summary.interrupted)
        log(
          `the rotation to ${rotation.to.name} did not finish (see above); every Secret stays readable, and the state folder keeps both keys: run the same command again to go on`,
        );
      return;
    }
    await store.write(rotation.done);
    log(`Secrets are encrypted with ${rotation.to.name}; ${rotation.from.name} is gone from every API server and from ${store.path}`);
  }
}
