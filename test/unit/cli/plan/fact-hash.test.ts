// A fact value's fingerprint: the same for the same value whatever its key order, different
// for any change in it (Buffers and Maps included), and salted per plan.
import { describe, expect, it } from 'vitest';
import { canonicalJson, factHash } from '../../../../src/cli/plan/fact-hash.js';

describe('fact hash', () => {
  it('ignores key order and spells out Buffers, Maps, Sets and undefined', () => {
    expect(canonicalJson({ b: 1, a: [undefined, null] })).toBe(canonicalJson({ a: [undefined, null], b: 1 }));
    expect(canonicalJson({ content: Buffer.from('x') })).toBe('{"content":{"$bytes":"78"}}');
    expect(
      canonicalJson(
        new Map([
          ['b', 1],
          ['a', 2],
        ]),
      ),
    ).toBe(
      canonicalJson(
        new Map([
          ['a', 2],
          ['b', 1],
        ]),
      ),
    );
    expect(canonicalJson(new Set([2, 1]))).toBe('{"$set":[1,2]}');
    expect(canonicalJson(undefined)).not.toBe(canonicalJson(null));
  });

  it('changes with the value and with the salt, never shows the value', () => {
    const value = { exists: true, content: 'secret-ish\n' };
    expect(factHash('s', value)).toBe(factHash('s', { content: 'secret-ish\n', exists: true }));
    expect(factHash('s', value)).not.toBe(factHash('s', { ...value, content: 'other\n' }));
    expect(factHash('s', new Map([['k', Buffer.from('a')]]))).not.toBe(factHash('s', new Map([['k', Buffer.from('b')]])));
    expect(factHash('s', value)).not.toBe(factHash('t', value));
    expect(factHash('s', value)).toMatch(/^[0-9a-f]{64}$/);
  });
});
