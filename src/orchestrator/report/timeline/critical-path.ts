// The critical path of a run: the chain of spans that decided how long it took. Plays run
// one after another, so every play is on it. Inside a play the hosts run side by side, so the
// play lasts as long as the host that finished last; and a host that started late (a later
// `serial` batch, or waiting for a `--concurrency` slot) waited for the host that finished just
// before it started, which joins the chain. A host runs its tasks one after another, so every
// task of a host on the chain is on it; the long ones are where the time went.
import type { HostLane, PlaySpan, Timeline } from './model.js';

/** Within this many ms, a host that ended is taken to have let the next one start. */
const HANDOFF_MS = 50;

export interface CriticalLane {
  readonly host: string;
  readonly start: number;
  readonly end: number;
  /** How much later it ended than the next host of its batch to end (0 when alone or tied). */
  readonly lastBy: number;
}

export interface CriticalPlay {
  readonly index: number;
  readonly play: string;
  readonly start: number;
  readonly end: number;
  /** The hosts that made the play last, first to last (one, unless hosts ran in turns). */
  readonly lanes: readonly CriticalLane[];
}

export interface CriticalPath {
  readonly plays: readonly CriticalPlay[];
  /** The time of the run outside every play (before the first, between two, after the last). */
  readonly outsidePlaysMs: number;
}

function chainOf(play: PlaySpan): HostLane[] {
  const chain: HostLane[] = [];
  const left = new Set(play.hosts);
  let cursor = play.end;
  for (;;) {
    let best: HostLane | undefined;
    for (const lane of left) if (lane.end <= cursor + HANDOFF_MS && (!best || lane.end > best.end)) best = lane;
    if (!best) break;
    chain.unshift(best);
    left.delete(best);
    // A host that started with the play waited for nobody.
    if (best.start - play.start <= HANDOFF_MS) break;
    cursor = best.start;
  }
  return chain;
}

/** How much earlier `lane` ended than the host that made its play last. */
export function slackOf(path: CriticalPath, playIndex: number, lane: HostLane): number {
  const last = path.plays.find((p) => p.index === playIndex)?.lanes.at(-1);
  return last ? Math.max(0, last.end - lane.end) : 0;
}

export function isCritical(path: CriticalPath, playIndex: number, host: string): boolean {
  return path.plays.some((p) => p.index === playIndex && p.lanes.some((l) => l.host === host));
}

/** Pure. */
export function criticalPath(timeline: Timeline): CriticalPath {
  const plays = timeline.plays.map((play): CriticalPlay => {
    const chain = chainOf(play);
    const lanes = chain.map((lane): CriticalLane => {
      // Among the hosts that ran beside it (its batch), the one that ended next before it.
      const beside = play.hosts.filter((h) => h !== lane && h.end > lane.start && h.end <= lane.end);
      const lastBy = beside.length === 0 ? 0 : lane.end - Math.max(...beside.map((h) => h.end));
      return { host: lane.host, start: lane.start, end: lane.end, lastBy };
    });
    return { index: play.index, play: play.play, start: play.start, end: play.end, lanes };
  });
  const inPlays = timeline.plays.reduce((sum, p) => sum + (p.end - p.start), 0);
  return { plays, outsidePlaysMs: Math.max(0, timeline.durationMs - inPlays) };
}
