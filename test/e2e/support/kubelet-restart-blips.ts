// A node's Ready condition around a kubelet restart. The kubelet may post NotReady once when it
// starts (k8s.io/kubernetes pkg/kubelet: Run starts the node status loop before PLEG's first
// relist, and runtimeErrors counts "PLEG is not healthy: pleg has yet to be successful"; the fast
// startup update has already seen the Node Ready in its cache and stopped), and then stays
// NotReady until its next status update, nodeStatusUpdateFrequency (10 s) later. kcluster
// restarts kubelets when their trust or certificates change, so a test that polls Ready during
// such a change allows exactly this and nothing more: each NotReady run of a node begins soon
// after its kubelet started and lasts at most one status period.

/** The kubelet's nodeStatusUpdateFrequency (kcluster keeps the default). */
export const KUBELET_STATUS_PERIOD_MS = 10_000;

export interface NotReadySample {
  readonly at: number;
  readonly node: string;
}

export interface NotReadyRun {
  readonly node: string;
  readonly from: number;
  readonly to: number;
}

/** Consecutive NotReady samples of one node (no gap longer than `gapMs`) as one run. */
export function notReadyRuns(samples: readonly NotReadySample[], gapMs: number): NotReadyRun[] {
  const runs: NotReadyRun[] = [];
  const open = new Map<string, { from: number; to: number }>();
  for (const s of [...samples].sort((a, b) => a.at - b.at)) {
    const run = open.get(s.node);
    if (run && s.at - run.to <= gapMs) run.to = s.at;
    else {
      if (run) runs.push({ node: s.node, ...run });
      open.set(s.node, { from: s.at, to: s.at });
    }
  }
  for (const [node, run] of open) runs.push({ node, ...run });
  return runs.sort((a, b) => a.from - b.from);
}

/**
 * The runs that are not a kubelet's startup blip: not begun within `startWindowMs` after a start
 * of that node's kubelet (`starts`: node -> start times), or longer than one status period plus
 * `slackMs` (the poller's interval and an API answer under load). Each says why.
 */
export function unexplainedNotReady(
  runs: readonly NotReadyRun[],
  starts: ReadonlyMap<string, readonly number[]>,
  options: { startWindowMs: number; slackMs: number },
): string[] {
  return runs.flatMap((run) => {
    const span = `${run.node} NotReady from ${new Date(run.from).toISOString()} for ${((run.to - run.from) / 1000).toFixed(1)} s`;
    const after = (starts.get(run.node) ?? []).filter((t) => t <= run.from && run.from - t <= options.startWindowMs);
    if (after.length === 0) return [`${span}: no kubelet start on ${run.node} in the ${options.startWindowMs / 1000} s before`];
    if (run.to - run.from > KUBELET_STATUS_PERIOD_MS + options.slackMs) return [`${span}: longer than one kubelet status period`];
    return [];
  });
}

/** Parses `journalctl -o short-unix` lines of systemd starting the kubelet: their times, in ms. */
export function kubeletStarts(journal: string): number[] {
  return journal
    .split('\n')
    .filter((line) => /systemd\[1\]: Started kubelet/.test(line))
    .map((line) => Math.round(Number(line.split(' ')[0]) * 1000))
    .filter((t) => Number.isFinite(t));
}
