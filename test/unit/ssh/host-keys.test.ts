// known_hosts matching, trust-on-first-use pins, and mismatch refusals.
import { createHmac } from 'node:crypto';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { fingerprintSha256 } from '../../../src/ssh/fingerprint.js';
import { HostKeyPolicy } from '../../../src/ssh/host-key-policy.js';
import { entryMatches, hostToken, parseKnownHosts } from '../../../src/ssh/known-hosts.js';

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
      [`a.example,10.0.0.1 ssh-ed25519 AAAA`, `[10.0.0.2]:2222 ssh-ed25519 BBBB`, `*.lab,!bad.lab ssh-ed25519 CCCC`, `|1|${salt.toString('base64')}|${hash} ssh-ed25519 DDDD`, '# comment', '@cert-authority * ssh-ed25519 EEEE'].join('\n'),
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

});
