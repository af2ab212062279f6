// Each common fact's real script through a real local /bin/sh, against temp files, then its
// parser: proves the script + parser pair end to end, hostile names included.
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fileState, parseFileState } from '../../../src/orchestrator/facts/file-state.js';
import { sysctlValue } from '../../../src/orchestrator/facts/sysctl-value.js';
import { commandPath } from '../../../src/orchestrator/facts/command-path.js';
import { osRelease, parseOsReleaseFacts } from '../../../src/orchestrator/facts/os-release.js';
import { systemdUnit } from '../../../src/orchestrator/facts/systemd-unit.js';
import { readFactLocally, runFactScript } from './support/read-fact-locally.js';

const dir = mkdtempSync(join(tmpdir(), 'kc-facts-'));
const sha = (b: Buffer | string): string => createHash('sha256').update(b).digest('hex');
const me = userInfo().username;
const HOSTILE = ["a b'c", '$(touch pwned)', '`touch pwned`', '"q";x', '-n'];

afterEach(() => {
  // None of the hostile names may have run anything.
  expect(existsSync(join(dir, 'pwned'))).toBe(false);
  expect(existsSync(join(process.cwd(), 'pwned'))).toBe(false);
});

describe('fileState (local /bin/sh)', () => {
  it.each(HOSTILE)('reads a text file named %j with its content', (name) => {
    const path = join(dir, `${name}.txt`);
    writeFileSync(path, 'héllo\n$(not run)\n');
    chmodSync(path, 0o640);
    const state = readFactLocally(fileState(path, { content: true }));
    expect(state).toEqual({
      exists: true,
      type: 'file',
      mode: '0640',
      owner: me,
      group: expect.any(String) as string,
      size: statSync(path).size,
      sha256: sha(readFileSync(path)),
      content: 'héllo\n$(not run)\n',
    });
  });

  it('reads binary content exactly (sha256) but gives no text for it', () => {
    const path = join(dir, "bin 'x'");
    const bytes = Buffer.from([0, 1, 2, 255, 10, 13, 0xc3]);
    writeFileSync(path, bytes);
    const state = readFactLocally(fileState(path, { content: true }));
    expect(state).toMatchObject({ exists: true, type: 'file', size: 7, sha256: sha(bytes) });
    expect(state.content).toBeUndefined();
  });

  it('keeps an empty file and a file without a final newline byte for byte', () => {
    writeFileSync(join(dir, 'empty'), '');
    writeFileSync(join(dir, 'no-newline'), 'abc');
    expect(readFactLocally(fileState(join(dir, 'empty'), { content: true }))).toMatchObject({ size: 0, content: '', sha256: sha('') });
    expect(readFactLocally(fileState(join(dir, 'no-newline'), { content: true }))).toMatchObject({ content: 'abc', sha256: sha('abc') });
  });

  it('reports a missing file, a directory and a symlink', () => {
    expect(readFactLocally(fileState(join(dir, 'missing $(x)'), { content: true }))).toEqual({ exists: false });
    const sub = join(dir, 'sub dir');
    mkdirSync(sub);
    expect(readFactLocally(fileState(sub, { content: true }))).toMatchObject({ exists: true, type: 'directory' });
    symlinkSync(join(dir, 'nowhere'), join(dir, 'dangling'));
    expect(readFactLocally(fileState(join(dir, 'dangling')))).toMatchObject({ exists: true, type: 'symlink' });
  });

  it('omits content over the size cap or when not asked, keeping the sha256', () => {
    const path = join(dir, 'big');
    writeFileSync(path, 'x'.repeat(100));
    const capped = readFactLocally(fileState(path, { content: true, maxContentBytes: 10 }));
    expect(capped).toMatchObject({ size: 100, sha256: sha('x'.repeat(100)) });
    expect(capped.content).toBeUndefined();
    expect(readFactLocally(fileState(path))).toMatchObject({ sha256: sha('x'.repeat(100)) });
  });

  it('uses distinct keys for distinct reads of one path', () => {
    expect([fileState('/a', { content: true }).key, fileState('/a').key, fileState('/a', { content: true, maxContentBytes: 5 }).key]).toEqual([
      'file:/a',
      'file:/a#meta',
      'file:/a#max=5',
    ]);
  });

  it('refuses garbage instead of guessing', () => {
    expect(() => parseFileState('regular file|rw-r--r--|root|root|12\n')).toThrow('unexpected stat output');
    expect(() => parseFileState('regular file|644|root|root|5\ncontent\nYWJj\n')).toThrow('5 bytes announced, 3 received');
  });
});

describe('sysctlValue (local /bin/sh)', () => {
  it('reads a live kernel value and a missing key', () => {
    expect(readFactLocally(sysctlValue('kernel.ostype'))).toEqual({ present: true, value: readFileSync('/proc/sys/kernel/ostype', 'utf8').trim() });
    expect(readFactLocally(sysctlValue('kernel.no_such_key'))).toEqual({ present: false });
    expect(sysctlValue('net.ipv4.ip_forward').key).toBe('sysctl:net.ipv4.ip_forward');
  });
  it('normalises multi-value settings (tabs) to single spaces', () => {
    const raw = readFileSync('/proc/sys/kernel/printk', 'utf8').trim();
    expect(readFactLocally(sysctlValue('kernel.printk')).value).toBe(raw.split(/\s+/).join(' '));
  });
  it('rejects keys that would escape /proc/sys', () => {
    expect(() => sysctlValue('../../etc/passwd')).toThrow('invalid sysctl key');
    expect(() => sysctlValue('a;b')).toThrow('invalid sysctl key');
  });
});

describe('commandPath (local /bin/sh)', () => {
  it('finds an executable on PATH, not a shell builtin name', () => {
    const expected = execFileSync('/bin/sh', ['-c', 'command -v ls'], { encoding: 'utf8' }).trim();
    expect(readFactLocally(commandPath('ls'))).toBe(expected);
    expect(readFactLocally(commandPath('test'))).toMatch(/^\/.*\/test$/);
  });
  it('is null for a missing command, hostile names included', () => {
    expect(readFactLocally(commandPath('no-such-command-kc'))).toBeNull();
    expect(readFactLocally(commandPath('$(touch pwned)'))).toBeNull();
    expect(() => commandPath('/bin/ls')).toThrow('without "/"');
  });
});

describe('osRelease', () => {
  it('reads this machine and detects its family', () => {
    const facts = readFactLocally(osRelease());
    const expectedId = /^ID=(.*)$/m.exec(readFileSync('/etc/os-release', 'utf8'))?.[1]?.replace(/"/g, '');
    expect(facts.id).toBe(expectedId);
    expect(facts.family).toBe('debian');
  });
  it('parses quoted values and families by ID_LIKE, unknown distros included', () => {
    expect(parseOsReleaseFacts('ID="rocky"\nID_LIKE="rhel centos fedora"\nVERSION_ID="9.4"\nPRETTY_NAME="Rocky Linux 9.4"\n')).toEqual({
      id: 'rocky',
      idLike: ['rhel', 'centos', 'fedora'],
      versionId: '9.4',
      prettyName: 'Rocky Linux 9.4',
      family: 'rhel',
    });
    expect(parseOsReleaseFacts('ID=linuxmint\nID_LIKE="ubuntu debian"\n').family).toBe('debian');
    expect(parseOsReleaseFacts('ID=alpine\nVERSION_ID=3.20.0\n').family).toBeUndefined();
    expect(() => parseOsReleaseFacts('', 3)).toThrow('os-release');
  });
});

describe('systemdUnit', () => {
  it('parses one systemctl show', () => {
    const fact = systemdUnit('a b.service');
    expect(fact.key).toBe('systemd:a b.service');
    expect(fact.script.text).toContain("-- 'a b.service'");
    const out =
      'LoadState=loaded\nActiveState=active\nSubState=running\nUnitFileState=enabled\nFragmentPath=/etc/systemd/system/a.service\nNeedDaemonReload=no\n';
    expect(fact.parse(out, 0)).toEqual({
      loadState: 'loaded',
      activeState: 'active',
      subState: 'running',
      unitFileState: 'enabled',
      fragmentPath: '/etc/systemd/system/a.service',
      needDaemonReload: false,
    });
  });
  it('fails when systemctl does', () => {
    expect(() => systemdUnit('x.service').parse('', 1)).toThrow('exited 1');
  });
  it('runs against the local systemctl when there is one', () => {
    const fact = systemdUnit('kcluster-no-such.service');
    const { stdout, code } = runFactScript(fact);
    // Without a running systemd (some containers) `systemctl show` fails: the parser must say so.
    if (code === 0) expect(fact.parse(stdout, code).loadState).toBe('not-found');
    else expect(() => fact.parse(stdout, code)).toThrow(`exited ${code}`);
  });
});
