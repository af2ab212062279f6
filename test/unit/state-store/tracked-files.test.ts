// Which files of a state folder a state store holds: the CAs and keys, the Secrets keys, the
// pinned host keys, rotation records and retired CAs; never logs, the journal, backups, the
// lock, or a write in progress. A file from the store is written through a rename, with its mode.
import { mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { moveAside, readTracked, trackedPaths, writeTracked } from '../../../src/cli/state-store/tracked-files.js';

function stateFolder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'kc-tracked-'));
  for (const d of ['pki/etcd', 'pki/rotation/next', 'encryption', 'retired-cas/2026-01-01', 'logs', 'journal', 'backups'])
    mkdirSync(join(dir, d), { recursive: true });
  const files: Record<string, string> = {
    'pki/ca.key': 'k',
    'pki/etcd/ca.crt': 'c',
    'pki/rotation/state.json': '{}',
    'pki/rotation/next/ca.key': 'n',
    'pki/.ca.key.tmp': 'partial',
    'pki/ca.crt.tmp': 'partial',
    'encryption/keys.json': '{}',
    'retired-cas/2026-01-01/ca.key': 'old',
    known_hosts: 'h',
    lock: '{}',
    'logs/run.log': 'l',
    'journal/r.jsonl': 'j',
    'backups/etcd.db': 'b',
  };
  for (const [path, content] of Object.entries(files)) writeFileSync(join(dir, path), content, { mode: 0o600 });
  return dir;
}

describe('the tracked files of a state folder', () => {
  it('are the identity of the cluster, and nothing else', () => {
    expect(trackedPaths(stateFolder())).toEqual([
      'encryption/keys.json',
      'known_hosts',
      'pki/ca.key',
      'pki/etcd/ca.crt',
      'pki/rotation/next/ca.key',
      'pki/rotation/state.json',
      'retired-cas/2026-01-01/ca.key',
    ]);
  });

  it('are read with their modes, written back through a rename with theirs, and moved aside whole', () => {
    const dir = stateFolder();
    const read = readTracked(dir).find((f) => f.path === 'pki/ca.key')!;
    expect(read).toEqual({ path: 'pki/ca.key', content: Buffer.from('k'), mode: 0o600 });
    writeTracked(dir, { path: 'pki/front-proxy-ca.crt', content: Buffer.from('fp'), mode: 0o644 });
    expect(statSync(join(dir, 'pki', 'front-proxy-ca.crt')).mode & 0o777).toBe(0o644);
    expect(trackedPaths(dir)).toContain('pki/front-proxy-ca.crt');
    const aside = moveAside(dir, 'pki/ca.key', '2026-11-28T10-00-00-000Z');
    expect(aside).toBe(join(dir, 'untrusted', '2026-11-28T10-00-00-000Z', 'pki', 'ca.key'));
    expect(readFileSync(aside, 'utf8')).toBe('k');
    expect(trackedPaths(dir)).not.toContain('pki/ca.key');
  });
});
