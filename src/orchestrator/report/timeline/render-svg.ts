// The timeline as an SVG Gantt chart: a row per play, then a row per host in it with its
// roles as shaded segments and a bar per task of at least `minTaskMs`; the lanes and tasks
// of the critical path in red; a time axis in seconds. Plain SVG 1.1, no script, no font
// files: each bar's <title> says what it is when hovered.
import { isCritical, type CriticalPath } from './critical-path.js';
import type { Timeline } from './model.js';

export interface SvgOptions {
  readonly minTaskMs: number;
  /** Total width in pixels. */
  readonly width?: number;
}

const ROW = 18;
const LABEL_WIDTH = 230;
const TOP = 48;
const COLORS = {
  task: '#4c78a8',
  critical: '#d62728',
  play: '#9e9e9e',
  roleA: '#e8eef6',
  roleB: '#d5e1ef',
  lane: '#fafafa',
  laneCritical: '#fdecea',
  grid: '#dddddd',
  text: '#222222',
} as const;

export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c]!);
}

const s = (ms: number): string => (ms / 1000).toFixed(1);
const n = (x: number): string => (Math.round(x * 10) / 10).toString();

/** A round tick step (ms) giving at most about 12 ticks over `durationMs`. */
export function tickStep(durationMs: number): number {
  const steps = [100, 200, 500, 1000, 2000, 5000, 10_000, 15_000, 30_000, 60_000, 120_000, 300_000, 600_000, 1_800_000, 3_600_000];
  return steps.find((step) => durationMs / step <= 12) ?? steps.at(-1)!;
}

/** Pure. */
export function renderSvg(timeline: Timeline, path: CriticalPath, options: SvgOptions): string {
  const width = options.width ?? 1200;
  const plotWidth = width - LABEL_WIDTH - 24;
  const span = Math.max(timeline.durationMs, 1);
  const x = (ms: number): number => LABEL_WIDTH + (Math.max(0, ms) / span) * plotWidth;
  const w = (from: number, to: number): number => Math.max(1, x(to) - x(from));
  const rowCount = timeline.plays.reduce((sum, p) => sum + 1 + p.hosts.length, 0);
  const height = TOP + rowCount * ROW + 40;
  const body: string[] = [];
  const rect = (cls: string, x0: number, y: number, width: number, h: number, fill: string, title: string, extra = ''): string =>
    `<rect class="${cls}" x="${n(x0)}" y="${n(y)}" width="${n(width)}" height="${n(h)}" fill="${fill}"${extra}><title>${escapeXml(title)}</title></rect>`;
  const label = (text: string, y: number, indent: number, bold = false): string =>
    `<text x="${8 + indent}" y="${n(y + ROW - 5)}"${bold ? ' font-weight="bold"' : ''}>${escapeXml(text.length > 32 ? `${text.slice(0, 31)}…` : text)}</text>`;

  const step = tickStep(span);
  for (let t = 0; t <= span; t += step) {
    body.push(`<line class="tick" x1="${n(x(t))}" y1="${TOP - 6}" x2="${n(x(t))}" y2="${height - 40}" stroke="${COLORS.grid}"/>`);
    body.push(`<text class="tick" x="${n(x(t))}" y="${TOP - 10}" text-anchor="middle">${step >= 1000 ? String(t / 1000) : s(t)}</text>`);
  }

  let y = TOP;
  for (const play of timeline.plays) {
    body.push(label(`${play.play} (${s(play.end - play.start)} s)`, y, 0, true));
    body.push(
      rect(
        'play critical',
        x(play.start),
        y + 3,
        w(play.start, play.end),
        ROW - 6,
        COLORS.play,
        `play ${play.play}: ${s(play.start)} s + ${s(play.end - play.start)} s${play.aborted ? `; aborted: ${play.aborted}` : ''}`,
      ),
    );
    y += ROW;
    for (const lane of play.hosts) {
      const critical = isCritical(path, play.index, lane.host);
      body.push(label(lane.host, y, 12));
      body.push(
        rect(
          `lane${critical ? ' critical' : ''}`,
          x(lane.start),
          y + 1,
          w(lane.start, lane.end),
          ROW - 2,
          critical ? COLORS.laneCritical : COLORS.lane,
          `${lane.host} in ${play.play}: ${s(lane.start)} s + ${s(lane.end - lane.start)} s (${lane.outcome})`,
          critical ? ` stroke="${COLORS.critical}" stroke-width="1"` : '',
        ),
      );
      lane.roles.forEach((role, i) => {
        body.push(
          rect(
            'role',
            x(role.start),
            y + 2,
            w(role.start, role.end),
            ROW - 4,
            i % 2 === 0 ? COLORS.roleA : COLORS.roleB,
            `${lane.host} / ${role.role}: ${s(role.start)} s + ${s(role.end - role.start)} s (facts ${s(role.factsMs)} s)`,
          ),
        );
        for (const task of role.tasks) {
          if (task.end - task.start < options.minTaskMs) continue;
          const barWidth = w(task.start, task.end);
          body.push(
            rect(
              `task${critical ? ' critical' : ''}`,
              x(task.start),
              y + 4,
              barWidth,
              ROW - 8,
              critical ? COLORS.critical : COLORS.task,
              `${lane.host} / ${role.role} / ${task.task}: ${s(task.start)} s + ${s(task.end - task.start)} s (${task.status})`,
              ' stroke="#ffffff" stroke-width="0.5"',
            ),
          );
          // The name inside the bar when it fits (about 6 px a character at this size).
          if (barWidth >= task.task.length * 6 + 8)
            body.push(`<text class="task-label" x="${n(x(task.start) + 4)}" y="${n(y + ROW - 6)}" font-size="9" fill="#ffffff">${escapeXml(task.task)}</text>`);
        }
      });
      y += ROW;
    }
  }

  const legendY = height - 16;
  const legend = [
    `<rect x="${LABEL_WIDTH}" y="${legendY - 9}" width="12" height="10" fill="${COLORS.critical}"/>`,
    `<text x="${LABEL_WIDTH + 16}" y="${legendY}">task on the critical path</text>`,
    `<rect x="${LABEL_WIDTH + 190}" y="${legendY - 9}" width="12" height="10" fill="${COLORS.task}"/>`,
    `<text x="${LABEL_WIDTH + 206}" y="${legendY}">other task of ${s(options.minTaskMs)} s or more</text>`,
    `<rect x="${LABEL_WIDTH + 420}" y="${legendY - 9}" width="12" height="10" fill="${COLORS.roleA}" stroke="${COLORS.roleB}"/>`,
    `<text x="${LABEL_WIDTH + 436}" y="${legendY}">roles (facts, short tasks, handlers)</text>`,
    `<text x="${width - 24}" y="${legendY}" text-anchor="end">seconds from the run's start</text>`,
  ];
  const title = `${timeline.playbook}: ${timeline.hosts.length} hosts, ${s(timeline.durationMs)} s, started ${new Date(timeline.startedAt).toISOString()}`;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="11" fill="${COLORS.text}">`,
    `<title>${escapeXml(title)}</title>`,
    `<rect x="0" y="0" width="${width}" height="${height}" fill="#ffffff"/>`,
    `<text x="8" y="16" font-size="13" font-weight="bold">${escapeXml(title)}</text>`,
    ...body,
    ...legend,
    '</svg>',
    '',
  ].join('\n');
}
