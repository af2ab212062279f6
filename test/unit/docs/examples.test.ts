// The inventories users copy work as written: every file in examples/ and the annotated
// template inventory.example.yaml load with the real loader without an error or a warning
// (given a home with the key they name) and pass `kcluster validate` (pointed at a bundle that
// lists what they need); the values the template
// writes out are kcluster's defaults; nothing of the demo role is left in them.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { runCli, type CliResult } from '../cli/support/run-cli.js';
import { writeFakeBundle } from '../support/fake-bundle.js';
import { formatDiagnostic, loadInventory } from '../../../src/kubernetes/inventory/load-inventory.js';
import { schemaEntries, type SchemaNode } from '../../../src/kubernetes/inventory/schema-entries.js';

const schema = JSON.parse(readFileSync('src/kubernetes/inventory/inventory.schema.json', 'utf8')) as SchemaNode;
const EXAMPLES = readdirSync('examples')
  .filter((f) => f.endsWith('.yaml'))
  .sort()
  .map((f) => join('examples', f));
const FILES = ['inventory.example.yaml', ...EXAMPLES];
const WANTED = [
  'examples/air-gapped.yaml',
  'examples/docker.yaml',
  'examples/dual-stack.yaml',
  'examples/ha-load-balancer.yaml',
  'examples/ha-local-proxy.yaml',
  'examples/minimal.yaml',
  'examples/team-state-store.yaml',
];

const home = mkdtempSync(join(tmpdir(), 'kc-examples-'));
mkdirSync(join(home, '.ssh'));
writeFileSync(join(home, '.ssh', 'id_ed25519'), 'a key\n', { mode: 0o600 });

/**
 * validate checks that the bundle is there and lists what the inventory needs: the copy it
 * reads, beside the file, names a bundle that does (test/unit/support/fake-bundle.ts).
 */
async function validate(file: string): Promise<CliResult> {
  const loaded = await loadInventory(file, { env: {}, homeDir: home });
  if (!loaded.ok) throw new Error(loaded.errors.map(formatDiagnostic).join('\n'));
  const bundle = writeFakeBundle(mkdtempSync(join(home, 'bundle-')), [loaded.inventory]);
  const copy = join(mkdtempSync(join(home, 'copy-')), basename(file));
  writeFileSync(copy, readFileSync(file, 'utf8').replace(/^(\s+bundle:\s*)\S+/m, `$1${bundle}`));
  // The credentials a registry or the control planes' store upload names must be set on the controller, as for apply.
  const r = await runCli(['validate', '-i', copy], {
    SSH_AUTH_SOCK: '/x',
    REGISTRY_USER: 'u',
    REGISTRY_PASSWORD: 'p',
    KCLUSTER_SNAPSHOT_ACCESS_KEY_ID: 'id',
    KCLUSTER_SNAPSHOT_SECRET_ACCESS_KEY: 'secret',
  });
  return {
    ...r,
    err: r.err
      .split('\n')
      .filter((l) => !/: warning: ssh\.keyFile: key file .* does not exist$/.test(l))
      .join('\n'),
  };
}

/** The value at a dotted path of a parsed document, if every step is a plain key. */
function at(doc: unknown, path: string): unknown {
  return path.split('.').reduce<unknown>((node, key) => (typeof node === 'object' && node !== null ? (node as Record<string, unknown>)[key] : undefined), doc);
}

describe('example inventories', () => {
  it('examples/ holds the layouts the docs promise', () => {
    expect(EXAMPLES).toEqual(expect.arrayContaining(WANTED));
  });

  it('examples/README.md lists every example', () => {
    const readme = readFileSync('examples/README.md', 'utf8');
    for (const file of EXAMPLES) expect(readme).toContain(`](${file.slice('examples/'.length)})`);
  });

  it.each(FILES)('%s loads with no error and no warning', async (file) => {
    const result = await loadInventory(file, { env: {}, homeDir: home });
    const problems = [...(result.ok ? [] : result.errors), ...result.warnings].map(formatDiagnostic);
    expect(problems).toEqual([]);
  });

  it.each(FILES)('%s passes kcluster validate', async (file) => {
    const r = await validate(file);
    expect(r.err).toBe('');
    expect(r).toMatchObject({ code: 0, out: expect.stringMatching(/: valid \(/) });
  });

  it.each(FILES)('%s names the schema for editors and uses only the vars kcluster reads', (file) => {
    const text = readFileSync(file, 'utf8');
    expect(text.split('\n')[0]).toMatch(/^# yaml-language-server: \$schema=(\.\.\/|\.\/)src\/kubernetes\/inventory\/inventory\.schema\.json$/);
    const doc = parse(text) as { vars?: object; groups?: Record<string, { vars?: object }>; hosts: { vars?: object }[] };
    const shipped = Object.keys((schema as { definitions: { vars: { properties: object } } }).definitions.vars.properties);
    const used = [doc.vars, ...Object.values(doc.groups ?? {}).map((g) => g.vars), ...doc.hosts.map((h) => h.vars)].flatMap((v) => Object.keys(v ?? {}));
    expect(used.filter((name) => !shipped.includes(name))).toEqual([]);
    expect(text).not.toMatch(/\bmotd\b|\bdmz\b/);
  });
});

describe('inventory.example.yaml, the template', () => {
  const text = readFileSync('inventory.example.yaml', 'utf8');
  const doc = parse(text) as unknown;
  // The values a user must choose; every other value the template writes is the default.
  const CHOSEN = new Set(['cluster.name', 'cluster.artifacts.source', 'cluster.artifacts.bundle', 'ssh.keyFile']);

  it('writes out only kcluster defaults, besides the values marked CHANGE', () => {
    const differing = schemaEntries(schema)
      .filter((e) => e.node.default !== undefined && !CHOSEN.has(e.path) && !/[[<]/.test(e.path))
      .map((e) => ({ path: e.path, written: at(doc, e.path), default: e.node.default }))
      .filter((e) => e.written !== undefined && JSON.stringify(e.written) !== JSON.stringify(e.default));
    expect(differing).toEqual([]);
  });

  it('marks every value a user must change', () => {
    for (const path of ['cluster.name', 'cluster.artifacts.bundle', 'ssh.keyFile']) {
      const key = path.split('.').pop()!;
      expect(text).toMatch(new RegExp(`^\\s*${key}: .*# CHANGE`, 'm'));
    }
  });

  it('logs in one way, the others in comments', () => {
    const ssh = at(doc, 'ssh') as Record<string, unknown>;
    expect(['keyFile', 'agent', 'passwordEnv'].filter((k) => k in ssh)).toEqual(['keyFile']);
    expect((doc as { hosts: object[] }).hosts.every((h) => !('user' in h) && !('bastion' in h) && !('keyFile' in h))).toBe(true);
  });
});
