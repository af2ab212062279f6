// The CA rotation e2e's allowance for the kubelet's startup NotReady blip (see
// test/e2e/support/kubelet-restart-blips.ts): runs are grouped per node, and only a short run
// soon after that node's kubelet started is explained; anything else is reported with why.
import { describe, expect, it } from 'vitest';
import { kubeletStarts, notReadyRuns, unexplainedNotReady } from '../../e2e/support/kubelet-restart-blips.js';

const T = Date.parse('2026-11-29T11:39:30Z');
const samples = (node: string, fromS: number, toS: number) =>
  Array.from({ length: Math.floor((toS - fromS) / 0.7) + 1 }, (_, i) => ({ node, at: T + (fromS + i * 0.7) * 1000 }));

describe('kubelet restart blips', () => {
  it('groups NotReady samples into runs per node, split by gaps', () => {
    const runs = notReadyRuns([...samples('cp3', 7, 17), ...samples('cp2', 8, 9), ...samples('cp3', 60, 61)], 3000);
    expect(runs.map((r) => [r.node, Math.round((r.from - T) / 1000), Math.round((r.to - T) / 1000)])).toEqual([
      ['cp3', 7, 17],
      ['cp2', 8, 9],
      ['cp3', 60, 61],
    ]);
  });

  it('explains a run of at most one status period begun soon after a kubelet start, and nothing else', () => {
    const options = { startWindowMs: 30_000, slackMs: 3_000 };
    const starts = new Map([['cp3', [T + 5_000]]]);
    expect(unexplainedNotReady(notReadyRuns(samples('cp3', 7, 17), 3000), starts, options)).toEqual([]);
    expect(unexplainedNotReady(notReadyRuns(samples('cp3', 7, 30), 3000), starts, options)).toEqual([
      'cp3 NotReady from 2026-11-29T11:39:37.000Z for 22.4 s: longer than one kubelet status period',
    ]);
    expect(unexplainedNotReady(notReadyRuns(samples('cp2', 7, 8), 3000), starts, options)).toEqual([
      'cp2 NotReady from 2026-11-29T11:39:37.000Z for 0.7 s: no kubelet start on cp2 in the 30 s before',
    ]);
    expect(unexplainedNotReady(notReadyRuns(samples('cp3', 50, 51), 3000), starts, options)[0]).toContain('no kubelet start on cp3');
  });

  it("reads systemd's kubelet starts from journalctl -o short-unix", () => {
    const journal = [
      '1764416377.690123 kcerot3 systemd[1]: Stopping kubelet.service - kubelet: The Kubernetes Node Agent...',
      '1764416377.912345 kcerot3 systemd[1]: Started kubelet.service - kubelet: The Kubernetes Node Agent.',
      '1764416378.000000 kcerot3 kubelet[123]: I1129 flag parsing',
      '',
    ].join('\n');
    expect(kubeletStarts(journal)).toEqual([1764416377912]);
  });
});
