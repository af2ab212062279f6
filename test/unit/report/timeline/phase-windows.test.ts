// Roles as phases across hosts: first start to last end, and the slowest host.
import { describe, expect, it } from 'vitest';
import { buildTimeline } from '../../../../src/orchestrator/report/timeline/build-timeline.js';
import { phaseWindows } from '../../../../src/orchestrator/report/timeline/phase-windows.js';
import { SAMPLE_EVENTS } from './sample-run.js';

describe('phase windows', () => {
  it('spans each role of a play over its hosts', () => {
    expect(phaseWindows(buildTimeline(SAMPLE_EVENTS))).toEqual([
      { play: 'setup', playIndex: 0, role: 'base', start: 11, end: 2125, hosts: 2, slowest: { host: 'h1', ms: 2114 } },
      { play: 'rolling', playIndex: 1, role: 'restart', start: 2141, end: 3662, hosts: 2, slowest: { host: 'h1', ms: 1011 } },
    ]);
  });
});
