// The demo role's wiring, planned from fact values: a fresh host gets everything created, a
// converged host (facts computed from what the role itself renders) plans nothing.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Change } from '../../../src/orchestrator/engine/change.js';
import type { AnyTask } from '../../../src/orchestrator/engine/types.js';
import type { FileState } from '../../../src/orchestrator/facts/file-state.js';
import type { PackageState } from '../../../src/orchestrator/facts/package-state.js';
import type { UnitState } from '../../../src/orchestrator/facts/systemd-unit.js';
import { demoRole } from '../../../roles/demo/index.js';
import { demoPlaybook } from '../../../playbooks/demo.js';
import { hostContext } from './support/host-context.js';

const ctx = hostContext('node-1', demoRole.defaults);
const installed: PackageState = { installed: true, version: '1', family: 'debian' };
const noUnit: UnitState = { loadState: 'not-found', activeState: 'inactive', subState: 'dead', unitFileState: '', fragmentPath: '', needDaemonReload: false };
const running: UnitState = {
  loadState: 'loaded',
  activeState: 'active',
  subState: 'running',
  unitFileState: 'enabled',
  fragmentPath: '/etc/systemd/system/kcluster-demo.service',
  needDaemonReload: false,
};

/** Fact values for a task, by the kind of each fact its facts() declares. */
function factsFor(task: AnyTask, state: 'fresh' | 'converged', rendered: Map<string, Buffer>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, fact] of Object.entries(task.facts(ctx) as Record<string, { key: string }>)) {
    const [kind, ...rest] = fact.key.split(':');
    const target = rest.join(':');
    if (kind === 'package') out[name] = installed;
    else if (kind === 'systemd') out[name] = state === 'fresh' ? noUnit : running;
    else if (kind === 'sysctl') out[name] = { present: true, value: state === 'fresh' ? '0' : '1' };
    else if (kind === 'file') {
      const bytes = rendered.get(target);
      const mode = target.endsWith('host.conf') ? '0640' : '0644';
      const file: FileState =
        state === 'fresh' || !bytes
          ? { exists: false }
          : {
              exists: true,
              type: 'file',
              mode,
              owner: 'root',
              group: 'root',
              size: bytes.length,
              sha256: createHash('sha256').update(bytes).digest('hex'),
              content: bytes.toString('utf8'),
            };
      out[name] = file;
    } else throw new Error(`unexpected fact ${fact.key}`);
  }
  return out;
}

describe('demo role', () => {
  it('is the one role of the demo playbook, on all hosts', () => {
    expect(demoPlaybook.name).toBe('demo');
    expect(demoPlaybook.plays).toEqual([{ name: 'demo', hosts: 'all', roles: [demoRole] }]);
  });

  it('on a fresh host: checks packages, creates its files, starts the service, sets the sysctl', () => {
    const rendered = new Map<string, Buffer>();
    const changes = demoRole.tasks.map((task) => task.plan(factsFor(task, 'fresh', rendered), ctx) as Change);
    expect(changes.map((c) => `${c.kind}: ${'summary' in c ? c.summary : c.reason}`)).toEqual([
      'none: installed: coreutils 1, procps 1',
      'create: create /etc/motd (mode 0644, root:root)',
      'create: create /etc/kcluster-demo/host.conf (mode 0640, root:root)',
      'create: create /etc/kcluster-demo/hosts.txt (mode 0644, root:root)',
      'create: create /etc/systemd/system/kcluster-demo.service (mode 0644, root:root)',
      'run: daemon-reload, enable, start kcluster-demo.service',
      'update: set net.ipv4.conf.all.log_martians = 1 (was 0); persist in /etc/sysctl.d/90-kcluster-demo.conf',
    ]);
  });

  it('on a converged host plans nothing at all', () => {
    // What the role would write is what a converged host holds.
    const rendered = new Map<string, Buffer>();
    for (const task of demoRole.tasks) {
      const change = task.plan(factsFor(task, 'fresh', rendered), ctx) as Change<{ content?: Buffer; persist?: Buffer }>;
      const path = Object.values(task.facts(ctx) as Record<string, { key: string }>)
        .map((f) => f.key)
        .find((k) => k.startsWith('file:'))
        ?.slice(5);
      const bytes = change.kind !== 'none' && change.kind !== 'skip' ? (change.payload.content ?? change.payload.persist) : undefined;
      if (path && bytes) rendered.set(path, bytes);
    }
    for (const task of demoRole.tasks) expect(task.plan(factsFor(task, 'converged', rendered), ctx).kind, task.name).toBe('none');
  });

  it('restarts the service through its handler only from the unit file and host.conf', () => {
    const notifying = demoRole.tasks.filter((t) => t.notify?.length).map((t) => t.name);
    expect(notifying).toEqual(['file /etc/kcluster-demo/host.conf', 'file /etc/systemd/system/kcluster-demo.service']);
    expect(demoRole.handlers?.map((h) => h.name)).toEqual(['restart kcluster-demo.service']);
  });
});
