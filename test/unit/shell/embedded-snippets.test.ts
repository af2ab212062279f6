// Every shell snippet embedded in kcluster's TypeScript is syntax-checked (`sh -n`, dash, as the
// hosts run them) and passes shellcheck (issue 44: 170-odd snippets, reset's long `rm -rf`
// script among them, were never checked). The few fragments that are only shell once composed
// (a case arm, a command's tail) are checked in their composed form, built by the real
// functions. Needs shellcheck (Debian's package; src/lab/scripts/install-host-deps.sh installs it).
import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sh } from '../../../src/orchestrator/ssh/quote.js';
import { atomicWriteCommand } from '../../../src/orchestrator/ssh/atomic-write.js';
import { sessionGuardScript, stopCommandScript } from '../../../src/orchestrator/ssh/session-guard.js';
import { osFamilyScript, perFamilyScript } from '../../../src/orchestrator/os/family-script.js';
import { fileStateGroup } from '../../../src/orchestrator/facts/file-state-group.js';
import { embeddedSnippets } from './embedded-snippets.js';

const root = join(import.meta.dirname, '..', '..', '..');
const snippets = embeddedSnippets(root, ['src', 'roles', 'playbooks']);

/** Pieces that are shell only once composed: where, and the composed script that holds them. */
const FRAGMENTS: readonly (readonly [string, string])[] = [
  ['src/orchestrator/os/family-script.ts', 'osFamilyScript and perFamilyScript: case arms and the loop they close'],
  ['src/orchestrator/ssh/atomic-write.ts', "atomicWriteCommand: the chown tail of the write's command line"],
  ['src/orchestrator/ssh/session-guard.ts', 'sessionGuardScript and stopCommandScript: the loop body spliced into kc_hit'],
  ['src/orchestrator/facts/file-state-group.ts', 'fileStateGroup: the size test spliced into `[ "$kc_size" ... ]`'],
];
/** Each composed script, and the codes it may still raise with their reason. */
const COMPOSED: readonly (readonly [string, string, readonly string[]])[] = [
  // kc_family is what the script is for: its callers (perFamilyScript, below) read it.
  ['osFamilyScript()', osFamilyScript().text, ['SC2034']],
  ['perFamilyScript(...)', perFamilyScript((a) => sh`echo ${a.family}`).text, []],
  [
    'atomicWriteCommand(...)',
    atomicWriteCommand('/etc/kubernetes/a b.conf', { mode: 0o600, owner: 'root', group: 'root', mkdirParents: true }, { size: 3, sha256: 'a'.repeat(64) }).text,
    // A quoted path spliced into the double-quoted error message on purpose: one word.
    ['SC2140'],
  ],
  ['sessionGuardScript(...)', sessionGuardScript('0123456789abcdef').text, []],
  ['stopCommandScript(...)', stopCommandScript('0123456789abcdef.1').text, []],
  ...[100, -1].map((max) => [`fileStateGroup(path, ${max})`, fileStateGroup('/etc/a b', max)!.script(['/etc/a b', '/etc/c']).text, []] as const),
];

/**
 * shellcheck codes that say nothing about a snippet checked alone, with its interpolations as
 * one placeholder word: the placeholder stands for a list (SC2043), flags (SC2215) or a number
 * (SC2170); a variable is set or read by another part of the composed script (SC2154, SC2034).
 * SC2140: kcluster splices a quoted value into a double-quoted message on purpose
 * ("bytes for "'/a b'": ..." is one word).
 */
const MEANINGLESS_ALONE = ['SC2043', 'SC2215', 'SC2170', 'SC2154', 'SC2034', 'SC2140'];
/** Findings kept on purpose, each with its reason. */
const KEPT: readonly (readonly [string, string, string])[] = [
  ['src/orchestrator/facts/installed-binary.ts', 'SC2046', "set -- $(stat ...) splits stat's fields into $1..$5 on purpose"],
  ['roles/reset/index.ts', 'SC2038', 'find | xargs over cgroup.procs: PIDs have no blanks'],
];

const syntaxError = (text: string): string | undefined => {
  const r = spawnSync('sh', ['-n'], { input: text, encoding: 'utf8' });
  return r.status === 0 ? undefined : r.stderr.trim();
};

function shellcheck(text: string, exclude: readonly string[]): string[] {
  const r = spawnSync('shellcheck', ['-s', 'sh', '-f', 'gcc', '-S', 'warning', ...(exclude.length > 0 ? ['-e', exclude.join(',')] : []), '-'], {
    input: text,
    encoding: 'utf8',
  });
  if (r.error) throw r.error;
  return r.stdout
    .trim()
    .split('\n')
    .filter((l) => l !== '');
}

const isFragment = (where: string): boolean => FRAGMENTS.some(([file]) => where.startsWith(`${file}:`));

describe('embedded shell snippets', () => {
  it('finds them all (sh`...` and shellRaw of a literal)', () => {
    expect(snippets.length).toBeGreaterThan(150);
    expect(snippets.some((s) => s.where.startsWith('roles/reset/index.ts:'))).toBe(true);
  });

  it('every one is valid sh syntax, but the fragments named here', () => {
    const broken = snippets.filter((s) => !isFragment(s.where)).flatMap((s) => ((e) => (e === undefined ? [] : [`${s.where}: ${e}`]))(syntaxError(s.text)));
    expect(broken).toEqual([]);
  });

  it.each(COMPOSED)('the fragments composed by %s are valid sh and pass shellcheck', (_name, text, kept) => {
    expect(syntaxError(text)).toBeUndefined();
    expect(shellcheck(text, kept)).toEqual([]);
  });

  it('every one passes shellcheck (warnings and errors), but for what a snippet alone cannot say and the findings kept with a reason', () => {
    execFileSync('shellcheck', ['--version']);
    const findings = snippets
      .filter((s) => !isFragment(s.where))
      .flatMap((s) => {
        const kept = KEPT.filter(([file]) => s.where.startsWith(`${file}:`)).map(([, code]) => code);
        return shellcheck(s.text, [...MEANINGLESS_ALONE, ...kept]).map((line) => `${s.where}: ${line.replace(/^-:/, '')}`);
      });
    expect(findings).toEqual([]);
  });
});
