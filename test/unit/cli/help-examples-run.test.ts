// The help examples that need no host are run here as they are written, in a folder holding the
// inventory.yaml they name (a bundle of stand-in pieces, fake-*: verified and read, never
// installed); each must exit 0. The others need a lab (hosts, a cluster, root): test/e2e/help-
// examples.test.ts runs them on one, and every example of HELP_EXAMPLES is in one list or the
// other, so a new one is classified when it is written. (issue 44: three examples failed as written.)
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HELP_EXAMPLES } from '../../../src/cli/help-examples.js';
import { writeFakeBundleWithPieces } from '../support/fake-bundle.js';
import { loadInventoryText } from '../support/inventory-text.js';

const CLI = resolve(import.meta.dirname, '../../../bin/kcluster.js');

/** The real launcher in `cwd`, as a user types the example there. */
function kclusterIn(cwd: string, args: readonly string[]): Promise<{ code: number; out: string; err: string }> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      [CLI, ...args],
      { cwd, env: { ...process.env, CI: 'true', SSH_AUTH_SOCK: '' }, maxBuffer: 64 * 1024 * 1024 },
      (error, out, err) => done({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, out, err }),
    );
  });
}

/** Run here: they read the inventory and the bundle, or write a file; no SSH. */
const RUN_HERE: readonly string[] = [
  'kcluster init --control-plane 10.0.0.1 --worker 10.0.0.2 --file inventory.yaml',
  'kcluster validate -i inventory.yaml',
  'kcluster config -i inventory.yaml > effective.yaml',
  'kcluster config -i inventory.yaml --host cp1',
  'kcluster config -i inventory.yaml --resolved -o json',
  'kcluster artifacts list -i inventory.yaml',
  'kcluster artifacts list -i inventory.yaml --fetch',
];

const HOSTS = 'hosts:\n  - { name: cp1, address: 10.231.99.11, roles: [control-plane] }\n  - { name: w3, address: 10.231.99.13, roles: [worker] }\n';

/** A folder with inventory.yaml (and its key and bundle), as the examples expect to be run in. */
function exampleFolder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'kc-examples-'));
  const bundle = writeFakeBundleWithPieces(join(dir, 'bundle'), [loadInventoryText(dir, `cluster:\n  artifacts: { source: bundle, bundle: /x }\n${HOSTS}`)]);
  writeFileSync(join(dir, 'key'), 'not a key\n', { mode: 0o600 });
  writeFileSync(
    join(dir, 'inventory.yaml'),
    `cluster:\n  name: examples\n  artifacts: { source: bundle, bundle: ${bundle} }\nstateDir: ${join(dir, 'state')}\nssh: { user: root, keyFile: ${join(dir, 'key')} }\n${HOSTS}`,
  );
  return dir;
}

/** The example's words after `kcluster`, and the file a `> FILE` redirect writes. */
function parse(example: string): { args: string[]; redirect?: string } {
  const [command, redirect] = example.split(' > ');
  return { args: command!.trim().split(/\s+/).slice(1), ...(redirect !== undefined ? { redirect: redirect.trim() } : {}) };
}

describe('the help examples that need no host', () => {
  it('every example is run here or listed as needing a lab', () => {
    const all = [...new Set(Object.values(HELP_EXAMPLES).flat())];
    const here = new Set(RUN_HERE);
    const needLab = all.filter((e) => !here.has(e));
    // The rest start a lab, reach hosts or a cluster, a state store (test/integration/state-store/state-command.test.ts runs those), or need root.
    for (const example of needLab)
      expect(example, 'an example here would be run by this test').toMatch(
        /kcluster (lab|apply|upgrade|reset|etcd|remove-node|certs|secrets|status|state|plan|report|bundle|artifacts verify|kubeconfig|run|facts|trust)\b/,
      );
    for (const example of RUN_HERE) expect(all, 'RUN_HERE names an example help no longer has').toContain(example);
  });

  it.each(RUN_HERE)(
    '%s',
    async (example) => {
      const dir = exampleFolder();
      // init writes a new inventory.yaml: it runs in a folder of its own.
      const cwd = example.startsWith('kcluster init') ? join(dir, 'init') : dir;
      mkdirSync(cwd, { recursive: true });
      const { args, redirect } = parse(example);
      const r = await kclusterIn(cwd, args);
      expect(r.code, r.err).toBe(0);
      if (redirect !== undefined) writeFileSync(join(cwd, redirect), r.out);
      // Each prints what it is for (init writes its file and says so on stderr).
      expect(r.out.length + r.err.length).toBeGreaterThan(0);
    },
    60_000,
  );
});
