// The timeline as a text table: each play, then each of its hosts, their roles and the tasks
// that took at least `minTaskMs`, with start (from the run's start) and duration; `*` marks
// the critical path. Then the critical path on its own, and a line per host.
import { isCritical, slackOf, type CriticalPath } from './critical-path.js';
import type { HostLane, TaskSpan, Timeline } from './model.js';
import { phaseWindows } from './phase-windows.js';

export interface FormatOptions {
  /** Tasks shorter than this are left out of the table (they are still counted). */
  readonly minTaskMs: number;
}

export const seconds = (ms: number): string => (ms / 1000).toFixed(1);

interface Row {
  readonly mark: boolean;
  readonly start: number;
  readonly duration: number;
  readonly label: string;
  readonly note: string;
}

function hostNote(path: CriticalPath, playIndex: number, lane: HostLane, critical: boolean): string {
  const outcome = lane.outcome === 'done' ? '' : `${lane.outcome}; `;
  if (critical) {
    const chain = path.plays.find((p) => p.index === playIndex)?.lanes ?? [];
    const at = chain.findIndex((l) => l.host === lane.host);
    const next = chain[at + 1];
    if (next) return `${outcome}${next.host} started when it ended`;
    const lastBy = chain[at]?.lastBy ?? 0;
    return `${outcome}last to end${lastBy >= 50 ? `, by ${seconds(lastBy)} s` : ''}`;
  }
  return `${outcome}${seconds(slackOf(path, playIndex, lane))} s slack`;
}

function rows(timeline: Timeline, path: CriticalPath, minTaskMs: number): Row[] {
  const out: Row[] = [];
  for (const play of timeline.plays) {
    const aborted = play.aborted !== undefined ? `; aborted: ${play.aborted}` : '';
    out.push({
      mark: true,
      start: play.start,
      duration: play.end - play.start,
      label: `play ${play.play}`,
      note: `${play.hosts.length} host${play.hosts.length === 1 ? '' : 's'}${aborted}`,
    });
    for (const lane of play.hosts) {
      const critical = isCritical(path, play.index, lane.host);
      out.push({
        mark: critical,
        start: lane.start,
        duration: lane.end - lane.start,
        label: `  ${lane.host}`,
        note: hostNote(path, play.index, lane, critical),
      });
      for (const role of lane.roles) {
        const short = role.tasks.filter((t) => t.end - t.start < minTaskMs);
        const facts = role.factsMs >= 50 ? `facts ${seconds(role.factsMs)} s` : '';
        const hidden =
          short.length > 0 ? `${short.length} short task${short.length === 1 ? '' : 's'} ${seconds(short.reduce((s, t) => s + t.end - t.start, 0))} s` : '';
        out.push({
          mark: critical,
          start: role.start,
          duration: role.end - role.start,
          label: `    ${role.role}`,
          note: [facts, hidden].filter(Boolean).join(', '),
        });
        for (const task of role.tasks) {
          if (task.end - task.start < minTaskMs) continue;
          out.push({ mark: critical, start: task.start, duration: task.end - task.start, label: `      ${task.task}`, note: task.status });
        }
      }
    }
  }
  return out;
}

/** The long tasks of the lanes that made each play last. */
export function criticalTasks(timeline: Timeline, path: CriticalPath, minTaskMs: number): Map<number, TaskSpan[]> {
  const out = new Map<number, TaskSpan[]>();
  for (const step of path.plays) {
    const play = timeline.plays[step.index];
    const lanes = play?.hosts.filter((h) => step.lanes.some((l) => l.host === h.host)) ?? [];
    out.set(
      step.index,
      lanes.flatMap((l) => l.roles.flatMap((r) => r.tasks)).filter((t) => t.end - t.start >= minTaskMs),
    );
  }
  return out;
}

function criticalSummary(timeline: Timeline, path: CriticalPath, minTaskMs: number): string[] {
  const inPlays = timeline.durationMs - path.outsidePlaysMs;
  const lines = [`critical path: ${seconds(timeline.durationMs)} s (plays ${seconds(inPlays)} s, outside plays ${seconds(path.outsidePlaysMs)} s)`];
  const tasks = criticalTasks(timeline, path, minTaskMs);
  const width = Math.max(0, ...path.plays.map((p) => p.play.length));
  for (const step of path.plays) {
    const hosts = step.lanes.map((l) => `${l.host}${l.lastBy >= 50 ? ` (last by ${seconds(l.lastBy)} s)` : ''}`).join(' then ');
    const longest = [...(tasks.get(step.index) ?? [])].sort((a, b) => b.end - b.start - (a.end - a.start));
    const shown = longest.slice(0, 4).sort((a, b) => a.start - b.start);
    const more = longest.length > shown.length ? `, ${longest.length - shown.length} more` : '';
    const list = shown.map((t) => `${t.role} / ${t.task} ${seconds(t.end - t.start)} s`).join(', ');
    lines.push(`  ${step.play.padEnd(width)}  ${seconds(step.end - step.start).padStart(6)} s  ${hosts || '(no host)'}${list ? `: ${list}${more}` : ''}`);
  }
  return lines;
}

function phaseSummary(timeline: Timeline): string[] {
  const windows = phaseWindows(timeline);
  const labels = timeline.plays.flatMap((p) => [`play ${p.play}`, ...windows.filter((w) => w.playIndex === p.index).map((w) => `  ${w.role}`)]);
  const width = Math.min(64, Math.max(5, ...labels.map((l) => l.length)));
  const lines = [
    `phases (a role from its first host's start to its last host's end)`,
    `  ${'START'.padStart(7)} ${'TIME'.padStart(7)}  ${'PHASE'.padEnd(width)}  HOSTS  SLOWEST`,
  ];
  for (const play of timeline.plays) {
    lines.push(
      `  ${seconds(play.start).padStart(7)} ${seconds(play.end - play.start).padStart(7)}  ${`play ${play.play}`.padEnd(width)}  ${String(play.hosts.length).padStart(5)}`,
    );
    for (const w of windows.filter((x) => x.playIndex === play.index)) {
      lines.push(
        `  ${seconds(w.start).padStart(7)} ${seconds(w.end - w.start).padStart(7)}  ${`  ${w.role}`.padEnd(width)}  ${String(w.hosts).padStart(5)}  ${w.slowest.host} ${seconds(w.slowest.ms)} s`,
      );
    }
  }
  return lines;
}

function hostSummary(timeline: Timeline): string[] {
  const width = Math.max(4, ...timeline.hosts.map((h) => h.length));
  const lines = [`  ${'HOST'.padEnd(width)}    BUSY  WAITING  LONGEST TASK`];
  for (const host of timeline.hosts) {
    let busy = 0;
    let waiting = 0;
    let longest: { play: string; task: TaskSpan } | undefined;
    for (const play of timeline.plays) {
      const lane = play.hosts.find((h) => h.host === host);
      if (!lane) continue;
      busy += lane.end - lane.start;
      waiting += play.end - play.start - (lane.end - lane.start);
      for (const task of lane.roles.flatMap((r) => r.tasks)) {
        if (!longest || task.end - task.start > longest.task.end - longest.task.start) longest = { play: play.play, task };
      }
    }
    const what = longest ? `${longest.play} / ${longest.task.role} / ${longest.task.task} ${seconds(longest.task.end - longest.task.start)} s` : '-';
    lines.push(`  ${host.padEnd(width)}  ${seconds(busy).padStart(6)}  ${seconds(waiting).padStart(7)}  ${what}`);
  }
  return lines;
}

/** Pure. */
export function formatTimeline(timeline: Timeline, path: CriticalPath, options: FormatOptions): string {
  const exit = timeline.exitCode === undefined ? 'no run-end: the log stops here' : `exit ${timeline.exitCode}`;
  const head = [
    `${timeline.playbook}${timeline.check ? ' (check)' : ''}: ${timeline.hosts.length} host${timeline.hosts.length === 1 ? '' : 's'}, ${seconds(timeline.durationMs)} s, ${exit}; started ${new Date(timeline.startedAt).toISOString()}`,
    `seconds from the run's start; * marks the critical path; tasks under ${seconds(options.minTaskMs)} s are only counted`,
    '',
  ];
  const table = rows(timeline, path, options.minTaskMs);
  const width = Math.min(64, Math.max(5, ...table.map((r) => r.label.length)));
  const fmt = (r: Row): string =>
    `${r.mark ? '*' : ' '} ${seconds(r.start).padStart(7)} ${seconds(r.duration).padStart(7)}  ${r.note ? `${r.label.padEnd(width)}  ${r.note}` : r.label}`;
  const body = [`  ${'START'.padStart(7)} ${'TIME'.padStart(7)}  PHASE`, ...table.map(fmt)];
  return [
    ...head,
    ...phaseSummary(timeline),
    '',
    'per host, role and task',
    ...body,
    '',
    ...criticalSummary(timeline, path, options.minTaskMs),
    '',
    'per host (busy: in its plays; waiting: in its plays, before it started or after it ended, while another host ran)',
    ...hostSummary(timeline),
    '',
  ].join('\n');
}
