// Facts read in groups must read exactly what each fact's own script reads: both run here in
// a real local shell on real files and /proc/sys, and the parsed values are compared.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Fact } from '../../../src/orchestrator/engine/fact.js';
import { batchParts } from '../../../src/orchestrator/engine/gather-facts.js';
import { buildFactBatch, newNonce, parseFactBatch } from '../../../src/orchestrator/engine/fact-batch.js';
import { sh } from '../../../src/orchestrator/ssh/quote.js';
import { fileState, parseFileState } from '../../../src/orchestrator/facts/file-state.js';
import { splitFileStates } from '../../../src/orchestrator/facts/file-state-group.js';
import { splitUnitBlocks, systemdUnit } from '../../../src/orchestrator/facts/systemd-unit.js';
import { sysctlValue } from '../../../src/orchestrator/facts/sysctl-value.js';
import { packageState, splitPackageStates } from '../../../src/orchestrator/facts/package-state.js';
import { rhelAdapter } from '../../../src/orchestrator/os/rhel.js';

const shell = (text: string, program = 'sh'): { stdout: string; exitCode: number } => {
  try {
    return { stdout: execFileSync(program, ['-c', text], { encoding: 'utf8', env: { ...process.env, LC_ALL: 'C' } }), exitCode: 0 };
  } catch (error) {
    const e = error as { stdout: string; status: number };
    return { stdout: e.stdout, exitCode: e.status };
  }
};

function readAlone<T>(fact: Fact<T>): T {
  const r = shell(fact.script.text);
  return fact.parse(r.stdout, r.exitCode);
}
function readGrouped<T>(facts: Fact<T>[], program = 'sh'): T[] {
  const group = facts[0]!.group!;
  expect(new Set(facts.map((f) => f.group!.id)).size).toBe(1);
  const items = facts.map((f) => f.group!.item);
  const r = shell(group.script(items).text, program);
  return group.split(r.stdout, r.exitCode, items).map((s, i) => facts[i]!.parse(s.stdout, s.exitCode));
}

describe('file facts read as a group', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kc-group-'));
  writeFileSync(join(dir, 'small.conf'), 'a=1\nb=2\n');
  writeFileSync(join(dir, 'empty'), '');
  writeFileSync(join(dir, 'binary'), Buffer.from([0, 1, 2, 255, 10, 13]));
  writeFileSync(join(dir, 'large'), 'x'.repeat(300 * 1024));
  writeFileSync(join(dir, 'odd | name with spaces'), 'odd\n');
  writeFileSync(join(dir, 'after-odd'), 'z\n');
  writeFileSync(join(dir, ' $HOME \\t `x` *'), 'shell syntax in the name\n');
  mkdirSync(join(dir, 'a-directory'));
  symlinkSync(join(dir, 'small.conf'), join(dir, 'a-link'));
  const paths = [
    'small.conf',
    'missing',
    'empty',
    'binary',
    'large',
    'odd | name with spaces',
    'a-directory',
    'a-link',
    'after-odd',
    ' $HOME \\t `x` *',
    'missing/deeper',
  ].map((n) => join(dir, n));

  it('gives every file, with content asked, the state its own read gives', () => {
    const facts = paths.map((p) => fileState(p, { content: true }));
    const grouped = readGrouped(facts);
    expect(grouped).toEqual(facts.map(readAlone));
    expect(grouped[0]).toMatchObject({ exists: true, type: 'file', content: 'a=1\nb=2\n', size: 8 });
    expect(grouped[1]).toEqual({ exists: false });
    expect(grouped[4]).toMatchObject({ size: 300 * 1024, sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(grouped[4]).not.toHaveProperty('content');
  });

  it('reads the same under bash (sh is bash on RHEL-family hosts)', () => {
    const facts = paths.map((p) => fileState(p, { content: true }));
    expect(readGrouped(facts, 'bash')).toEqual(facts.map(readAlone));
  });

  it('does the same for metadata-only reads (every regular file summed on the host)', () => {
    const facts = paths.map((p) => fileState(p, { content: false }));
    expect(readGrouped(facts)).toEqual(facts.map(readAlone));
  });

  it('refuses output whose contents do not add up to the stat sizes', () => {
    const facts = paths.slice(0, 3).map((p) => fileState(p, { content: true }));
    const items = facts.map((f) => f.group!.item);
    const out = shell(facts[0]!.group!.script(items).text).stdout.replace(/@@content\n[^\n]*\n/, `@@content\n${Buffer.from('short').toString('base64')}\n`);
    expect(() => splitFileStates(out, 0, items, 256 * 1024)).toThrow(/changed during the read/);
    expect(parseFileState('absent\n')).toEqual({ exists: false });
  });
});

describe('sysctl facts read as a group', () => {
  it('read the same values as one cat per key, absent keys included', () => {
    const facts = ['net.ipv4.ip_forward', 'kernel.hostname', 'net.ipv4.ip_local_port_range', 'no.such.key'].map(sysctlValue);
    const grouped = readGrouped(facts);
    expect(grouped).toEqual(facts.map(readAlone));
    expect(grouped[3]).toEqual({ present: false });
    expect(grouped[2]!.value).toMatch(/^\d+ \d+$/);
    expect(readGrouped(facts, 'bash')).toEqual(grouped);
  });
});

describe('package facts read as a group', () => {
  // This machine is Debian: the group's one dpkg-query runs for real against its database.
  it('read with one dpkg-query what one query per package reads, unknown packages included', () => {
    const facts = ['coreutils', 'bash', 'no-such-package-kc', 'libc6'].map(packageState);
    const grouped = readGrouped(facts);
    expect(grouped).toEqual(facts.map(readAlone));
    expect(grouped[0]).toMatchObject({ installed: true, family: 'debian', version: expect.stringMatching(/^\d/) });
    expect(grouped[2]).toEqual({ installed: false, family: 'debian' });
    expect(facts[0]!.group!.script(['coreutils', 'bash']).text.match(/dpkg-query/g)).toHaveLength(1);
  });

  it('leave names with an architecture or a pattern to their own query', () => {
    expect(packageState('libc6:amd64').group).toBeUndefined();
    expect(packageState('lib*').group).toBeUndefined();
    expect(packageState('NetworkManager').group).toBeDefined();
  });

  it('cut rpm output (written here, no rpm on this machine) into one answer per name, each with its header', () => {
    const header = 'family=rhel\nid=rocky\nlike=rhel centos fedora\n';
    const out = `${header}@@kcluster-package\ninstalled 5.1.8-6.el9\n@@kcluster-package\npackage nope is not installed\nnot-installed\n`;
    const parsed = splitPackageStates(out, 0, ['bash', 'nope']).map((s) => packageState('x').parse(s.stdout, s.exitCode));
    expect(parsed).toEqual([
      { installed: true, version: '5.1.8-6.el9', family: 'rhel' },
      { installed: false, family: 'rhel' },
    ]);
    expect(() => rhelAdapter.splitPackagesQuery('@@kcluster-package\nnot-installed\n', ['a', 'b'])).toThrow(/answered for 1 of 2 packages/);
    expect(rhelAdapter.packagesQuery(['bash', 'nope']).text.match(/rpm -q/g)).toHaveLength(1);
  });

  it('give every name the header of an unknown OS, so each fails as it would alone', () => {
    const out = 'family=\nid=alpine\nlike=\n';
    expect(() => packageState('x').parse(splitPackageStates(out, 0, ['x'])[0]!.stdout, 0)).toThrow();
  });
});

describe('systemd unit facts read as a group', () => {
  it('cut one systemctl show into one block per unit', () => {
    const out =
      'LoadState=loaded\nActiveState=active\nSubState=running\nFragmentPath=/lib/systemd/system/ssh.service\nUnitFileState=enabled\nNeedDaemonReload=no\n\nLoadState=not-found\nActiveState=inactive\nSubState=dead\nFragmentPath=\nUnitFileState=\nNeedDaemonReload=no\n';
    const facts = [systemdUnit('ssh.service'), systemdUnit('nope.service')];
    const parts = splitUnitBlocks(out, 0, ['ssh.service', 'nope.service']).map((s, i) => facts[i]!.parse(s.stdout, s.exitCode));
    expect(parts[0]).toMatchObject({ loadState: 'loaded', activeState: 'active', unitFileState: 'enabled' });
    expect(parts[1]).toMatchObject({ loadState: 'not-found', activeState: 'inactive' });
    expect(() => splitUnitBlocks('LoadState=loaded\n', 0, ['a.service', 'b.service'])).toThrow(/1 blocks for 2 units/);
  });
});

describe('group scripts that run in the batch shell itself (inline)', () => {
  // What the next section would see of the shell: options, IFS, working directory, and every
  // variable but the kc_* ones a group may leave behind.
  const state = `for kc_v in $(set | sed -n 's/^\\(kc_[A-Za-z0-9_]*\\)=.*/\\1/p'); do unset "$kc_v"; done; unset kc_v
{ printf '%s|' "$-" "\${IFS+set}" "$IFS" "$PWD"; set | grep -v -e '^_=' -e '^PIPESTATUS=' -e '^BASH_' -e '^LINENO=' -e '^SECONDS=' -e '^RANDOM=' -e '^SRANDOM=' -e '^EPOCH' -e '^BASHPID=' -e '^OPTIND=' -e '^PPID='; } | cksum`;
  const dir = mkdtempSync(join(tmpdir(), 'kc-inline-'));
  writeFileSync(join(dir, 'a.conf'), 'a\n');
  writeFileSync(join(dir, 'big'), 'x'.repeat(300 * 1024));
  const groups: Fact<unknown>[][] = [
    [join(dir, 'a.conf'), join(dir, 'big'), join(dir, 'missing')].map((p) => fileState(p, { content: true })),
    [join(dir, 'a.conf'), join(dir, 'big')].map((p) => fileState(p, { content: false })),
    ['coreutils', 'no-such-package-kc'].map(packageState),
    ['net.ipv4.ip_forward', 'no.such.key'].map(sysctlValue),
    ['ssh.service', 'nope.service'].map(systemdUnit),
  ];

  for (const facts of groups) {
    const group = facts[0]!.group!;
    it(`${group.id}: is marked inline, never exits and leaves the shell as it found it (sh and bash)`, () => {
      expect(group.inline).toBe(true);
      const script = group.script(facts.map((f) => f.group!.item)).text;
      for (const program of ['sh', 'bash']) {
        const out = shell(`${state}\n{ ${script}\n} </dev/null >/dev/null 2>&1\necho still-running\n${state}`, program).stdout.split('\n');
        expect(out[1]).toBe('still-running');
        expect(out[2]).toBe(out[0]);
      }
    });
  }

  it('a fact whose script exits keeps its subshell: the batch goes on after it', () => {
    const exiting = { key: 'x', script: sh`exit 4`, parse: (t: string) => t } as Fact<unknown>;
    const parts = batchParts([exiting, ...groups[3]!]);
    expect(parts.map((p) => p.inline === true)).toEqual([false, true]);
    const nonce = newNonce();
    const out = shell(buildFactBatch(parts, nonce).text).stdout;
    expect(parseFactBatch(out, 2, nonce).map((section) => section.exitCode)).toEqual([4, 0]);
  });
});

describe('batch parts', () => {
  it('put facts of one group in one part and leave a lone member on its own script', () => {
    const facts = [
      systemdUnit('a.service'),
      fileState('/etc/motd', { content: true }),
      systemdUnit('b.service'),
      sysctlValue('net.ipv4.ip_forward'),
    ] as Fact<unknown>[];
    const parts = batchParts(facts);
    expect(parts.map((p) => p.facts.map((f) => f.key))).toEqual([
      ['systemd:a.service', 'systemd:b.service'],
      ['file:/etc/motd'],
      ['sysctl:net.ipv4.ip_forward'],
    ]);
    expect(parts[0]!.script.text).toContain('-- a.service b.service');
    expect(parts[1]!.script).toBe(facts[1]!.script);
  });
});
