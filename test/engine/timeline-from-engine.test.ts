// The timeline reads what the engine and the reporter really write: a playbook run over the
// fake connection, its events through createReporter (-o json to a stream, and the debug
// log), then both files through the timeline; the critical path is the one the sleeps make.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { runPlaybook } from '../../src/orchestrator/engine/run-playbook.js';
import type { Play } from '../../src/orchestrator/engine/types.js';
import { createReporter } from '../../src/orchestrator/report/create-reporter.js';
import { timelineReport } from '../../src/orchestrator/report/timeline/timeline-report.js';
import { harness, inventory, runTask, sleep } from './support/harness.js';

describe('timeline of a run the engine made', () => {
  it('reads the -o json stream and the debug log alike, and finds the slow host and the hosts taken in turn', async () => {
    const pause: Record<string, number> = { h1: 600, h2: 100, h3: 50 };
    const plays: Play[] = [
      { name: 'side by side', hosts: 'all', roles: [{ name: 'work', tasks: [runTask('quick', () => sleep(5)), runTask('slow', (h) => sleep(pause[h]!))] }] },
      { name: 'in turn', hosts: 'all', serial: 1, roles: [{ name: 'roll', tasks: [runTask('restart', () => sleep(550))] }] },
    ];
    const debugLogPath = join(mkdtempSync(join(tmpdir(), 'kc-timeline-engine-')), 'run.log');
    let ndjson = '';
    const out = new PassThrough();
    out.on('data', (c: Buffer) => (ndjson += c.toString()));
    const reporter = await createReporter({ mode: 'json', out, err: new PassThrough(), color: false, debugLogPath });
    const h = harness(inventory(['h1', 'h2', 'h3']), plays, { events: reporter, log: (line) => reporter.debug(line), debugLogPath });
    const summary = await runPlaybook(h.options);
    await reporter.close();
    expect(summary.exitCode).toBe(0);

    const options = { minTaskMs: 500, svg: true };
    const fromJson = timelineReport(ndjson, 'run.ndjson', options);
    const fromLog = timelineReport(readFileSync(debugLogPath, 'utf8'), debugLogPath, options);
    expect([fromJson.format, fromLog.format]).toEqual(['ndjson', 'debug-log']);
    expect(fromLog.timeline).toEqual(fromJson.timeline);
    expect(fromLog.text).toBe(fromJson.text);

    const t = fromJson.timeline;
    expect(t.plays.map((p) => [p.play, p.hosts.map((l) => l.host)])).toEqual([
      ['side by side', ['h1', 'h2', 'h3']],
      ['in turn', ['h1', 'h2', 'h3']],
    ]);
    expect(t.plays[0]!.hosts[0]!.roles[0]!.tasks.map((x) => x.task)).toEqual(['quick', 'slow']);
    const text = fromJson.text;
    expect(text).toMatch(/^ {2}side by side\s+0\.\d s {2}h1 \(last by 0\.\d s\): work \/ slow 0\.\d s$/m);
    expect(text).toMatch(/^ {2}in turn\s+1\.\d s {2}h1 then h2 then h3: roll \/ restart 0\.\d s, roll \/ restart 0\.\d s, roll \/ restart 0\.\d s$/m);
    expect(fromJson.svg!.match(/<rect class="task critical"/g)).toHaveLength(4);
    expect(fromJson.svg!.match(/<rect class="task"/g)).toBeNull();
  });
});
