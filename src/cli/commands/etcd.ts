// `kcluster etcd snapshot save -i FILE [-o PATH]`: a snapshot taken on the first reachable
// control plane, checked there, copied to the controller and checked again by sha256.
// `kcluster etcd snapshot restore -i FILE SNAPSHOT [--yes]`: the cluster's state replaced by
// the snapshot's on every control plane at once (see src/kubernetes/etcd/etcd-restore.ts); then the
// API is waited for, and every node's pod network is brought in line with its restored Node
// (playbooks/pod-network.ts).
import { existsSync } from 'node:fs';
import { copyFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import type { CliContext } from '../context.js';
import { withClusterSession, type ClusterSession } from '../cluster-session.js';
import { refusalUnlessConfirmed } from '../confirm.js';
import { restoreEtcdSnapshot } from '../../kubernetes/etcd/etcd-restore.js';
import { saveEtcdSnapshot, snapshotName, type SavedSnapshot } from '../../kubernetes/etcd/etcd-snapshot.js';
import { nodeAddress } from '../../kubernetes/cluster/topology.js';
import { InputError } from '../../orchestrator/engine/input-error.js';
import { runPlaybookCommand } from '../run-playbook-command.js';
import { podNetworkPlaybook } from '../../../playbooks/pod-network.js';

async function saveFromFirstReachable(session: ClusterSession, log: (line: string) => void): Promise<SavedSnapshot> {
  const problems: string[] = [];
  for (const cp of session.topology.controlPlanes) {
    try {
      const connection = await session.connect(cp.name);
      return await saveEtcdSnapshot(connection, session.inventory.stateDir, snapshotName(new Date()));
    } catch (error) {
      problems.push((error as Error).message);
      log(`${cp.name}: no snapshot: ${(error as Error).message.split('\n')[0]}`);
    }
  }
  throw new Error(`no control plane could take a snapshot:\n${problems.join('\n')}`);
}

async function waitForApi(session: ClusterSession, timeoutMs: number, signal: AbortSignal): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  while (Date.now() < deadline) {
    if (signal.aborted) throw new Error('interrupted while waiting for the API server after the restore (the restore itself is done)');
    try {
      await session.api().get('/api/v1/namespaces/kube-system');
      return;
    } catch (error) {
      last = (error as Error).message;
    }
    await new Promise((r) => setTimeout(r, 2000));
  }
  throw new Error(`the API server did not become ready within ${timeoutMs / 1000} s after the restore (last: ${last}): look at the etcd and kube-apiserver containers on the control planes (crictl ps -a)`);
}

export function registerEtcdCommand(program: Command, cli: CliContext): void {
  const log = (line: string): void => void cli.stderr.write(`kcluster: ${line}\n`);
  const snapshot = program.command('etcd').description('etcd of the cluster').command('snapshot').description('save or restore etcd snapshots');
  snapshot
    .command('save')
    .description('take a snapshot on a control plane and copy it to the controller (<stateDir>/backups)')
    .requiredOption('-i, --inventory <file>', 'inventory file (YAML)')
    .option('-o, --output <path>', 'also copy the snapshot here')
    .action(async (options: { inventory: string; output?: string }) => {
      await withClusterSession(cli, options.inventory, async (session) => {
        const saved = await saveFromFirstReachable(session, log);
        log(`etcd snapshot: revision ${saved.revision}, ${saved.keys} keys, ${saved.bytes} bytes, sha256 ${saved.sha256}`);
        let path = saved.file;
        if (options.output !== undefined) {
          path = resolve(cli.cwd, options.output);
          await copyFile(saved.file, path);
        }
        cli.stdout.write(`${path}\n`);
      });
    });
  snapshot
    .command('restore')
    .description("replace the cluster's state with a snapshot, on every control plane (asks first)")
    .argument('<snapshot>', 'a snapshot file saved by kcluster etcd snapshot save')
    .requiredOption('-i, --inventory <file>', 'inventory file (YAML)')
    .option('-y, --yes', 'do not ask for confirmation')
    .action(async (file: string, options: { inventory: string; yes?: boolean }) => {
      const snapshotFile = resolve(cli.cwd, file);
      await withClusterSession(cli, options.inventory, async (session) => {
        if (!existsSync(snapshotFile)) throw new InputError(`${snapshotFile}: no such snapshot file`);
        const cps = session.topology.controlPlanes;
        const refusal = await refusalUnlessConfirmed(cli, `restore replaces the state of cluster ${session.inventory.cluster.name} (every object written since the snapshot is lost) on ${cps.map((h) => h.name).join(', ')}; the API is down meanwhile`, options.yes);
        if (refusal) throw new InputError(refusal);
        const members = [];
        for (const cp of cps) {
          const connection = await session.connect(cp.name).catch((error: Error) => {
            throw new Error(`${cp.name}: ${error.message}: every control plane must be reachable for a restore; nothing was changed`);
          });
          members.push({ connection, name: cp.name, address: nodeAddress(cp) });
        }
        const started = Date.now();
        const report = await restoreEtcdSnapshot(members, snapshotFile, log);
        await waitForApi(session, 300_000, cli.signal);
        log(`restored revision ${report.revision} (${report.keys} keys); the API answers again after ${((Date.now() - started) / 1000).toFixed(1)} s`);
        log("every node's pod network follows the pod CIDR of its restored Node:");
        const network = await runPlaybookCommand(cli, podNetworkPlaybook(session.inventory), { inventory: options.inventory });
        if (!network || network.exitCode !== 0) {
          throw new Error(`the snapshot is restored, but the pod network of some nodes is not in line with it (see above): run kcluster apply -i ${options.inventory} once they are reachable`);
        }
      });
    });
}
