import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { quoteWord, sh, shellRaw } from '../../src/orchestrator/ssh/quote.js';

// Run the quoted text through a real /bin/sh and read back what it received.
function echoThroughShell(value: string): string {
  const command = sh`printf '%s' ${value}`;
  return execFileSync('/bin/sh', ['-c', command.text], { encoding: 'utf8' });
}

describe('sh quoting', () => {
  const hostile = ["'; touch /tmp/pwned #", '$(touch /tmp/pwned)', '`touch /tmp/pwned`', 'a b\tc\nd', "it's", '"double" \\ back', '', '-rf', '*', '~root'];
  it.each(hostile)('passes %j through a real shell unchanged', (value) => {
    expect(echoThroughShell(value)).toBe(value);
  });

  it('leaves safe words bare and quotes the rest', () => {
    expect(quoteWord('/etc/motd')).toBe('/etc/motd');
    expect(quoteWord('a b')).toBe("'a b'");
    expect(quoteWord("it's")).toBe("'it'\\''s'");
  });

  it('splices commands and arrays', () => {
    const inner = sh`echo ${'x y'}`;
    expect(sh`${inner} && ls ${['a', 'b c']}`.text).toBe("echo 'x y' && ls a 'b c'");
    expect(sh`${shellRaw('true')}`.text).toBe('true');
  });
});
