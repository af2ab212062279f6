import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createDebugLog } from '../../../src/orchestrator/report/debug-log.js';

describe('debug log', () => {
  it('buffers entries and writes them all, in order, by the flush interval and on close', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'kc-log-')), 'logs', 'run.log');
    const log = createDebugLog(path, 20);
    for (let i = 0; i < 500; i++) log.write(`line ${i}`);
    expect(readFileSync(path, 'utf8')).toBe('');
    await new Promise((r) => setTimeout(r, 60));
    const flushed = readFileSync(path, 'utf8').trim().split('\n');
    expect(flushed).toHaveLength(500);
    expect(flushed[499]).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+Z line 499$/);
    log.write('last');
    log.close();
    expect(readFileSync(path, 'utf8').trim().split('\n').at(-1)).toMatch(/ last$/);
    log.write('after close is dropped');
    expect(readFileSync(path, 'utf8')).not.toContain('after close');
  });
});
