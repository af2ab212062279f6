// Task plans are pure: facts in, the expected Change out.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { planManagedFile } from '../../../src/tasks/template-file.js';
import { planService } from '../../../src/tasks/systemd-service.js';
import { planSysctl } from '../../../src/tasks/sysctl.js';
import { planPackages } from '../../../src/tasks/package-present.js';

const sha = (s: string) => createHash('sha256').update(s).digest('hex');
const file = { path: '/etc/motd', content: () => 'hello\n', mode: 0o644 };
const existing = (content: string, extra = {}) => ({ exists: true, type: 'file' as const, mode: '0644', owner: 'root', group: 'root', size: content.length, sha256: sha(content), content: Buffer.from(content), ...extra });

describe('managed file plan', () => {
  it('creates a missing file with a diff', () => {
    const change = planManagedFile(file, { exists: false }, Buffer.from('hello\n'));
    expect(change).toMatchObject({ kind: 'create', summary: 'create /etc/motd (mode 0644, root:root)' });
    expect(change.kind !== 'none' && change.kind !== 'skip' ? change.diff : '').toContain('+hello');
  });
  it('does nothing when content, mode and owner match', () => {
    expect(planManagedFile(file, existing('hello\n'), Buffer.from('hello\n'))).toEqual({ kind: 'none', reason: '/etc/motd is up to date' });
  });
  it('shows a unified diff of a content change', () => {
    const change = planManagedFile(file, existing('bye\n'), Buffer.from('hello\n'));
    expect(change).toMatchObject({ kind: 'update', summary: 'update /etc/motd (content)' });
    const diff = change.kind === 'update' ? change.diff ?? '' : '';
    expect(diff).toContain('--- a/etc/motd');
    expect(diff).toContain('-bye');
    expect(diff).toContain('+hello');
  });
  it('reports a mode or owner drift without a content diff', () => {
    const change = planManagedFile(file, existing('hello\n', { mode: '0600', owner: 'nobody' }), Buffer.from('hello\n'));
    expect(change).toEqual({ kind: 'update', summary: 'update /etc/motd (mode 0600 -> 0644, owner nobody:root -> root:root)', payload: { content: Buffer.from('hello\n') } });
  });
});

describe('service plan', () => {
  const unit = { loadState: 'loaded', activeState: 'active', subState: 'running', unitFileState: 'enabled', fragmentPath: '/x', needDaemonReload: false };
  it('is none when enabled and running', () => {
    expect(planService({ unit: 'a.service', enabled: true, state: 'started' }, unit).kind).toBe('none');
  });
  it('reloads, enables and starts a unit just written', () => {
    const change = planService({ unit: 'a.service', enabled: true, state: 'started' }, { ...unit, loadState: 'not-found', activeState: 'inactive', unitFileState: '' });
    expect(change).toMatchObject({ kind: 'run', summary: 'daemon-reload, enable, start a.service' });
  });
  it('stops and disables', () => {
    expect(planService({ unit: 'a.service', enabled: false, state: 'stopped' }, unit)).toMatchObject({ summary: 'disable, stop a.service' });
  });
});

describe('sysctl plan', () => {
  const options = { key: 'net.ipv4.ip_forward', value: '1', persistFile: '/etc/sysctl.d/90-k.conf' };
  const persisted = '# Managed by kcluster\nnet.ipv4.ip_forward = 1\n';
  it('is none when live and persisted values match', () => {
    expect(planSysctl(options, { present: true, value: '1' }, existing(persisted)).kind).toBe('none');
  });
  it('sets the live value and persists it', () => {
    expect(planSysctl(options, { present: true, value: '0' }, { exists: false })).toMatchObject({
      kind: 'update',
      summary: 'set net.ipv4.ip_forward = 1 (was 0); persist in /etc/sysctl.d/90-k.conf',
      payload: { runtime: true },
    });
  });
  it('fails clearly when the kernel has no such key', () => {
    expect(() => planSysctl(options, { present: false }, { exists: false })).toThrow('does not exist on this kernel');
  });
});

describe('packages plan', () => {
  it('lists what is missing', () => {
    const change = planPackages({ names: ['a', 'b'], install: false }, { a: { installed: true, version: '1', manager: 'dpkg' }, b: { installed: false, manager: 'dpkg' } });
    expect(change).toEqual({ kind: 'run', summary: 'install b', payload: { missing: ['b'], manager: 'dpkg' } });
  });
});
