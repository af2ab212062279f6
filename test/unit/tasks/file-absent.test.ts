// A file kcluster no longer uses: removed when there, nothing when absent, a directory refused.
import { describe, expect, it } from 'vitest';
import { planFileAbsent } from '../../../src/orchestrator/tasks/file-absent.js';
import type { FileState } from '../../../src/orchestrator/facts/file-state.js';

const options = { path: '/etc/kubernetes/pki/etcd/server.key', why: "etcd's own keys are in /etc/kubernetes/etcd now" };
const state = (fields: Partial<FileState>): FileState => ({ exists: true, ...fields }) as FileState;

describe('fileAbsent', () => {
  it('removes a file that is there, saying why', () => {
    expect(planFileAbsent(options, state({ type: 'file', mode: '0600' }))).toEqual({
      kind: 'delete',
      summary: "remove /etc/kubernetes/pki/etcd/server.key (etcd's own keys are in /etc/kubernetes/etcd now)",
      payload: null,
    });
  });
  it('changes nothing when the file is absent', () => {
    expect(planFileAbsent(options, { exists: false } as FileState)).toEqual({ kind: 'none', reason: '/etc/kubernetes/pki/etcd/server.key is absent' });
  });
  it('refuses a directory at the path (it may hold data)', () => {
    expect(() => planFileAbsent(options, state({ type: 'directory' }))).toThrow(
      '/etc/kubernetes/pki/etcd/server.key is a directory, where kcluster expects at most a file it no longer uses: move it away',
    );
  });
});
