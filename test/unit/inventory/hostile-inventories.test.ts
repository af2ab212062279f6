// A generated corpus of hostile inventories (seeded, made at test time, never committed):
// wrong types in every key, missing keys, unicode, control characters and NUL, duplicates,
// circular and exploding aliases, deep nesting, huge values, shell metacharacters, random
// bytes and truncation. Every one must end in "valid" or in errors that each name a place,
// never a thrown exception, and a formatted message never carries a raw control character.
// A sample also goes through the real CLI: exit 0 or 2, never a stack trace.
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { formatDiagnostic, parseInventory } from '../../../src/kubernetes/inventory/load-inventory.js';

const run = promisify(execFile);
const CLI = resolve(import.meta.dirname, '../../../bin/kcluster.js');

/** mulberry32: a small seeded generator, so a failure names a seed that reproduces it. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const BASE = (): { [key: string]: Json } => ({
  cluster: {
    name: 'lab',
    kubernetesVersion: 'v1.35.8',
    podCIDR: '10.244.0.0/16',
    serviceCIDR: '10.96.0.0/12',
    clusterDomain: 'cluster.local',
    containerRuntime: 'containerd',
    cni: 'flannel',
    apiEndpoint: { host: '10.0.0.1', port: 6443 },
  },
  ssh: { user: 'root', agent: true, port: 22, connectTimeout: '10s', keepaliveInterval: '5s', connectRetries: 2 },
  hosts: [
    { name: 'cp1', address: '10.0.0.1', roles: ['control-plane'], vars: { a: 1 } },
    { name: 'w1', address: '10.0.0.2', roles: ['worker'], bastion: 'cp1' },
  ],
  groups: { edge: { hosts: ['w1'], vars: { zone: 'a' } } },
  vars: { motd: 'hello' },
});

const NASTY_STRINGS = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\u001b[31mred\u001b[0m',
  '\u001b]0;title\u0007',
  '\u009b31m',
  '\r\nInjected: line',
  '$(touch /tmp/pwned)',
  '`id`',
  "'; rm -rf / #",
  '"quoted"',
  '../../../../etc/passwd',
  '/dev/zero',
  '~',
  '*',
  '!all',
  '&worker',
  'ünïcødé-ホスト',
  '\ud83d\ude00',
  '\ud800',
  'x'.repeat(5000),
  '10.0.0.0/8',
  '0.0.0.0/0',
  '::/0',
  'v999.999.999',
  '-1',
  '1e400',
  '0x10',
  'NaN',
  '.inf',
  'null',
  'true',
  '__proto__',
  'constructor',
  '2147483648ms',
  '99999999m',
];
const NASTY_VALUES: Json[] = [
  ...NASTY_STRINGS,
  null,
  true,
  false,
  0,
  -1,
  1.5,
  2 ** 31,
  2 ** 53 + 1,
  -(2 ** 63),
  1e308,
  [],
  [null],
  {},
  { __proto__x: 1 },
  [[[[[]]]]],
  { a: { b: { c: {} } } },
];

function pick<T>(r: () => number, list: readonly T[]): T {
  return list[Math.floor(r() * list.length)]!;
}

/** Every path to a value in the document. */
function paths(value: Json, prefix: (string | number)[] = []): (string | number)[][] {
  const out: (string | number)[][] = [prefix];
  if (Array.isArray(value)) value.forEach((v, i) => out.push(...paths(v, [...prefix, i])));
  else if (value !== null && typeof value === 'object') for (const [k, v] of Object.entries(value)) out.push(...paths(v, [...prefix, k]));
  return out;
}

function setAt(doc: Json, path: (string | number)[], value: Json | undefined): void {
  let node = doc as Record<string | number, Json>;
  for (const segment of path.slice(0, -1)) node = node[segment] as Record<string | number, Json>;
  const last = path[path.length - 1]!;
  if (value === undefined) {
    if (Array.isArray(node)) node.splice(Number(last), 1);
    else delete node[last];
  } else node[last] = value;
}

function nested(depth: number, flow: boolean): string {
  if (flow) return `hosts: [{name: cp1, address: 10.0.0.1, roles: [control-plane], vars: ${'{k: '.repeat(depth)}1${'}'.repeat(depth)}}]\n`;
  let text = 'ssh: {agent: true}\nhosts:\n  - name: cp1\n    address: 10.0.0.1\n    roles: [control-plane]\n    vars:\n';
  for (let i = 0; i < depth; i++) text += `${' '.repeat(6 + i)}k:\n`;
  return `${text}${' '.repeat(6 + depth)}v\n`;
}

/** One hostile inventory text from a seed. */
export function hostileInventory(seed: number): string {
  const r = random(seed);
  const kind = Math.floor(r() * 10);
  const doc = BASE();
  switch (kind) {
    case 0:
    case 1:
    case 2: {
      // Replace or delete values anywhere, one to five times.
      for (let n = 1 + Math.floor(r() * 5); n > 0; n--) {
        const all = paths(doc).filter((p) => p.length > 0);
        setAt(doc, pick(r, all), r() < 0.15 ? undefined : structuredClone(pick(r, NASTY_VALUES)));
      }
      return stringify(doc);
    }
    case 3: {
      // A nasty key (unknown, control characters, __proto__, empty) in a random map.
      const maps = paths(doc).filter((p) => {
        let v: Json = doc;
        for (const segment of p) v = (v as Record<string, Json>)[segment]!;
        return v !== null && typeof v === 'object' && !Array.isArray(v);
      });
      let node: Json = doc;
      for (const segment of pick(r, maps)) node = (node as Record<string, Json>)[segment]!;
      // defineProperty: a plain assignment of "__proto__" would set the prototype, not a key.
      Object.defineProperty(node, pick(r, NASTY_STRINGS), {
        value: structuredClone(pick(r, NASTY_VALUES)),
        enumerable: true,
        writable: true,
        configurable: true,
      });
      return stringify(doc);
    }
    case 4: {
      // Aliases: self reference, nested self reference, exponential expansion, undefined alias.
      const variants = [
        'hosts: &a [*a]\n',
        'ssh: {agent: true}\nhosts:\n  - &h {name: cp1, address: 10.0.0.1, roles: [control-plane], vars: {self: *h}}\n',
        `ssh: {agent: true}\nhosts: [{name: cp1, address: 10.0.0.1, roles: [control-plane]}]\nvars:\n  a: &a ["x","x","x","x","x","x","x","x","x"]\n  b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\n  c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\n  d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\n  e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\n  f: [*e,*e,*e,*e,*e,*e,*e,*e,*e]\n`,
        'hosts: *nowhere\n',
        'a: &x 1\nhosts: [{name: *x, address: *x}]\n',
      ];
      return pick(r, variants);
    }
    case 5:
      return nested(pick(r, [65, 200, 1000, 3000]), r() < 0.5);
    case 6: {
      // Duplicates: keys, host names, addresses; overlapping CIDRs.
      const variants = [
        `${stringify(doc)}hosts: []\n`,
        stringify({ ...doc, hosts: [...(doc['hosts'] as Json[]), { name: 'cp1', address: '10.0.0.1', roles: ['control-plane'] }] }),
        stringify({ ...doc, cluster: { ...(doc['cluster'] as object), podCIDR: '10.96.0.0/16', serviceCIDR: '10.96.0.0/12' } }),
        stringify({ ...doc, groups: { all: { hosts: ['cp1'] }, cp1: { hosts: ['nobody', 'w2', 'cp'] } } }),
      ];
      return pick(r, variants);
    }
    case 7: {
      // Random bytes written over the text.
      const text = Buffer.from(stringify(doc));
      for (let n = 1 + Math.floor(r() * 8); n > 0; n--) text[Math.floor(r() * text.length)] = Math.floor(r() * 256);
      return text.toString('latin1');
    }
    case 8: {
      // Truncated at a random point; or only whitespace, comments, documents.
      const text = stringify(doc);
      return pick(r, [
        text.slice(0, Math.floor(r() * text.length)),
        '',
        '   \n',
        '# nothing\n',
        '---\n---\n',
        '--- !!binary AAAA\n',
        '[1, 2, 3]\n',
        '"just a string"\n',
        '!!js/function "x"\n',
        'hosts: !!set {a, b}\n',
      ]);
    }
    default: {
      // Many hosts with problems: names that do not exist, no credentials, long names.
      const count = 50 + Math.floor(r() * 300);
      const hosts = Array.from({ length: count }, (_, i) => ({
        name: r() < 0.1 ? 'x'.repeat(300) : `h${i}`,
        address: `10.1.${i >> 8}.${i & 255}`,
        roles: [i === 0 ? 'control-plane' : 'worker'],
        ...(r() < 0.2 ? { bastion: `nobody${i}` } : {}),
      }));
      const base = r() < 0.5 ? { hosts } : { ssh: { agent: false }, hosts };
      return stringify({ ...base, groups: { g: { hosts: Array.from({ length: count }, (_, i) => `missing-${i}`) } } });
    }
  }
}

// eslint-disable-next-line no-control-regex -- control characters are what it looks for
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

describe('hostile inventories (generated, seeded)', () => {
  const CORPUS = 1200;

  it(`${CORPUS} inventories: valid, or errors that each name a place; no exception; no raw control character`, () => {
    const slow: string[] = [];
    const problems: string[] = [];
    const kinds = { valid: 0, invalid: 0 };
    for (let seed = 1; seed <= CORPUS; seed++) {
      const text = hostileInventory(seed);
      const started = performance.now();
      let result;
      try {
        result = parseInventory(text, '/lab/inventory.yaml', { env: {}, homeDir: '/nonexistent-home' });
      } catch (error) {
        throw new Error(`seed ${seed}: parseInventory threw ${(error as Error).stack}`, { cause: error });
      }
      const ms = performance.now() - started;
      if (ms > 2000) slow.push(`seed ${seed}: ${ms.toFixed(0)} ms`);
      if (result.ok) {
        kinds.valid += 1;
        continue;
      }
      kinds.invalid += 1;
      // Checked by hand and gathered, not with one expect() per diagnostic: the corpus has
      // tens of thousands of diagnostics, and expect()'s own cost was most of this test's time.
      if (result.errors.length === 0) problems.push(`seed ${seed}: not ok, yet no error`);
      for (const d of [...result.errors, ...result.warnings]) {
        if (!(d.line >= 1 && d.col >= 1)) problems.push(`seed ${seed}: no place: ${JSON.stringify(d)}`);
        if (d.message.length === 0) problems.push(`seed ${seed}: empty message`);
        const line = formatDiagnostic(d);
        if (CONTROL.test(line)) problems.push(`seed ${seed}: raw control character in ${JSON.stringify(line)}`);
        if (/\n|\bat .*\.js:\d+|TypeError|RangeError|Maximum call stack/.test(line)) problems.push(`seed ${seed}: ${JSON.stringify(line)}`);
      }
    }
    expect(problems).toEqual([]);
    expect(slow).toEqual([]);
    // The corpus is hostile: most fail, and some mutations still leave a valid inventory.
    expect(kinds.invalid).toBeGreaterThan(CORPUS * 0.8);
  }, 300_000);

  it('a sample through the real CLI: exit 0 or 2 and a location, never a stack trace', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kc-hostile-'));
    for (const seed of [4, 5, 6, 15, 25, 35, 45, 55, 65, 75, 85, 95, 105, 115]) {
      const file = join(dir, `seed-${seed}.yaml`);
      writeFileSync(file, hostileInventory(seed), 'latin1');
      let code = 0;
      let stderr = '';
      try {
        await run(process.execPath, [CLI, 'validate', '-i', file], { env: { ...process.env, CI: 'true', NO_COLOR: '1', SSH_AUTH_SOCK: '' } });
      } catch (error) {
        code = (error as { code: number }).code;
        stderr = (error as { stderr: string }).stderr;
      }
      expect([0, 2], `seed ${seed}: exit ${code}\n${stderr}`).toContain(code);
      if (code === 2) expect(stderr, `seed ${seed}`).toMatch(new RegExp(`${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}(:\\d+:\\d+)?: `)); // the file alone: what apply refuses of the inputs as a whole (the artifacts)
      expect(stderr, `seed ${seed}`).not.toMatch(/internal error|\n\s+at /);
    }
  }, 120_000);
});
