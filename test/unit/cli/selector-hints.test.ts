// A selector that names nothing gets the same "did you mean" everywhere a command takes one:
// apply's --limit, facts --limit and trust (issue 44: the last two had none). Refused before
// any connection (exit 2).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from './support/run-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'kc-hints-'));
const inventory = join(dir, 'inventory.yaml');
writeFileSync(
  inventory,
  `cluster: { name: hints }
stateDir: ${join(dir, 'state')}
ssh: { user: root, keyFile: ${join(dir, 'key')} }
hosts:
  - { name: cp1, address: 10.231.99.11, roles: [control-plane] }
  - { name: worker1, address: 10.231.99.21, roles: [worker] }
`,
);

describe('an unknown host selector', () => {
  it.each([
    [['facts', '-i', inventory, '--limit', 'workr1'], '--limit: no host or group named "workr1"'],
    [['trust', '-i', inventory, 'cpl'], 'no host or group named "cpl"'],
  ])('kcluster %j says which name was meant', async (args, message) => {
    const r = await runCli(args);
    expect(r.code, r.err).toBe(2);
    expect(r.err).toContain(message);
    expect(r.err).toMatch(/\(did you mean "(worker1|cp1)"\?\)/);
  });
});
