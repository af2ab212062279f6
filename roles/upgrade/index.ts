// The upgrade roles, used by `kcluster upgrade` around the cluster roles:
// - etcdBackupRole (first control plane): an etcd snapshot copied to the controller and
//   verified before any control plane is touched;
// - drainRole (workers, first): cordon and drain the node when its kubelet is about to change;
// - nodeReadyRole (last): wait until the node is Ready at the target version, then uncordon it
//   if kcluster cordoned it (also after an interrupted run).
// See README.md beside this file.
import type { ClusterInputs } from '../../src/kubernetes/cluster/cluster-inputs.js';
import { adminApi } from '../../src/kubernetes/cluster/admin-api.js';
import { saveEtcdSnapshot, savedSnapshotFigures, snapshotName } from '../../src/kubernetes/etcd/etcd-snapshot.js';
import { noChange } from '../../src/orchestrator/engine/change.js';
import { pollUntil } from '../../src/orchestrator/engine/poll-until.js';
import type { Role, Task } from '../../src/orchestrator/engine/types.js';
import { installedBinary } from '../../src/orchestrator/facts/installed-binary.js';
import { nodeStatus } from '../../src/kubernetes/facts/node-status.js';
import { cordon, drain, uncordon } from '../../src/kubernetes/kube/drain.js';
import { sh } from '../../src/orchestrator/ssh/quote.js';
import { KUBELET_KUBECONFIG } from '../../src/kubernetes/facts/node-pod-cidr.js';

const READY_TIMEOUT_MS = 300_000;
/** One status probe; a slower one counts as "not yet" (poll-until.ts). */
const PROBE_TIMEOUT_MS = 30_000;

/** The kubelet a host gets (hosts of each architecture get their own). */
function kubeletArtifact(inputs: ClusterInputs, host: string) {
  const kubelet = inputs.artifacts.find((a) => a.type === 'binary' && a.name === 'kubelet' && a.hosts.includes(host));
  if (!kubelet?.sha256 || !kubelet.installPath) throw new Error(`the prepared artifacts have no kubelet binary for ${host}`);
  return kubelet;
}

export function etcdBackupRole(inputs: ClusterInputs): Role {
  const task: Task<{ kubelet: ReturnType<typeof installedBinary> }, null> = {
    name: 'etcd snapshot before the upgrade',
    tags: ['upgrade', 'etcd-backup'],
    facts: (ctx) => ({ kubelet: installedBinary(kubeletArtifact(inputs, ctx.host.name).installPath!) }),
    plan: (facts, ctx) => {
      const kubelet = kubeletArtifact(inputs, ctx.host.name);
      return facts.kubelet.sha256 === kubelet.sha256
        ? noChange(`this control plane already runs kubelet ${kubelet.version}: no snapshot needed to continue`)
        : { kind: 'run', summary: `save an etcd snapshot to ${inputs.inventory.stateDir}/backups and verify it`, payload: null };
    },
    apply: async (_change, ctx) => {
      const saved = await saveEtcdSnapshot(ctx.connection, inputs.inventory.stateDir, snapshotName(new Date()));
      ctx.log(`etcd snapshot ${saved.file}: ${savedSnapshotFigures(saved)}`);
    },
    verify: false,
  };
  return { name: 'etcd-backup', tags: ['upgrade'], tasks: [task] };
}

export function drainRole(inputs: ClusterInputs, timeoutMs: number): Role {
  const task: Task<{ kubelet: ReturnType<typeof installedBinary> }, null> = {
    name: 'cordon and drain',
    tags: ['upgrade', 'drain'],
    facts: (ctx) => ({ kubelet: installedBinary(kubeletArtifact(inputs, ctx.host.name).installPath!) }),
    plan: (facts, ctx) => {
      const kubelet = kubeletArtifact(inputs, ctx.host.name);
      return facts.kubelet.sha256 === kubelet.sha256
        ? noChange(`kubelet ${kubelet.version} already installed: no drain needed`)
        : {
            kind: 'run',
            summary: `cordon and drain before the kubelet becomes ${kubelet.version} (PodDisruptionBudgets respected, ${timeoutMs / 1000} s at most)`,
            payload: null,
          };
    },
    apply: async (_change, ctx) => {
      const api = adminApi(inputs);
      await cordon(api, ctx.host.name);
      await drain(
        api,
        ctx.host.name,
        timeoutMs,
        (line) => ctx.log(line),
        (line) => ctx.progress(line),
      );
    },
    verify: false,
  };
  return { name: 'drain', tags: ['upgrade'], tasks: [task] };
}

export function nodeReadyRole(inputs: ClusterInputs): Role {
  const target = inputs.inventory.cluster.kubernetesVersion;
  const waitReady: Task<{ node: ReturnType<typeof nodeStatus> }, null> = {
    name: `node Ready at ${target}`,
    tags: ['upgrade'],
    facts: (ctx) => ({ node: nodeStatus(ctx.host.name) }),
    plan: (facts) =>
      facts.node.known && facts.node.ready && facts.node.kubeletVersion === target
        ? noChange(`Ready, kubelet ${target}`)
        : {
            kind: 'wait',
            summary: `wait until the node is Ready with kubelet ${target} (now: ${facts.node.known ? `${facts.node.ready ? 'Ready' : 'NotReady'}, ${facts.node.kubeletVersion}` : facts.node.detail})`,
            payload: null,
          },
    apply: async (_change, ctx) => {
      const outcome = await pollUntil({
        timeoutMs: READY_TIMEOUT_MS,
        intervalMs: 2000,
        signal: ctx.signal,
        probe: () =>
          ctx.connection.exec(
            sh`/usr/local/bin/kubectl --kubeconfig=${KUBELET_KUBECONFIG} --request-timeout=5s get node ${ctx.host.name} -o 'jsonpath={range .status.conditions[?(@.type=="Ready")]}{.status}{end} {.status.nodeInfo.kubeletVersion}'`,
            { become: true, label: 'node status', timeoutMs: PROBE_TIMEOUT_MS },
          ),
        done: (r) => r.code === 0 && r.stdout.trim() === `True ${target}`,
        progress: {
          describe: (r) =>
            `${ctx.host.name} Ready with kubelet ${target} (now: ${r === undefined ? 'no answer' : r.code === 0 ? `Ready=${r.stdout.trim().replace(' ', ', kubelet ')}` : r.stderr.trim().split('\n').at(-1) || `exit ${r.code}`})`,
          report: (line) => ctx.progress(line),
        },
      });
      if (outcome.reached) return;
      if (outcome.interrupted) throw new Error(`interrupted while waiting for ${ctx.host.name} to be Ready`);
      throw new Error(
        `${ctx.host.name} is not Ready with kubelet ${target} after ${READY_TIMEOUT_MS / 1000} s: see journalctl -u kubelet on it; it stays cordoned if kcluster cordoned it`,
      );
    },
  };
  const uncordonTask: Task<{ node: ReturnType<typeof nodeStatus> }, null> = {
    name: 'uncordon',
    tags: ['upgrade'],
    facts: (ctx) => ({ node: nodeStatus(ctx.host.name) }),
    plan: (facts) =>
      facts.node.known && facts.node.cordonedByKcluster
        ? { kind: 'run', summary: 'uncordon (kcluster cordoned it for the upgrade)', payload: null }
        : noChange('not cordoned by kcluster'),
    apply: async (_change, ctx) => uncordon(adminApi(inputs), ctx.host.name),
  };
  return { name: 'node-ready', tags: ['upgrade'], tasks: [waitReady, uncordonTask] };
}
