// --tags / --skip-tags / --list-tags through the CLI: an unknown tag exits 2 with a
// did-you-mean before any host is reached (the inventory's host does not exist); --list-tags
// prints the playbook's tags and exits 0 without running it or asking for confirmation.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from './support/run-cli.js';
import { planOnly } from '../../../src/cli/run-playbook-command.js';

const dir = mkdtempSync(join(tmpdir(), 'kc-tags-'));
const inventory = join(dir, 'inv.yaml');
// 192.0.2.0/24 is TEST-NET-1: nothing answers there, so a run that connected would fail, not pass.
writeFileSync(inventory, `stateDir: ${join(dir, 'state')}\nhosts:\n  - { name: cp1, address: 192.0.2.1, roles: [control-plane] }\n`);

describe('kcluster --tags, --skip-tags, --list-tags', () => {
  it('run --tags with an unknown tag exits 2 with did you mean, and runs nothing', async () => {
    const r = await runCli(['run', 'demo', '-i', inventory, '--check', '--tags', 'dmeo', '--output', 'json']);
    expect(r.code).toBe(2);
    expect(r.err).toContain('kcluster: unknown tag --tags "dmeo" (did you mean "demo"?): no role or task of playbook demo has it; its tags are demo');
    expect(r.out).toBe('');
  });
  it('run --skip-tags with an unknown tag exits 2 too', async () => {
    const r = await runCli(['run', 'demo', '-i', inventory, '--skip-tags', 'demo,packages', '--output', 'json']);
    expect(r.code).toBe(2);
    expect(r.err).toContain('unknown tag --skip-tags "packages": no role or task of playbook demo has it');
  });
  it('run --list-tags prints the tags, one a line, and exits 0 without connecting', async () => {
    const r = await runCli(['run', 'demo', '-i', inventory, '--list-tags']);
    expect(r).toEqual({ code: 0, out: 'demo\n', err: '' });
  });
  it('reset --list-tags lists the tags without asking for confirmation or resetting anything', async () => {
    const r = await runCli(['reset', '-i', inventory, '--list-tags']);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toBe('reset\n');
  });
  it('--list-tags counts as plan only for the builders (no confirmation, no certificate renewed), like --check', () => {
    expect(planOnly({ inventory: 'x' })).toBe(false);
    expect(planOnly({ inventory: 'x', check: true })).toBe(true);
    expect(planOnly({ inventory: 'x', listTags: true })).toBe(true);
  });
  it('every command with --tags offers --list-tags and says an unknown tag is refused', async () => {
    for (const command of [['apply'], ['upgrade'], ['reset'], ['run'], ['certs', 'renew']]) {
      const r = await runCli([...command, '--help']);
      expect(r.code).toBe(0);
      const help = r.out.replace(/\s+/g, ' ');
      expect(help, command.join(' ')).toContain("--list-tags print the playbook's tags, one a line, and exit: nothing runs on any host");
      expect(help).toContain('--tags <tags> only tasks with these tags (comma separated; a role name is a tag; an unknown tag is refused)');
    }
  });
});
