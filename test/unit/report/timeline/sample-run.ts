// A small hand-written run with known answers: two hosts side by side in "setup" (h1 ends
// last, 1.095 s after h2), then "rolling" one host at a time (h2 starts when h1 ends).
import type { RunEvent } from '../../../../src/orchestrator/engine/events.js';

export const T0 = 1_700_000_000_000;

const summary = { playbook: 'site', hosts: [], exitCode: 0, durationMs: 3680, interrupted: false, check: false, changesPending: false };

/** [ms from T0, event] in the order the engine emits them. */
const timed: ReadonlyArray<readonly [number, Record<string, unknown>]> = [
  [0, { type: 'run-start', playbook: 'site', hosts: ['h1', 'h2'], check: false }],
  [10, { type: 'play-start', play: 'setup', hosts: ['h1', 'h2'] }],
  [10, { type: 'host-start', play: 'setup', host: 'h1' }],
  [10, { type: 'host-start', play: 'setup', host: 'h2' }],
  [11, { type: 'role-start', play: 'setup', host: 'h1', role: 'base' }],
  [11, { type: 'role-start', play: 'setup', host: 'h2', role: 'base' }],
  [20, { type: 'facts-gathered', host: 'h1', role: 'base', keys: ['os'], roundTrips: 1, durationMs: 9 }],
  [20, { type: 'task-start', play: 'setup', host: 'h1', role: 'base', task: 'quick' }],
  [25, { type: 'facts-gathered', host: 'h2', role: 'base', keys: ['os'], roundTrips: 1, durationMs: 14 }],
  [25, { type: 'task-start', play: 'setup', host: 'h2', role: 'base', task: 'download' }],
  [120, { type: 'task-result', play: 'setup', host: 'h1', role: 'base', task: 'quick', status: 'ok', durationMs: 100, roundTrips: 2, check: false }],
  [120, { type: 'task-start', play: 'setup', host: 'h1', role: 'base', task: 'download' }],
  [1025, { type: 'task-result', play: 'setup', host: 'h2', role: 'base', task: 'download', status: 'changed', durationMs: 1000, roundTrips: 3, check: false }],
  [1030, { type: 'host-end', play: 'setup', host: 'h2', ok: 0, changed: 1, skipped: 0, failed: 0, unreachable: false }],
  [2120, { type: 'task-result', play: 'setup', host: 'h1', role: 'base', task: 'download', status: 'changed', durationMs: 2000, roundTrips: 3, check: false }],
  [2125, { type: 'host-end', play: 'setup', host: 'h1', ok: 1, changed: 1, skipped: 0, failed: 0, unreachable: false }],
  [2130, { type: 'play-end', play: 'setup' }],
  [2140, { type: 'play-start', play: 'rolling', hosts: ['h1', 'h2'] }],
  [2140, { type: 'host-start', play: 'rolling', host: 'h1' }],
  [2141, { type: 'role-start', play: 'rolling', host: 'h1', role: 'restart' }],
  [2150, { type: 'task-start', play: 'rolling', host: 'h1', role: 'restart', task: 'restart service' }],
  [
    3150,
    {
      type: 'task-result',
      play: 'rolling',
      host: 'h1',
      role: 'restart',
      task: 'restart service',
      status: 'changed',
      durationMs: 1000,
      roundTrips: 4,
      check: false,
    },
  ],
  [3152, { type: 'host-end', play: 'rolling', host: 'h1', ok: 1, changed: 2, skipped: 0, failed: 0, unreachable: false }],
  [3153, { type: 'host-start', play: 'rolling', host: 'h2' }],
  [3154, { type: 'role-start', play: 'rolling', host: 'h2', role: 'restart' }],
  [3160, { type: 'task-start', play: 'rolling', host: 'h2', role: 'restart', task: 'restart service' }],
  [
    3660,
    {
      type: 'task-result',
      play: 'rolling',
      host: 'h2',
      role: 'restart',
      task: 'restart service',
      status: 'changed',
      durationMs: 500,
      roundTrips: 4,
      check: false,
    },
  ],
  [3662, { type: 'host-end', play: 'rolling', host: 'h2', ok: 0, changed: 2, skipped: 0, failed: 0, unreachable: false }],
  [3670, { type: 'play-end', play: 'rolling' }],
  [3680, { type: 'run-end', summary }],
];

export const SAMPLE_EVENTS: readonly RunEvent[] = timed.map(([at, e]) => ({ ...e, time: T0 + at }) as unknown as RunEvent);

/** The same run as the NDJSON stream of `-o json`. */
export const sampleNdjson = (): string => SAMPLE_EVENTS.map((e) => `${JSON.stringify(e)}\n`).join('');

/** The same run as a debug log: each event on an `event` line, with command lines between. */
export const sampleDebugLog = (): string =>
  SAMPLE_EVENTS.map((e, i) => {
    const stamp = new Date(e.time).toISOString();
    const command = i % 5 === 2 ? `${stamp} h1: run sh -c 'echo ok' (exit 0)\nsecond line of its output\n` : '';
    return `${stamp} event ${JSON.stringify(e)}\n${command}`;
  }).join('');
