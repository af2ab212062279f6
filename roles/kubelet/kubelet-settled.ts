// After a restart, the kubelet takes back the pods it ran: its volume manager adds each pod's
// volumes and mounts them. A static pod manifest that changes in that window (the control-plane
// role writes its manifests right after this role, in the same run) leaves the previous pod's
// sync waiting for volumes that are never added, and the kubelet replaces that pod only after
// its two-minute volume timeout, where a manifest written once the kubelet has settled runs
// within seconds (figures: bench/results/2026-11-28-figures-from-code-comments.md). So on a host
// with static pods of a running cluster, the restart waits until the kubelet reports as many
// volumes mounted as it wants (its volume_manager_total_volumes metric, read through the API
// server's node proxy), at most SETTLE_TIMEOUT_SECONDS.
import { adminKubectl, ADMIN_KUBECONFIG } from '../../src/kubernetes/facts/admin-kubectl.js';
import { MANIFESTS_DIR } from '../../src/kubernetes/facts/static-pods.js';
import { pollUntil } from '../../src/orchestrator/engine/poll-until.js';
import type { ApplyContext } from '../../src/orchestrator/engine/types.js';
import { execChecked } from '../../src/orchestrator/ssh/connection.js';
import { sh, type ShellCommand } from '../../src/orchestrator/ssh/quote.js';

export const SETTLE_TIMEOUT_SECONDS = 60;

export interface VolumeCounts {
  readonly desired: number;
  readonly actual: number;
}

/** Pure: the kubelet's metrics text in, the volumes it wants and has mounted (summed over plugins). */
export function volumeCounts(metrics: string): VolumeCounts {
  let desired = 0;
  let actual = 0;
  for (const line of metrics.split('\n')) {
    const m = /^volume_manager_total_volumes\{([^}]*)\}\s+(\d+(?:\.\d+)?)/.exec(line);
    if (!m) continue;
    const state = /state="([^"]+)"/.exec(m[1]!)?.[1];
    if (state === 'desired_state_of_world') desired += Number(m[2]);
    else if (state === 'actual_state_of_world') actual += Number(m[2]);
  }
  return { desired, actual };
}

/** Pure: settled once the kubelet wants volumes and has mounted them all. */
export function settled(counts: VolumeCounts): boolean {
  return counts.desired > 0 && counts.actual >= counts.desired;
}

/**
 * One probe on the host: prints "skip: WHY" when the host runs no static pod, has no admin
 * kubeconfig or its API server does not answer (nothing to guard: an install, a worker, or a
 * control plane that is down), else the kubelet's volume_manager_total_volumes lines (or the
 * API's error). waitForKubeletSettled repeats it every second.
 */
export function kubeletVolumesScript(node: string): ShellCommand {
  const kubectl = adminKubectl(5);
  return sh`ls ${MANIFESTS_DIR}/*.yaml > /dev/null 2>&1 || { echo 'skip: no static pod manifest'; exit 0; }
[ -f ${ADMIN_KUBECONFIG} ] || { echo 'skip: no admin kubeconfig on this host'; exit 0; }
${kubectl} get --raw /readyz > /dev/null 2>&1 || { echo 'skip: the API server does not answer'; exit 0; }
${kubectl} get --raw /api/v1/nodes/${node}/proxy/metrics 2>&1 | grep -E '^volume_manager_total_volumes|^Error' ; true`;
}

/**
 * Wait, after a restart, until the kubelet has taken back the volumes of the pods it runs (see
 * above). Never fails the run: the restart itself succeeded, and a control plane that stays
 * behind is what the control-plane role's own wait reports. What happened goes to the debug log.
 */
export async function waitForKubeletSettled(ctx: ApplyContext): Promise<void> {
  const started = Date.now();
  const outcome = await pollUntil({
    timeoutMs: SETTLE_TIMEOUT_SECONDS * 1000,
    intervalMs: 1000,
    signal: ctx.signal,
    probe: async () => {
      const out = (
        await execChecked(ctx.connection, kubeletVolumesScript(ctx.host.name), {
          become: true,
          label: 'wait for the kubelet to take its pods back',
          timeoutMs: 20_000,
        })
      ).stdout;
      return out.startsWith('skip: ') ? { skip: out.trim().slice(6) } : { counts: volumeCounts(out), text: out.trim().slice(0, 200) };
    },
    done: (state) => 'skip' in state || settled(state.counts),
    progress: {
      describe: (last) =>
        last !== undefined && 'counts' in last
          ? `the kubelet to mount its pods' volumes (${last.counts.actual} of ${last.counts.desired})`
          : 'the kubelet to take its pods back (no answer yet)',
      report: (line) => ctx.progress(line),
    },
  });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  if (outcome.reached) {
    const value = outcome.value;
    ctx.log(
      'skip' in value
        ? `kubelet restarted; no wait for its pods: ${value.skip}`
        : `kubelet restarted; its ${value.counts.desired} volumes are mounted after ${seconds} s`,
    );
  } else if (!outcome.interrupted) {
    const last = outcome.last && 'text' in outcome.last ? outcome.last.text : 'no answer';
    ctx.log(`kubelet restarted; after ${seconds} s its volumes are still not all mounted (${last}): going on`);
  }
}
