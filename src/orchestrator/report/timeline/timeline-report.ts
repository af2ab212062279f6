// From a log's text to the timeline report: parse, pick the run, build, find the critical
// path, then text and (when asked) SVG. Pure: the CLI reads and writes the files.
import { InputError } from '../../engine/input-error.js';
import { buildTimeline, splitRuns } from './build-timeline.js';
import { criticalPath, type CriticalPath } from './critical-path.js';
import { formatTimeline } from './format-timeline.js';
import type { Timeline } from './model.js';
import { phaseWindows, type PhaseWindow } from './phase-windows.js';
import { parseRunLog, type LogFormat } from './read-events.js';
import { renderSvg } from './render-svg.js';

export interface TimelineReportOptions {
  /** 1-based run in the file; the last one when absent. */
  readonly run?: number;
  readonly minTaskMs: number;
  readonly svg: boolean;
}

export interface TimelineReport {
  readonly format: LogFormat;
  readonly timeline: Timeline;
  readonly criticalPath: CriticalPath;
  readonly phases: readonly PhaseWindow[];
  readonly text: string;
  readonly svg?: string;
  /** Things the reader should know that do not stop the report (a cut last line, several runs). */
  readonly notes: readonly string[];
}

export function timelineReport(text: string, source: string, options: TimelineReportOptions): TimelineReport {
  const parsed = parseRunLog(text, source);
  const runs = splitRuns(parsed.events);
  const wanted = options.run ?? runs.length;
  const run = runs[wanted - 1];
  if (!run)
    throw new InputError(
      `${source}: --run ${wanted}: the file holds ${runs.length} run${runs.length === 1 ? '' : 's'}; give a number from 1 to ${runs.length}`,
    );
  const notes = [...parsed.warnings];
  if (runs.length > 1) notes.push(`${source}: holds ${runs.length} runs; this is run ${wanted} (line ${run[0]!.line}); --run N shows another`);
  const timeline = buildTimeline(run.map((e) => e.event));
  const path = criticalPath(timeline);
  return {
    format: parsed.format,
    timeline,
    criticalPath: path,
    phases: phaseWindows(timeline),
    text: formatTimeline(timeline, path, { minTaskMs: options.minTaskMs }),
    ...(options.svg ? { svg: renderSvg(timeline, path, { minTaskMs: options.minTaskMs }) } : {}),
    notes,
  };
}
