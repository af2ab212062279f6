// Several facts in one command (fake connection: the local /bin/sh stands in for SSH).
import { describe, expect, it } from 'vitest';
import type { Fact } from '../../../src/orchestrator/engine/fact.js';
import { readFacts } from '../../../src/orchestrator/engine/read-facts.js';
import { shellRaw } from '../../../src/orchestrator/ssh/quote.js';
import { LocalShellConnection } from '../../engine/support/local-shell-connection.js';

const lines: Fact<string[]> = { key: 'lines', script: shellRaw("printf 'a\\nb\\n'"), parse: (stdout) => stdout.trim().split('\n') };
const code: Fact<number> = { key: 'code', script: shellRaw('exit 4'), parse: (_stdout, exitCode) => exitCode };

describe('readFacts (fake connection)', () => {
  it('reads every fact in one command, each parsed from its own output and exit code', async () => {
    const connection = new LocalShellConnection('node-1');
    const [first, second] = await readFacts(connection, [lines, code] as const, { label: 'two facts' });
    expect(first).toEqual(['a', 'b']);
    expect(second).toBe(4);
    expect(connection.stats.roundTrips).toBe(1);
  });
});
