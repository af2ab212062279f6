// `kcluster etcd snapshot save -i FILE [--from HOST] [--file PATH] [--check] [-o text|json]`:
// a snapshot taken on a control plane, checked there, copied to the controller
// (<stateDir>/backups) and checked again by sha256; its path is the last line on stdout.
// `kcluster etcd snapshot restore -i FILE SNAPSHOT [--yes] [--check] [-o text|json]`: the
// cluster's state replaced by the snapshot's on every control plane at once; with
// `--from-host HOST`, SNAPSHOT is the name of one kept on that control plane, fetched first; with
// `--from-store`, the name of one in the state store (cluster.state), fetched and opened first.
// `list` and `fetch`: etcd-snapshots.ts.
// Both are playbooks (playbooks/etcd-snapshot.ts): --check shows every step, -o json streams
// the events, the debug log records every command, Ctrl-C stops between steps.
import { existsSync, statSync } from 'node:fs';
import { copyFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { Option, type Command } from 'commander';
import type { CliContext } from '../context.js';
import { refusalUnlessConfirmed } from '../confirm.js';
import { fileOption } from '../deprecated-path-option.js';
import { runPlaybookCommand, type PlaybookCommandOptions } from '../run-playbook-command.js';
import { snapshotName, type SavedSnapshot } from '../../kubernetes/etcd/etcd-snapshot.js';
import { InputError } from '../../orchestrator/engine/input-error.js';
import { sha256File } from '../../orchestrator/util/sha256-file.js';
import { defaultSnapshotHost, snapshotRestorePlaybook, snapshotSavePlaybook } from '../../../playbooks/etcd-snapshot.js';
import { loadInventoryOrReport } from '../load-inventory-or-report.js';
import {
  fetchFromStoreOrReport,
  fetchSnapshotToController,
  snapshotFetch,
  snapshotList,
  type SnapshotFetchOptions,
  type SnapshotListOptions,
} from './etcd-snapshots.js';

interface SaveOptions extends PlaybookCommandOptions {
  readonly from?: string;
  readonly file?: string;
  readonly to?: string;
}

interface RestoreOptions extends PlaybookCommandOptions {
  readonly yes?: boolean;
  readonly fromHost?: string;
  readonly fromStore?: boolean;
}

const outputOption = (): Option =>
  new Option('-o, --output <format>', 'text (live tree on a terminal, lines otherwise) or json (NDJSON events)').choices(['text', 'json']);

export function registerEtcdCommand(program: Command, cli: CliContext): void {
  const log = (line: string): void => void cli.stderr.write(`kcluster: ${line}\n`);
  const snapshot = program.command('etcd').description('etcd of the cluster').command('snapshot').description('save, list, fetch or restore etcd snapshots');
  snapshot
    .command('save')
    .description('take a snapshot on a control plane and copy it to the controller (<stateDir>/backups)')
    .requiredOption('-i, --inventory <file>', 'inventory file (YAML)')
    .option('--from <host>', 'the control plane to take it on (default: the first in the inventory whose SSH port answers)')
    .option('--file <path>', 'also copy the snapshot here')
    .option('--to <path>', 'deprecated: use --file')
    .option('-C, --check', 'plan only: say what would be saved, change nothing')
    .addOption(outputOption())
    .action(async (options: SaveOptions) => {
      const file = fileOption(cli, options.file, { flag: '--to', value: options.to });
      let saved: SavedSnapshot | undefined;
      const summary = await runPlaybookCommand(
        cli,
        async (inventory) => ({
          playbook: snapshotSavePlaybook(inventory, options.from ?? (await defaultSnapshotHost(inventory, log)), {
            stateDir: inventory.stateDir,
            name: snapshotName(new Date()),
            saved: (snapshot) => (saved = snapshot),
          }),
        }),
        options,
      );
      if (!summary || summary.exitCode !== 0 || saved === undefined) return;
      log(
        `etcd snapshot: revision ${saved.revision}, ${saved.keys} keys, ${saved.bytes} bytes, sha256 ${saved.sha256}${saved.offBox !== undefined ? `; ${saved.offBox}` : ''}`,
      );
      let path = saved.file;
      if (file !== undefined) {
        path = resolve(cli.cwd, file);
        await copyFile(saved.file, path);
      }
      if (options.output !== 'json') cli.stdout.write(`${path}\n`);
      else log(`etcd snapshot saved to ${path}`);
    });
  snapshot
    .command('list')
    .description('the etcd snapshots kept on each control plane (saved and scheduled), and in the state store (stored): name, kind, age, size; read-only')
    .requiredOption('-i, --inventory <file>', 'inventory file (YAML)')
    .addOption(new Option('-o, --output <format>', 'text (a table) or json').choices(['text', 'json']).default('text'))
    .action(async (options: SnapshotListOptions) => snapshotList(cli, options));
  snapshot
    .command('fetch')
    .description('copy a snapshot kept on a control plane, or in the state store, to the controller (<stateDir>/backups), checked')
    .argument('<name>', 'the snapshot, as kcluster etcd snapshot list prints it')
    .requiredOption('-i, --inventory <file>', 'inventory file (YAML)')
    .option('--from <host>', 'the control plane that holds it')
    .option('--from-store', 'the state store holds it (cluster.state): opened and checked chunk by chunk')
    .option('--file <path>', 'copy it here instead')
    .addOption(new Option('-o, --output <format>', 'text (the path on stdout) or json').choices(['text', 'json']).default('text'))
    .action(async (name: string, options: SnapshotFetchOptions) => snapshotFetch(cli, name, options));
  snapshot
    .command('restore')
    .description("replace the cluster's state with a snapshot, on every control plane (asks first)")
    .argument('<snapshot>', 'a snapshot file saved by kcluster etcd snapshot save, or with --from-host the name of one kept on that host')
    .requiredOption('-i, --inventory <file>', 'inventory file (YAML)')
    .option(
      '--from-host <host>',
      'the snapshot is one kept on this control plane (kcluster etcd snapshot list): fetch it to <stateDir>/backups first, sha256 checked',
    )
    .option('--from-store', 'the snapshot is one in the state store (kcluster etcd snapshot list): fetch it to <stateDir>/backups first, checked')
    .option('-y, --yes', 'do not ask for confirmation')
    .option('-C, --check', 'plan only: report every step it would take, change nothing (with --from-host the snapshot is still fetched)')
    .addOption(outputOption())
    .action(async (file: string, options: RestoreOptions) => {
      let localFile = resolve(cli.cwd, file);
      if (options.fromStore === true) {
        const inventory = await loadInventoryOrReport(cli, options.inventory);
        if (!inventory) return;
        const fetched = await fetchFromStoreOrReport(cli, inventory, file);
        if (!fetched) return;
        localFile = fetched.file;
      } else if (options.fromHost !== undefined) {
        const inventory = await loadInventoryOrReport(cli, options.inventory);
        if (!inventory) return;
        const fetched = await fetchSnapshotToController(cli, inventory, options.fromHost, file);
        if (!fetched) return;
        log(
          `fetched ${fetched.remote} from ${options.fromHost} to ${fetched.file}: ${fetched.bytes} bytes, sha256 ${fetched.sha256} (checked against the host's)`,
        );
        localFile = fetched.file;
      }
      const started = Date.now();
      const summary = await runPlaybookCommand(
        cli,
        async (inventory) => {
          if (!existsSync(localFile) || !statSync(localFile).isFile()) throw new InputError(`${localFile}: no such snapshot file`);
          const playbook = snapshotRestorePlaybook(inventory, {
            localFile,
            sha256: await sha256File(localFile),
            stamp: new Date().toISOString().replace(/[:.]/g, '-'),
          });
          if (!options.check) {
            const refusal = await refusalUnlessConfirmed(
              cli,
              `restore replaces the state of cluster ${inventory.cluster.name} (every object written since the snapshot is lost); the API is down meanwhile`,
              options.yes,
            );
            if (refusal) throw new InputError(refusal);
          }
          return { playbook };
        },
        options,
      );
      if (!summary || options.check) return;
      if (summary.exitCode === 0)
        log(
          `restored ${file}; the API answered and the pod network followed after ${((Date.now() - started) / 1000).toFixed(1)} s; each control plane keeps its previous data in /var/lib/etcd.before-restore-*`,
        );
      else if (!summary.interrupted)
        log(
          `the restore did not finish (see above): the run says which step failed; a failure before the swap left the previous data in place and the control plane running again; run the same command once the hosts answer`,
        );
    });
}
