// runScript's exclusive lock: what keeps two labs brought up at once from building the same base
// twice. Real bash scripts and the real flock(1), in a temp folder.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runScript } from '../../../src/lab/run-script.js';

const dir = mkdtempSync(join(tmpdir(), 'kc-run-script-'));
const journal = join(dir, 'journal');
// Notes its start, holds for a moment, notes its end: two runs overlap unless something serialises them.
const script = join(dir, 'slow.sh');
writeFileSync(script, 'echo "start $NAME" >> "$JOURNAL"; sleep 0.4; echo "end $NAME" >> "$JOURNAL"\n');

async function twoAtOnce(lock: string | undefined): Promise<string[]> {
  writeFileSync(journal, '');
  await Promise.all(['a', 'b'].map((name) => runScript(script, { NAME: name, JOURNAL: journal }, () => {}, lock)));
  return readFileSync(journal, 'utf8').trim().split('\n');
}

describe('runScript', () => {
  it('runs two scripts at once without a lock (the case the lock exists for)', async () => {
    const lines = await twoAtOnce(undefined);
    expect(lines.slice(0, 2).every((l) => l.startsWith('start '))).toBe(true);
  });

  it('with the same exclusive lock, runs them one after the other', async () => {
    const lines = await twoAtOnce(join(dir, '.build.lock'));
    expect(lines).toHaveLength(4);
    expect(lines[0]!.replace('start', 'end')).toBe(lines[1]);
    expect(lines[2]!.replace('start', 'end')).toBe(lines[3]);
  });

  it('names the script and its exit code when it fails', async () => {
    const failing = join(dir, 'failing.sh');
    writeFileSync(failing, 'echo "what went wrong"; exit 3\n');
    await expect(runScript(failing, {}, () => {}, join(dir, '.build.lock'))).rejects.toThrow(`${failing} exited 3:\nwhat went wrong`);
  });
});
