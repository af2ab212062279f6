// apply waits for an API server when the journal says a cluster is here: its last completed
// run acted on one and was not a reset; a folder whose runs never completed has none.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { clusterInstalledBefore } from '../../../../src/cli/journal/installed-before.js';
import { JOURNAL_FOLDER } from '../../../../src/cli/journal/journal-records.js';
import { openJournal } from '../../../../src/cli/journal/journal-writer.js';

function run(stateDir: string, id: string, playbook: string, status?: 'completed' | 'failed'): void {
  const journal = openJournal(join(stateDir, JOURNAL_FOLDER), id, (e) => {
    throw e;
  });
  journal.append({
    type: 'run',
    id,
    argv: ['kcluster', playbook],
    cwd: '/',
    inventory: { file: '/i.yaml', sha256: 'x' },
    version: '0',
    playbook,
    started: id,
    pid: 1,
    plays: [],
  });
  if (status !== undefined) journal.append({ type: 'end', t: id, status, exitCode: status === 'completed' ? 0 : 4, durationMs: 1 });
  journal.close();
}

describe('clusterInstalledBefore', () => {
  it('is false for an empty folder and for runs that never completed (a first install that failed, one killed)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kc-installed-'));
    expect(clusterInstalledBefore(dir)).toBe(false);
    run(dir, '2026-11-28T10-00-00-000Z', 'cluster', 'failed');
    run(dir, '2026-11-28T10-05-00-000Z', 'cluster');
    expect(clusterInstalledBefore(dir)).toBe(false);
  });

  it('is true once an apply or a day-2 command completed, false again after a completed reset', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kc-installed-'));
    run(dir, '2026-11-28T10-00-00-000Z', 'cluster', 'completed');
    expect(clusterInstalledBefore(dir)).toBe(true);
    run(dir, '2026-11-28T10-10-00-000Z', 'certs-renew', 'failed');
    expect(clusterInstalledBefore(dir)).toBe(true);
    run(dir, '2026-11-28T10-20-00-000Z', 'reset', 'completed');
    expect(clusterInstalledBefore(dir)).toBe(false);
    run(dir, '2026-11-28T10-30-00-000Z', 'cluster', 'completed');
    expect(clusterInstalledBefore(dir)).toBe(true);
  });
});
