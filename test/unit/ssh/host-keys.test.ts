// known_hosts matching, trust-on-first-use pins, and mismatch refusals.
import { createHmac } from 'node:crypto';
import { mkdtempSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { fingerprintSha256 } from '../../../src/orchestrator/ssh/fingerprint.js';
import { HostKeyPolicy } from '../../../src/orchestrator/ssh/host-key-policy.js';
import { entryMatches, hostToken, parseKnownHosts, readKnownHostsFile } from '../../../src/orchestrator/ssh/known-hosts.js';
import { hostKeyAlgorithms } from '../../../src/orchestrator/ssh/host-key-algorithms.js';
import { trustHostKey } from '../../../src/orchestrator/ssh/trust-host-key.js';
import { UnreachableError } from '../../../src/orchestrator/ssh/connection.js';
import { mkdirSync } from 'node:fs';

const dir = mkdtempSync(join(tmpdir(), 'kc-keys-'));

function newKey(name: string): { blob: Buffer; line: string } {
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(dir, name)]);
  const line = readFileSync(join(dir, `${name}.pub`), 'utf8').trim();
  return { blob: Buffer.from(line.split(' ')[1]!, 'base64'), line: line.split(' ').slice(0, 2).join(' ') };
}

describe('known_hosts', () => {
  it('matches plain, [host]:port, negated and hashed patterns', () => {
    const salt = Buffer.from('0123456789abcdef0123');
    const hash = createHmac('sha1', salt).update('[10.0.0.7]:2222').digest('base64');
    const entries = parseKnownHosts(
      [
        `a.example,10.0.0.1 ssh-ed25519 AAAA`,
        `[10.0.0.2]:2222 ssh-ed25519 BBBB`,
        `*.lab,!bad.lab ssh-ed25519 CCCC`,
        `|1|${salt.toString('base64')}|${hash} ssh-ed25519 DDDD`,
        '# comment',
        '@cert-authority * ssh-ed25519 EEEE',
      ].join('\n'),
      'kh',
    );
    expect(entries).toHaveLength(4);
    expect(entryMatches(entries[0]!, [hostToken('10.0.0.1', 22)])).toBe(true);
    expect(entryMatches(entries[1]!, [hostToken('10.0.0.2', 22)])).toBe(false);
    expect(entryMatches(entries[1]!, [hostToken('10.0.0.2', 2222)])).toBe(true);
    expect(entryMatches(entries[2]!, ['good.lab'])).toBe(true);
    expect(entryMatches(entries[2]!, ['bad.lab'])).toBe(false);
    expect(entryMatches(entries[3]!, [hostToken('10.0.0.7', 2222)])).toBe(true);
    expect(entryMatches(entries[3]!, [hostToken('10.0.0.8', 2222)])).toBe(false);
  });

  it('matches names case-insensitively, wildcards included, and [host]:port literally', () => {
    const [plain, wild] = parseKnownHosts('Node1.Lab ssh-ed25519 AAAA\n[10.0.0.?]:22* ssh-ed25519 BBBB', 'kh');
    expect(entryMatches(plain!, ['node1.lab'])).toBe(true);
    expect(entryMatches(plain!, ['node1xlab'])).toBe(false);
    expect(entryMatches(wild!, ['[10.0.0.5]:2222'])).toBe(true);
    expect(entryMatches(wild!, ['[10.0.0.55]:2222'])).toBe(false);
  });

  it('reads a file again once it changed (a pin appended, a rewrite of the same size)', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'kc-kh-')), 'known_hosts');
    expect(readKnownHostsFile(file)).toEqual([]);
    writeFileSync(file, 'a ssh-ed25519 AAAA\n');
    expect(readKnownHostsFile(file).map((e) => e.keyBase64)).toEqual(['AAAA']);
    writeFileSync(file, 'a ssh-ed25519 AAAA\nb ssh-ed25519 BBBB\n');
    expect(readKnownHostsFile(file).map((e) => e.keyBase64)).toEqual(['AAAA', 'BBBB']);
    const later = new Date(Date.now() + 5000);
    writeFileSync(file, 'a ssh-ed25519 CCCC\nb ssh-ed25519 DDDD\n');
    utimesSync(file, later, later);
    expect(readKnownHostsFile(file).map((e) => e.keyBase64)).toEqual(['CCCC', 'DDDD']);
  });

  it('prints fingerprints exactly as ssh-keygen does', () => {
    const key = newKey('fp');
    const expected = execFileSync('ssh-keygen', ['-l', '-f', join(dir, 'fp.pub')], { encoding: 'utf8' }).split(' ')[1];
    expect(fingerprintSha256(key.blob)).toBe(expected);
  });
});

describe('host key policy', () => {
  const target = { name: 'node1', address: '10.0.0.5', port: 22 };

  it('pins on first use (0600 file), accepts the same key, refuses another with both fingerprints', () => {
    const pinFile = join(dir, 'state', 'known_hosts');
    const policy = new HostKeyPolicy({ knownHostsFiles: [join(dir, 'none')], pinFile, strict: false, inventoryFile: 'inv.yaml' });
    const first = newKey('tofu1');
    expect(policy.check(target, first.blob)).toMatchObject({ ok: true, source: 'pinned-now' });
    expect(statSync(pinFile).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'state')).mode & 0o777).toBe(0o700);
    expect(policy.check(target, first.blob)).toMatchObject({ ok: true, source: 'pinned' });
    const other = newKey('tofu2');
    const verdict = policy.check(target, other.blob);
    expect(verdict.ok).toBe(false);
    const message = verdict.ok ? '' : verdict.error.message;
    expect(message).toContain(fingerprintSha256(first.blob));
    expect(message).toContain(fingerprintSha256(other.blob));
    expect(message).toContain('kcluster trust --refresh node1 -i inv.yaml');
    expect(policy.unpin(target)).toBe(1);
    expect(policy.check(target, other.blob)).toMatchObject({ ok: true, source: 'pinned-now' });
  });

  it('trusts the user known_hosts first and refuses a mismatch there, naming file and line', () => {
    const known = newKey('known');
    const file = join(dir, 'user_known_hosts');
    writeFileSync(file, `# header\n10.0.0.5 ${known.line}\n`);
    const policy = new HostKeyPolicy({ knownHostsFiles: [file], pinFile: join(dir, 'state2', 'known_hosts'), strict: false, inventoryFile: 'inv.yaml' });
    expect(policy.check(target, known.blob)).toMatchObject({ ok: true, source: 'known_hosts' });
    const verdict = policy.check(target, newKey('intruder').blob);
    expect(verdict.ok ? '' : verdict.error.message).toContain(`from ${file}:2`);
  });

  it('refuses revoked keys and unknown keys in strict mode', () => {
    const revoked = newKey('revoked');
    const file = join(dir, 'revoked_hosts');
    writeFileSync(file, `@revoked * ${revoked.line}\n`);
    const strict = new HostKeyPolicy({ knownHostsFiles: [file], pinFile: join(dir, 'state3', 'known_hosts'), strict: true, inventoryFile: 'inv.yaml' });
    expect(strict.check(target, revoked.blob).ok).toBe(false);
    const unknown = strict.check(target, newKey('unknown').blob);
    expect(unknown.ok ? '' : unknown.error.message).toContain('strict host key checking');
  });

  it('a mismatch is an UnreachableError subclass carrying both fingerprints and the source line', () => {
    const pinned = newKey('sub1');
    const file = join(dir, 'sub_known_hosts');
    writeFileSync(file, `[10.0.0.9]:2222 ${pinned.line}\n`);
    const policy = new HostKeyPolicy({ knownHostsFiles: [file], pinFile: join(dir, 'sub-state', 'known_hosts'), strict: false, inventoryFile: 'inv.yaml' });
    const port2222 = { name: 'n9', address: '10.0.0.9', port: 2222 };
    expect(policy.check({ ...port2222, port: 22 }, newKey('sub2').blob)).toMatchObject({ ok: true, source: 'pinned-now' });
    const presented = newKey('sub3');
    const verdict = policy.check(port2222, presented.blob);
    if (verdict.ok) throw new Error('expected a refusal');
    expect(verdict.error).toBeInstanceOf(UnreachableError);
    expect(verdict.error.message.startsWith('n9: ')).toBe(true);
    expect(verdict.error.message).toContain('10.0.0.9:2222');
    expect(verdict.error.expected).toEqual({ fingerprint: fingerprintSha256(pinned.blob), source: `${file}:1` });
    expect(verdict.error.presented).toBe(fingerprintSha256(presented.blob));
    expect(verdict.error.message).toContain(`ssh-keygen -f ${file} -R '[10.0.0.9]:2222'`);
  });

  it('refuses a key revoked under a hashed host name even when another file would accept it', () => {
    const key = newKey('hashrev');
    const salt = Buffer.from('salt-for-revocation!');
    const hash = createHmac('sha1', salt).update('10.0.0.5').digest('base64');
    const revokedFile = join(dir, 'hashed_revoked');
    writeFileSync(revokedFile, `@revoked |1|${salt.toString('base64')}|${hash} ${key.line}\n`);
    const pinFile = join(dir, 'state-rev', 'known_hosts');
    const policy = new HostKeyPolicy({ knownHostsFiles: [revokedFile], pinFile, strict: false, inventoryFile: 'inv.yaml' });
    policy.pin(target, key.blob);
    const verdict = policy.check(target, key.blob);
    expect(verdict.ok ? '' : verdict.error.message).toContain(`@revoked in ${revokedFile}:1`);
  });

  it('makes an existing state folder 0700 and keeps the pin file 0600 across re-keys', () => {
    const state = join(dir, 'state-open');
    mkdirSync(state, { mode: 0o755 });
    const policy = new HostKeyPolicy({ knownHostsFiles: [], pinFile: join(state, 'known_hosts'), strict: false, inventoryFile: 'inv.yaml' });
    policy.pin(target, newKey('perm1').blob);
    expect(statSync(state).mode & 0o777).toBe(0o700);
    expect(policy.replacePin(target, newKey('perm2').blob)).toBe(1);
    expect(statSync(join(state, 'known_hosts')).mode & 0o777).toBe(0o600);
    expect(readFileSync(join(state, 'known_hosts'), 'utf8').trim().split('\n')).toHaveLength(1);
  });

  it('offers the known key types first in the handshake, rsa as its signature algorithms', () => {
    expect(hostKeyAlgorithms([])).toBeUndefined();
    expect(hostKeyAlgorithms(['ecdsa-sha2-nistp256'])?.slice(0, 2)).toEqual(['ecdsa-sha2-nistp256', 'ssh-ed25519']);
    expect(hostKeyAlgorithms(['ssh-rsa'])?.slice(0, 3)).toEqual(['rsa-sha2-512', 'rsa-sha2-256', 'ssh-rsa']);
    const all = hostKeyAlgorithms(['ssh-rsa', 'ssh-ed25519']) ?? [];
    expect(new Set(all).size).toBe(all.length);
    const ecdsa = newKey('ecdsa-type');
    const file = join(dir, 'types_known_hosts');
    writeFileSync(file, `10.0.0.5 ecdsa-sha2-nistp256 ${ecdsa.blob.toString('base64')}\n@revoked 10.0.0.5 ${ecdsa.line}\n`);
    const policy = new HostKeyPolicy({ knownHostsFiles: [file], pinFile: join(dir, 'types-state', 'known_hosts'), strict: false, inventoryFile: 'inv.yaml' });
    expect(policy.knownKeyTypes(target)).toEqual(['ecdsa-sha2-nistp256']);
  });
});

describe('trust decisions (kcluster trust)', () => {
  const target = { name: 'node7', address: '10.0.0.7', port: 2200 };

  it('pins an unknown key, keeps a matching one, refuses a changed pin unless refresh', () => {
    const pinFile = join(dir, 'trust-state', 'known_hosts');
    const policy = new HostKeyPolicy({ knownHostsFiles: [], pinFile, strict: true, inventoryFile: 'inv.yaml' });
    const first = newKey('trust1');
    expect(trustHostKey(policy, target, first.blob, false)).toMatchObject({
      kind: 'pinned',
      fingerprint: fingerprintSha256(first.blob),
      keyType: 'ssh-ed25519',
      where: pinFile,
    });
    expect(readFileSync(pinFile, 'utf8')).toBe(`[10.0.0.7]:2200,[node7]:2200 ${first.line}\n`);
    expect(trustHostKey(policy, target, first.blob, true)).toMatchObject({ kind: 'already-trusted', where: `${pinFile}:1` });
    const second = newKey('trust2');
    const refused = trustHostKey(policy, target, second.blob, false);
    expect(refused.kind).toBe('refused');
    expect(policy.check(target, first.blob).ok).toBe(true);
    expect(trustHostKey(policy, target, second.blob, true)).toMatchObject({ kind: 're-keyed', previous: fingerprintSha256(first.blob), forgotten: 1 });
    expect(policy.check(target, second.blob)).toMatchObject({ ok: true, source: 'pinned' });
    expect(policy.check(target, first.blob).ok).toBe(false);
  });

  it('never rewrites the user known_hosts, even with refresh', () => {
    const known = newKey('trust-user');
    const file = join(dir, 'trust_user_known_hosts');
    writeFileSync(file, `[10.0.0.7]:2200 ${known.line}\n`);
    const policy = new HostKeyPolicy({ knownHostsFiles: [file], pinFile: join(dir, 'trust-state2', 'known_hosts'), strict: false, inventoryFile: 'inv.yaml' });
    const outcome = trustHostKey(policy, target, newKey('trust-new').blob, true);
    expect(outcome).toMatchObject({ kind: 'refused', hint: `${file} is not kcluster's pin file, so --refresh does not change it` });
    expect(readFileSync(file, 'utf8')).toBe(`[10.0.0.7]:2200 ${known.line}\n`);
  });
});
