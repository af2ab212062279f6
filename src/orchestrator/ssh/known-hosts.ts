// Reading OpenSSH known_hosts files: plain and hashed host patterns, [host]:port for other
// ports, negation and wildcards, @revoked markers. Certificates (@cert-authority) are skipped.
import { createHmac } from 'node:crypto';
import { statSync } from 'node:fs';
import { MAX_KNOWN_HOSTS_BYTES, readBoundedFileSync } from '../util/bounded-file.js';

export interface KnownHostEntry {
  readonly file: string;
  readonly line: number;
  readonly patterns: string;
  readonly keyType: string;
  readonly keyBase64: string;
  readonly revoked: boolean;
}

export function parseKnownHosts(text: string, file: string): KnownHostEntry[] {
  const entries: KnownHostEntry[] = [];
  text.split('\n').forEach((raw, index) => {
    const line = raw.trim();
    if (!line || line.startsWith('#')) return;
    let fields = line.split(/\s+/);
    let revoked = false;
    if (fields[0]?.startsWith('@')) {
      if (fields[0] === '@cert-authority') return;
      revoked = fields[0] === '@revoked';
      fields = fields.slice(1);
    }
    const [patterns, keyType, keyBase64] = fields;
    if (!patterns || !keyType || !keyBase64) return;
    entries.push({ file, line: index + 1, patterns, keyType, keyBase64, revoked });
  });
  return entries;
}

/**
 * Every connection looks its host up, so a file is parsed once and reused while its size and
 * modification time stay the same (a pin appended during the run changes both): at 200 hosts,
 * reading and parsing the file per lookup was quadratic.
 */
const parsedFiles = new Map<string, { readonly mtimeMs: number; readonly size: number; readonly entries: KnownHostEntry[] }>();

export function readKnownHostsFile(file: string): KnownHostEntry[] {
  try {
    const stat = statSync(file);
    const known = parsedFiles.get(file);
    if (known && known.mtimeMs === stat.mtimeMs && known.size === stat.size) return known.entries;
    const entries = parseKnownHosts(readBoundedFileSync(file, MAX_KNOWN_HOSTS_BYTES, 'a known_hosts file').toString('utf8'), file);
    parsedFiles.set(file, { mtimeMs: stat.mtimeMs, size: stat.size, entries });
    return entries;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

/** How OpenSSH names a host in known_hosts: "host" on port 22, "[host]:port" otherwise. */
export function hostToken(host: string, port: number): string {
  return port === 22 ? host : `[${host}]:${port}`;
}

/** One matcher per pattern text, built once: a plain name compares, a wildcard compiles once. */
const matchers = new Map<string, (value: string) => boolean>();

function wildcardMatch(pattern: string, value: string): boolean {
  let matcher = matchers.get(pattern);
  if (!matcher) {
    if (!/[*?]/.test(pattern)) {
      const lower = pattern.toLowerCase();
      matcher = (v) => v.toLowerCase() === lower;
    } else {
      const re = new RegExp(
        `^${pattern
          .replace(/[.+^${}()|\\[\]]/g, '\\$&')
          .replace(/\*/g, '.*')
          .replace(/\?/g, '.')}$`,
        'i',
      );
      matcher = (v) => re.test(v);
    }
    matchers.set(pattern, matcher);
  }
  return matcher(value);
}

function hashedMatch(pattern: string, token: string): boolean {
  const [, kind, salt, hash] = pattern.split('|');
  if (kind !== '1' || !salt || !hash) return false;
  return createHmac('sha1', Buffer.from(salt, 'base64')).update(token).digest('base64') === hash;
}

/** Does this entry's pattern list name one of the tokens (address or name, with port)? */
export function entryMatches(entry: KnownHostEntry, tokens: readonly string[]): boolean {
  if (entry.patterns.startsWith('|')) return tokens.some((t) => hashedMatch(entry.patterns, t));
  let matched = false;
  for (const pattern of entry.patterns.split(',')) {
    const negated = pattern.startsWith('!');
    const body = negated ? pattern.slice(1) : pattern;
    if (tokens.some((t) => wildcardMatch(body, t))) {
      if (negated) return false;
      matched = true;
    }
  }
  return matched;
}
