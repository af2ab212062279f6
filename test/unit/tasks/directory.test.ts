// The directory task's plan: create, fix mode and owner, nothing to do, and refuse a file in the way.
import { describe, expect, it } from 'vitest';
import { planDirectory } from '../../../src/orchestrator/tasks/directory.js';

const etcd = { path: '/var/lib/etcd', mode: 0o700 };
const dir = (mode: string, owner = 'root') => ({ exists: true, type: 'directory' as const, mode, owner, group: owner, size: 4096 });

describe('planDirectory', () => {
  it('creates a missing directory', () => {
    expect(planDirectory(etcd, { exists: false })).toEqual({ kind: 'create', summary: 'create directory /var/lib/etcd (mode 0700, root:root)', payload: null });
  });
  it('fixes mode and owner, and leaves a right one alone', () => {
    expect(planDirectory(etcd, dir('0755', 'etcd'))).toEqual({
      kind: 'update',
      summary: 'fix /var/lib/etcd: mode 0755 -> 0700, owner etcd:etcd -> root:root',
      payload: null,
    });
    expect(planDirectory(etcd, dir('0700'))).toEqual({ kind: 'none', reason: '/var/lib/etcd is a directory, mode 0700, root:root' });
  });
  it('refuses a file in the way, without removing it', () => {
    expect(() => planDirectory(etcd, { exists: true, type: 'file', mode: '0644', owner: 'root', group: 'root', size: 3 })).toThrow(
      '/var/lib/etcd is a file, not a directory: move it away',
    );
  });
});
