// Plans of the service, sysctl and package tasks: fact values in, the expected Change out.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { FileState } from '../../../src/orchestrator/facts/file-state.js';
import type { UnitState } from '../../../src/orchestrator/facts/systemd-unit.js';
import { parsePackageState } from '../../../src/orchestrator/facts/package-state.js';
import { planService, systemdService } from '../../../src/orchestrator/tasks/systemd-service.js';
import { persistedSysctl, planSysctl } from '../../../src/orchestrator/tasks/sysctl.js';
import { packagePresent, planPackages } from '../../../src/orchestrator/tasks/package-present.js';
import type { ApplyContext } from '../../../src/orchestrator/engine/types.js';
import { hostContext } from './support/host-context.js';

const sha = (s: string): string => createHash('sha256').update(s).digest('hex');
const file = (content: string): FileState => ({
  exists: true,
  type: 'file',
  mode: '0644',
  owner: 'root',
  group: 'root',
  size: content.length,
  sha256: sha(content),
  content,
});

// What `systemctl show` reports for a running, enabled unit; tests vary one field at a time.
const running: UnitState = {
  loadState: 'loaded',
  activeState: 'active',
  subState: 'running',
  unitFileState: 'enabled',
  fragmentPath: '/etc/systemd/system/a.service',
  needDaemonReload: false,
};

describe('systemdService plan', () => {
  const want = { name: 'a.service', enabled: true, state: 'started' } as const;
  it('is none when enabled and running', () => {
    expect(planService(want, running)).toEqual({ kind: 'none', reason: 'a.service is enabled and running' });
  });
  it('reloads, enables and starts a unit whose file was just written', () => {
    expect(planService(want, { ...running, loadState: 'not-found', activeState: 'inactive', subState: 'dead', unitFileState: '' })).toEqual({
      kind: 'run',
      summary: 'daemon-reload, enable, start a.service',
      payload: { steps: ['daemon-reload', 'enable', 'start'] },
    });
  });
  it('reloads systemd when the unit file changed on disk', () => {
    expect(planService(want, { ...running, needDaemonReload: true })).toMatchObject({ summary: 'daemon-reload a.service' });
  });
  it('stops and disables', () => {
    expect(planService({ name: 'a.service', enabled: false, state: 'stopped' }, running)).toMatchObject({ kind: 'run', summary: 'disable, stop a.service' });
  });
  it('a static unit counts as enabled; a masked one is an error that says what to do', () => {
    expect(planService(want, { ...running, unitFileState: 'static' }).kind).toBe('none');
    expect(() => planService(want, { ...running, loadState: 'masked' })).toThrow('systemctl unmask a.service');
  });
  it('accepts the older `unit` spelling and invalidates every systemd fact', () => {
    const task = systemdService({ unit: 'b.service', enabled: true, state: 'started' });
    expect(task.name).toBe('service b.service enabled, started');
    expect(task.facts(hostContext('node-1')).unit.key).toBe('systemd:b.service');
    expect(task.invalidates).toEqual(['systemd:*']);
  });
});

describe('sysctl plan', () => {
  const options = { key: 'net.ipv4.ip_forward', value: '1', persistFile: '/etc/sysctl.d/90-k.conf' };
  it('is none when the live and persisted values match', () => {
    expect(planSysctl(options, { present: true, value: '1' }, file(persistedSysctl(options)))).toEqual({
      kind: 'none',
      reason: 'net.ipv4.ip_forward = 1, persisted in /etc/sysctl.d/90-k.conf',
    });
  });
  it('sets the live value and persists it, with the file diff', () => {
    const change = planSysctl(options, { present: true, value: '0' }, { exists: false });
    expect(change).toMatchObject({
      kind: 'update',
      summary: 'set net.ipv4.ip_forward = 1 (was 0); persist in /etc/sysctl.d/90-k.conf',
      payload: { runtime: true, persist: Buffer.from(persistedSysctl(options)) },
    });
    expect('diff' in change ? change.diff : '').toContain('+net.ipv4.ip_forward = 1');
  });
  it('only persists when the live value is already right', () => {
    expect(planSysctl(options, { present: true, value: '1' }, file('net.ipv4.ip_forward = 0\n'))).toMatchObject({
      summary: 'persist in /etc/sysctl.d/90-k.conf',
      payload: { runtime: false },
    });
  });
  it('compares multi-value settings word by word', () => {
    const ports = { key: 'net.ipv4.ip_local_port_range', value: '1024  65000', persistFile: '/etc/sysctl.d/p.conf' };
    expect(planSysctl(ports, { present: true, value: '1024 65000' }, file(persistedSysctl(ports))).kind).toBe('none');
  });
  it('fails clearly when the kernel has no such key', () => {
    expect(() => planSysctl(options, { present: false }, { exists: false })).toThrow(
      'net.ipv4.ip_forward does not exist on this kernel (no /proc/sys/net/ipv4/ip_forward)',
    );
  });
  it('a key its module provides, missing because the module is not loaded yet, plans loading it first', () => {
    const bridge = { key: 'net.bridge.bridge-nf-call-iptables', value: '1', module: 'br_netfilter', persistFile: '/etc/sysctl.d/b.conf' };
    expect(planSysctl(bridge, { present: false }, { exists: false })).toEqual({
      kind: 'update',
      summary: 'load br_netfilter, then set net.bridge.bridge-nf-call-iptables = 1; persist in /etc/sysctl.d/b.conf',
      payload: { runtime: true, persist: Buffer.from(persistedSysctl(bridge)) },
    });
    expect(planSysctl(bridge, { present: false }, file(persistedSysctl(bridge)))).toMatchObject({
      summary: 'load br_netfilter, then set net.bridge.bridge-nf-call-iptables = 1',
      payload: { runtime: true },
    });
  });
});

describe('packagePresent', () => {
  // Fact values as parsed from the per-family snippet's output on a Debian and a Rocky host.
  const debian = (line: string) => parsePackageState(`family=debian\nid=debian\nlike=\n${line}\n`);
  const rocky = (line: string) => parsePackageState(`family=rhel\nid=rocky\nlike=rhel centos fedora\n${line}\n`);

  it('is none when everything is installed, listing the versions', () => {
    expect(planPackages({ names: ['a', 'b'], install: false }, { a: debian('installed 1.0'), b: debian('installed 2.0') })).toEqual({
      kind: 'none',
      reason: 'installed: a 1.0, b 2.0',
    });
  });
  it('plans the install through the adapter of the host family', () => {
    expect(planPackages({ names: ['a', 'b'], install: true }, { a: rocky('installed 1'), b: rocky('not-installed') })).toEqual({
      kind: 'run',
      summary: 'install b',
      payload: { missing: ['b'], family: 'rhel' },
    });
  });
  it('with install: false the summary gives the command, and apply fails with it', async () => {
    const options = { names: ['coreutils', 'procps'], install: false };
    const change = planPackages(options, { coreutils: debian('installed 9.1'), procps: debian('not-installed') });
    expect(change).toMatchObject({
      summary:
        'install procps (not allowed here: run `DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends -- procps || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends -- procps; }` as root)',
    });
    if (change.kind !== 'run') throw new Error('expected a run change');
    const ctx = { ...hostContext('node-1') } as unknown as ApplyContext; // apply must fail before touching the connection
    await expect(packagePresent(options).apply(change, ctx)).rejects.toThrow(
      'procps is not installed: install it with `DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends -- procps || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends -- procps; }` (as root)',
    );
  });
});
