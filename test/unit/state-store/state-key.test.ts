// The state key from a file, an environment variable or a passphrase: its fingerprint is stable
// and reveals nothing; a file others may read, a wrong length and a short passphrase are refused.
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fingerprintOf, StateKeyError, stateKeyFromEnv, stateKeyFromFile, stateKeyFromPassphrase } from '../../../src/orchestrator/state-store/state-key.js';

const dir = mkdtempSync(join(tmpdir(), 'kc-state-key-'));
const bytes = Buffer.from(Array.from({ length: 32 }, (_, i) => i));

describe('the state key', () => {
  it('reads 32 raw bytes or their base64 from a file only its owner reads, with the same fingerprint either way', () => {
    const raw = join(dir, 'raw.key');
    const text = join(dir, 'text.key');
    writeFileSync(raw, bytes, { mode: 0o600 });
    writeFileSync(text, `${bytes.toString('base64')}\n`, { mode: 0o600 });
    const a = stateKeyFromFile(raw);
    const b = stateKeyFromFile(text);
    expect(a.bytes).toEqual(bytes);
    expect(b.fingerprint).toBe(a.fingerprint);
    expect(a.fingerprint).toMatch(/^ks-[0-9a-f]{16}$/);
    expect(a.source).toBe(`the key file ${raw}`);
    // The fingerprint is no part of the key.
    expect(bytes.toString('hex')).not.toContain(a.fingerprint.slice(3));
  });

  it('refuses a key file its group or others may read, one of another size, and one that is missing', () => {
    const open = join(dir, 'open.key');
    writeFileSync(open, bytes);
    chmodSync(open, 0o644);
    expect(() => stateKeyFromFile(open)).toThrow(`the key file ${open}: its group or others may read it (mode 0644): chmod 600 ${open}`);
    const short = join(dir, 'short.key');
    writeFileSync(short, 'c2hvcnQ=\n', { mode: 0o600 });
    expect(() => stateKeyFromFile(short)).toThrow(StateKeyError);
    expect(() => stateKeyFromFile(join(dir, 'none.key'))).toThrow(`the key file ${join(dir, 'none.key')}: ENOENT`);
  });

  it('reads a base64 key from the environment, and names the variable when it is unset or not a key', () => {
    const env = { KEY: bytes.toString('base64'), BAD: 'not a key' };
    expect(stateKeyFromEnv('KEY', env).fingerprint).toBe(fingerprintOf(bytes));
    expect(() => stateKeyFromEnv('UNSET', env)).toThrow('the environment variable UNSET is not set');
    expect(() => stateKeyFromEnv('BAD', env)).toThrow('the environment variable BAD: not a state key');
  });

  it('derives the same key from the same passphrase and salt, another from another salt; refuses a short passphrase', () => {
    const cheap = { N: 2 ** 10, r: 8, p: 1 };
    const salt = Buffer.alloc(16, 1).toString('base64');
    const one = stateKeyFromPassphrase('correct horse battery', { salt, ...cheap }, 'the passphrase');
    const again = stateKeyFromPassphrase('correct horse battery', { salt, ...cheap }, 'the passphrase');
    const salted = stateKeyFromPassphrase('correct horse battery', { salt: Buffer.alloc(16, 2).toString('base64'), ...cheap }, 'the passphrase');
    expect(again.fingerprint).toBe(one.fingerprint);
    expect(salted.fingerprint).not.toBe(one.fingerprint);
    expect(() => stateKeyFromPassphrase('short', { salt, ...cheap }, 'the passphrase')).toThrow('at least 12 characters');
  });
});
