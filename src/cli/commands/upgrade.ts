// `kcluster upgrade -i FILE [--to VERSION] [--max-unavailable N|N%] [--check]`: a rolling
// upgrade to the inventory's kubernetesVersion. Before any host is touched: the cluster's
// current versions are read through the API and the skew rules checked (one minor at a time,
// no downgrade, kubelets never newer than API servers), and the plan is printed.
import { Option, type Command } from 'commander';
import { preparationIo, type CliContext } from '../context.js';
import { addPlaybookOptions } from '../playbook-options.js';
import { addPlanOptions } from '../plan/plan-options.js';
import { runPlaybookCommand, splitList, type PlaybookCommandOptions } from '../run-playbook-command.js';
import { limitHosts } from '../../orchestrator/engine/play-hosts.js';
import { operatorControlPlane } from '../../kubernetes/cluster/operator-control-plane.js';
import { clusterInputsFor } from '../../../playbooks/cluster-inputs.js';
import { adminApi } from '../../kubernetes/cluster/admin-api.js';
import { parseMaxUnavailable } from './max-unavailable.js';
import { InputError } from '../../orchestrator/engine/input-error.js';
import { nodesCordonedByKcluster } from '../../kubernetes/kube/drain.js';
import { kubeletVersionsOf, type NodeListWithVersions } from '../../kubernetes/kube/kubelet-versions.js';
import { compareVersions, skewProblem, type ClusterVersions } from '../../kubernetes/kube/version-skew.js';
import type { ApiClient } from '../../kubernetes/kube/api-client.js';
import { upgradePlaybook } from '../../../playbooks/upgrade.js';
import { apiServerAnswers } from '../../kubernetes/kube/api-server-answers.js';
import { LIST_WAIT_MS } from '../../kubernetes/cluster/running-cluster.js';

interface UpgradeCommandOptions extends PlaybookCommandOptions {
  readonly to?: string;
  readonly maxUnavailable: string;
  readonly drainTimeout: string;
  readonly ignorePreflight?: string;
}

/**
 * What the cluster runs, read through its API; waits first (up to `waitMs`, saying so) for an
 * API server that is restarting: a resumed upgrade found the one its interrupted run was
 * restarting down and was refused at once (the soak's slice, seed 242).
 */
export async function currentVersions(api: ApiClient, server: string, wait: { waitMs?: number; say?: (line: string) => void } = {}): Promise<ClusterVersions> {
  await apiServerAnswers(api, server, { waitMs: wait.waitMs ?? LIST_WAIT_MS, command: 'upgrade', ...(wait.say !== undefined ? { say: wait.say } : {}) });
  try {
    const version = await api.get<{ gitVersion: string }>('/version');
    const nodes = await api.get<NodeListWithVersions>('/api/v1/nodes');
    return { apiServer: version.gitVersion, kubelets: Object.fromEntries(kubeletVersionsOf(nodes)) };
  } catch (error) {
    throw new InputError(
      `cannot read the cluster's versions through ${server}: ${(error as Error).message}: check that API server (kcluster status says what the last run left) and run the command again`,
    );
  }
}

export function registerUpgradeCommand(program: Command, cli: CliContext): void {
  const command = program
    .command('upgrade')
    .description("rolling upgrade to the inventory's kubernetesVersion: control planes one at a time, then nodes in batches");
  addPlanOptions(addPlaybookOptions(command))
    .addOption(new Option('--to <version>', 'the target version; must equal cluster.kubernetesVersion in the inventory (the inventory stays the truth)'))
    .addOption(new Option('--max-unavailable <n>', 'nodes upgraded at once after the control planes (count or percentage)').default('1'))
    .addOption(new Option('--drain-timeout <seconds>', 'how long draining one node may take').default('300'))
    .addOption(new Option('--ignore-preflight <checks>', 'preflight checks to skip knowingly'));
  command.action(async (options: UpgradeCommandOptions) => {
    const ignore = new Set(
      (options.ignorePreflight ?? '')
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    );
    let api: ApiClient | undefined;
    const summary = await runPlaybookCommand(
      cli,
      async (inventory, mode) => {
        const target = inventory.cluster.kubernetesVersion;
        if (options.to !== undefined && options.to !== target) {
          throw new InputError(
            `--to ${options.to} but ${inventory.file} says cluster.kubernetesVersion: ${target}: set it to ${options.to} in the inventory first (it stays the truth for the next apply), then run upgrade`,
          );
        }
        const maxUnavailable = parseMaxUnavailable(options.maxUnavailable);
        const drainSeconds = Number(options.drainTimeout);
        if (!Number.isInteger(drainSeconds) || drainSeconds < 10)
          throw new InputError(`--drain-timeout must be a number of seconds, at least 10 (got "${options.drainTimeout}")`);
        // The upgrade writes no control plane's store upload settings (apply does): it does not ask for their credential.
        const inputs = await clusterInputsFor(inventory, preparationIo(cli, mode.probe), ignore, {
          planOnly: mode.planOnly,
          readOnly: mode.probe,
          snapshotUploadCredential: false,
        });
        const drainTimeoutMs = drainSeconds * 1000;
        if (mode.probe) return { playbook: upgradePlaybook(inputs, { maxUnavailable, drainTimeoutMs, operator: inputs.topology.firstControlPlane.name }) };
        api = adminApi(inputs);
        const current = await currentVersions(api, inputs.topology.adminServerUrl, { say: (line) => void cli.stderr.write(`kcluster: ${line}\n`) });
        const problem = skewProblem(current, target);
        if (problem) throw new InputError(`upgrade to ${target} refused: ${problem}`);
        const behind = (name: string): boolean => current.kubelets[name] === undefined || compareVersions(current.kubelets[name]!, target) < 0;
        const lines = [
          `upgrade plan: API servers ${current.apiServer} -> ${target}`,
          ...inputs.topology.controlPlanes.map(
            (h, i) =>
              `  control plane ${i + 1}/${inputs.topology.controlPlanes.length}: ${h.name} (kubelet ${current.kubelets[h.name] ?? 'not registered'})${behind(h.name) ? '' : ', already at target'}`,
          ),
          `  then the other nodes, ${maxUnavailable} at a time, each cordoned and drained first: ${inputs.topology.workers.map((h) => `${h.name} (${current.kubelets[h.name] ?? 'not registered'})`).join(', ') || 'none'}`,
        ];
        cli.stderr.write(`kcluster: ${lines.join('\nkcluster: ')}\n`);
        const operator = await operatorControlPlane(inputs.topology, limitHosts(inventory, splitList(options.limit)), (line) =>
          cli.stderr.write(`kcluster: ${line}\n`),
        );
        return { playbook: upgradePlaybook(inputs, { maxUnavailable, drainTimeoutMs, operator }) };
      },
      options,
    );
    if (summary && api) {
      const cordoned = await nodesCordonedByKcluster(api).catch(() => []);
      if (cordoned.length > 0) {
        cli.stderr.write(
          `kcluster: still cordoned by this upgrade: ${cordoned.join(', ')}: run kcluster upgrade again to finish (it continues where it stopped and uncordons them)\n`,
        );
      }
    }
  });
}
