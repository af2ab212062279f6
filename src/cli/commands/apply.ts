// `kcluster apply -i FILE`: bring the inventory's machines to a working Kubernetes cluster, or
// keep one as it should be. Before any host is touched: the inventory is checked, a running
// cluster is asked whether the inventory asks for something apply refuses (another version),
// and which control planes are etcd members already (etcd's own member list, read on a control
// plane; new ones join one at a time), every artifact is fetched and verified on the controller, the cluster PKI is created or reused
// (with a warning for each certificate near its end that it does not renew: the CAs).
import { Option, type Command } from 'commander';
import { preparationIo, type CliContext } from '../context.js';
import { addPlaybookOptions } from '../playbook-options.js';
import { addPlanOptions } from '../plan/plan-options.js';
import { runPlaybookCommand, splitList, type PlaybookCommandOptions } from '../run-playbook-command.js';
import { limitHosts } from '../../orchestrator/engine/play-hosts.js';
import { etcdMembersToPlan } from '../etcd-members-to-plan.js';
import { operatorControlPlane } from '../../kubernetes/cluster/operator-control-plane.js';
import { topologyOrInputError } from '../../kubernetes/cluster/installed-cluster.js';
import { clusterInputsFor, refuseUnsupportedChanges } from '../../../playbooks/cluster-inputs.js';
import { clusterPlaybook } from '../../../playbooks/cluster.js';
import { clusterInstalledBefore } from '../journal/installed-before.js';

interface ApplyOptions extends PlaybookCommandOptions {
  readonly ignorePreflight?: string;
}

export function registerApplyCommand(program: Command, cli: CliContext): void {
  const command = program.command('apply').description('install or converge the Kubernetes cluster the inventory describes');
  addPlanOptions(addPlaybookOptions(command)).addOption(
    new Option('--ignore-preflight <checks>', 'preflight checks to skip knowingly (comma separated names, as failures print them)'),
  );
  command.action(async (options: ApplyOptions) => {
    const ignore = new Set(
      (options.ignorePreflight ?? '')
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    );
    await runPlaybookCommand(
      cli,
      async (inventory, mode) => {
        const running = mode.probe
          ? undefined
          : await refuseUnsupportedChanges(inventory, {
              addsControlPlanes: true,
              say: (line) => void cli.stderr.write(`kcluster: ${line}\n`),
              // A control plane booting answers in seconds: not a reason to plan an installation.
              installedBefore: clusterInstalledBefore(inventory.stateDir),
            });
        // etcd's own member list is read while the artifacts are verified: it decides which
        // control planes join, where the API's view may lag a remove-node by minutes.
        const [inputs, etcdMembers] = await Promise.all([
          clusterInputsFor(inventory, preparationIo(cli, mode.probe), ignore, { planOnly: mode.planOnly, readOnly: mode.probe }),
          running === undefined ? undefined : etcdMembersToPlan(cli, inventory, topologyOrInputError(inventory).controlPlanes, running),
        ]);
        const operator = mode.probe
          ? inputs.topology.firstControlPlane.name
          : await operatorControlPlane(inputs.topology, limitHosts(inventory, splitList(options.limit)), (line) => cli.stderr.write(`kcluster: ${line}\n`));
        return {
          playbook: clusterPlaybook(
            inputs,
            running === undefined || etcdMembers === undefined ? { running: false, operator } : { running: true, etcdMembers, operator },
          ),
        };
      },
      options,
    );
  });
}
