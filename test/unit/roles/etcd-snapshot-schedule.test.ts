// Scheduled etcd snapshots (roles/etcd-snapshot-schedule): the cluster playbook planned in
// check mode over the fresh-host recordings (test/fixtures/facts/empty-debian, nothing runs)
// with the defaults, another schedule and the schedule off; the timer's stop planned from its
// unit's state; and the rendered script run in a local shell against stand-in etcdctl/etcdutl:
// it keeps the newest `keep` scheduled snapshots, never a manual one, and no half-written file.
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Scenario } from '../../support/plan-scenario.js';
import { planOverRecording } from '../../support/recorded-facts/plan-over-recording.js';
import { haDockerVariant, scheduledSnapshotUploadVariant, SNAPSHOT_UPLOAD_SECRET } from '../../support/recorded-facts/plan-variants.js';
import { etcdSnapshotScheduleRole, SNAPSHOT_TIMER } from '../../../roles/etcd-snapshot-schedule/index.js';
import { createTemplateRenderer } from '../../../src/orchestrator/templates/render.js';
import { packageRoot } from '../../../src/orchestrator/util/package-root.js';
import type { Inventory } from '../../../src/orchestrator/inventory/model.js';
import type { UnitState } from '../../../src/orchestrator/facts/systemd-unit.js';

const ROLE = 'etcd-snapshot-schedule';
const SCRIPT = 'file /usr/local/sbin/kcluster-etcd-snapshot';
const TIMER = 'file /etc/systemd/system/kcluster-etcd-snapshot.timer';
const UPLOAD_CONFIG = 'file /etc/kcluster/snapshot-upload.json';
const snapshots = (value: Record<string, unknown>) => ({
  edit(doc: Record<string, unknown>) {
    doc['cluster'] = { ...(doc['cluster'] as object), etcd: { snapshots: value } };
  },
});

describe('scheduled etcd snapshots planned on fresh hosts (recorded facts, fake connection)', () => {
  let one: Scenario;
  let ha: Scenario;
  beforeAll(async () => {
    [one, ha] = await Promise.all([planOverRecording('empty-debian'), planOverRecording('empty-debian', haDockerVariant)]);
  }, 60_000);

  it('by default: the script, the service and the timer on the control plane, every 12 hours, 5 kept; nothing on the workers', () => {
    expect(one.failures).toEqual([]);
    expect(one.tasks('kcrec1', ROLE)).toEqual([
      SCRIPT,
      'file /etc/systemd/system/kcluster-etcd-snapshot.service',
      TIMER,
      `service ${SNAPSHOT_TIMER} enabled, started`,
    ]);
    expect(one.tasks('kcrec2', ROLE)).toEqual([]);
    expect(one.tasks('kcrec3', ROLE)).toEqual([]);
    expect(one.diff('kcrec1', TIMER)).toContain('+OnCalendar=*-*-* 00/12:00:00\n');
    const script = one.diff('kcrec1', SCRIPT);
    expect(script).toContain('+dir=/var/lib/kcluster/backups/scheduled\n+keep=5\n');
    expect(script).toContain('+name="etcd-scheduled-kcrec1-$(date -u +%Y-%m-%dT%H-%M-%SZ).db"');
    // etcdctl with the etcd client certificate, as `etcd snapshot save` runs it; etcdutl checks the file
    expect(script).toContain(
      '+/usr/local/bin/etcdctl --endpoints=https://127.0.0.1:2379 --cacert=/etc/kubernetes/pki/etcd/ca.crt --cert=/etc/kubernetes/pki/etcd/healthcheck-client.crt --key=/etc/kubernetes/pki/etcd/healthcheck-client.key snapshot save "$tmp"',
    );
    expect(script).toContain('+status=$(/usr/local/bin/etcdutl snapshot status "$tmp" -w json)');
  });

  it('on every control plane, each naming its snapshots after itself', () => {
    expect(ha.failures).toEqual([]);
    expect(ha.tasks('kcrec2', ROLE)).toHaveLength(4);
    expect(ha.diff('kcrec2', SCRIPT)).toContain('etcd-scheduled-kcrec2-');
    expect(ha.tasks('kcrec3', ROLE)).toEqual([]);
  });

  it('another schedule and number kept go into the timer and the script', async () => {
    const other = await planOverRecording('empty-debian', snapshots({ schedule: '*-*-* 00/6:00:00', keep: 2 }));
    expect(other.failures).toEqual([]);
    expect(other.diff('kcrec1', TIMER)).toContain('+OnCalendar=*-*-* 00/6:00:00\n');
    expect(other.diff('kcrec1', TIMER)).toContain('(*-*-* 00/6:00:00, 2 kept)');
    expect(other.diff('kcrec1', SCRIPT)).toContain('+keep=2\n');
  }, 60_000);

  it('with cluster.state.scheduledSnapshots: the uploader on the control plane, its settings 0600 and never shown, run by the script after each snapshot', async () => {
    const store = await planOverRecording('empty-debian', scheduledSnapshotUploadVariant);
    expect(store.failures).toEqual([]);
    expect(store.tasks('kcrec1', ROLE)).toEqual([
      SCRIPT,
      UPLOAD_CONFIG,
      'file /etc/systemd/system/kcluster-etcd-snapshot.service',
      TIMER,
      `service ${SNAPSHOT_TIMER} enabled, started`,
    ]);
    expect(store.diff('kcrec1', SCRIPT)).toContain('+/usr/local/bin/kcluster-snapshot-upload -config /etc/kcluster/snapshot-upload.json\n');
    const settings = store.planned.find((p) => p.host === 'kcrec1' && p.task === UPLOAD_CONFIG)!;
    expect(settings.summary).toBe('create /etc/kcluster/snapshot-upload.json (mode 0600, root:root; 479 bytes, secret: content not shown)');
    expect(settings.diff).toBeUndefined();
    expect(JSON.stringify(store.planned)).not.toContain(SNAPSHOT_UPLOAD_SECRET);
    expect(store.log.join('\n')).not.toContain(SNAPSHOT_UPLOAD_SECRET);
    expect(store.tasks('kcrec1', 'artifacts').filter((t) => t.includes('kcluster-snapshot-upload'))).toHaveLength(1);
    expect(store.tasks('kcrec2', 'artifacts').filter((t) => t.includes('kcluster-snapshot-upload'))).toEqual([]);
  }, 60_000);
});

describe('the timer turned off', () => {
  const inventory = { cluster: { etcdSnapshots: { enabled: false, schedule: 'daily', keep: 5 } } } as unknown as Inventory;
  const role = etcdSnapshotScheduleRole({ inventory });
  const unit = (over: Partial<UnitState>): UnitState => ({
    loadState: 'loaded',
    activeState: 'active',
    subState: 'waiting',
    unitFileState: 'enabled',
    fragmentPath: '',
    needDaemonReload: false,
    ...over,
  });
  const stop = role.tasks[0]!;
  const plan = (u: UnitState) => stop.plan({ unit: u } as never, {} as never);

  it('is stopped and disabled when it runs or is enabled, then its script and units removed (the snapshots stay)', () => {
    expect(plan(unit({})).kind).toBe('run');
    expect(plan(unit({ activeState: 'inactive' }))).toMatchObject({
      kind: 'run',
      summary: `stop and disable ${SNAPSHOT_TIMER} (cluster.etcd.snapshots.enabled is false; the snapshots taken stay)`,
    });
    expect(plan(unit({ loadState: 'not-found', activeState: 'inactive', unitFileState: '' })).kind).toBe('none');
    expect(role.tasks.map((t) => t.name)).toEqual([
      `${SNAPSHOT_TIMER} stopped and disabled`,
      'no file /etc/systemd/system/kcluster-etcd-snapshot.timer',
      'no file /etc/systemd/system/kcluster-etcd-snapshot.service',
      'no file /usr/local/sbin/kcluster-etcd-snapshot',
      'no file /etc/kcluster/snapshot-upload.json',
    ]);
  });
});

describe('the snapshot script, run in a local shell with stand-in etcdctl and etcdutl', () => {
  const root = mkdtempSync(join(tmpdir(), 'kc-snapshot-script-'));
  const dir = join(root, 'backups', 'scheduled');
  const bin = join(root, 'bin');
  mkdirSync(bin);
  // etcdctl writes PATH.part then renames it, as the real one does; etcdutl fails on a file that says "bad".
  writeFileSync(
    join(bin, 'etcdctl'),
    '#!/bin/sh\n[ "$1 $2" = "snapshot save" ] || exit 2\nprintf "${KC_FAKE_SNAPSHOT:-snapshot}" > "$3.part" && mv "$3.part" "$3"\n',
  );
  writeFileSync(
    join(bin, 'etcdutl'),
    '#!/bin/sh\ngrep -q bad "$3" && { echo "invalid database" >&2; exit 1; }\necho \'{"hash":1,"revision":7,"totalKey":3,"totalSize":8}\'\n',
  );
  chmodSync(join(bin, 'etcdctl'), 0o755);
  chmodSync(join(bin, 'etcdutl'), 0o755);
  const script = join(root, 'kcluster-etcd-snapshot');
  const render = createTemplateRenderer().compile(join(packageRoot(), 'roles', 'etcd-snapshot-schedule', 'templates', 'kcluster-etcd-snapshot.sh.hbs'));
  writeFileSync(script, render({ dir, keep: 3, prefix: 'etcd-scheduled-cp1-', etcdctl: join(bin, 'etcdctl'), etcdutl: join(bin, 'etcdutl') }));
  chmodSync(script, 0o700);
  const run = (env: Record<string, string> = {}) =>
    execFileSync('sh', [script], { env: { ...process.env, ...env }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

  it('keeps the newest 3 scheduled snapshots (0600, folder 0700), leaves other files alone and nothing half-written', () => {
    mkdirSync(dir, { recursive: true });
    for (const stamp of ['2020-01-01T00-00-00Z', '2020-01-02T00-00-00Z', '2020-01-03T00-00-00Z'])
      writeFileSync(join(dir, `etcd-scheduled-cp1-${stamp}.db`), 'old');
    writeFileSync(join(dir, 'mine.db'), 'an operator file');
    const out = run();
    expect(out).toMatch(/^saved .*etcd-scheduled-cp1-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\dZ\.db \(8 bytes\): \{"hash":1/);
    expect(out).toContain('removed ' + join(dir, 'etcd-scheduled-cp1-2020-01-01T00-00-00Z.db'));
    const left = readdirSync(dir).sort();
    expect(left).toHaveLength(4);
    expect(left).toContain('mine.db');
    expect(left).toContain('etcd-scheduled-cp1-2020-01-02T00-00-00Z.db');
    const made = left.find((f) => !f.startsWith('etcd-scheduled-cp1-2020') && f !== 'mine.db')!;
    expect(statSync(join(dir, made)).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
  });

  it('a snapshot etcdutl cannot read fails the run and is not kept', () => {
    const before = readdirSync(dir).sort();
    expect(() => run({ KC_FAKE_SNAPSHOT: 'bad' })).toThrow(/invalid database/);
    expect(readdirSync(dir).sort()).toEqual(before);
  });
});

describe('the snapshot script with the store copy, run in a local shell with a stand-in uploader', () => {
  const root = mkdtempSync(join(tmpdir(), 'kc-snapshot-upload-script-'));
  const dir = join(root, 'scheduled');
  const bin = join(root, 'bin');
  mkdirSync(bin);
  writeFileSync(join(bin, 'etcdctl'), '#!/bin/sh\nprintf snapshot > "$3.part" && mv "$3.part" "$3"\n');
  writeFileSync(join(bin, 'etcdutl'), '#!/bin/sh\necho "{}"\n');
  // The stand-in uploader records what the folder held when it ran, and fails when told to.
  writeFileSync(join(bin, 'uploader'), `#!/bin/sh\nls "${dir}" > "${root}/seen"\nexit "\${KC_UPLOAD_EXIT:-0}"\n`);
  for (const tool of ['etcdctl', 'etcdutl', 'uploader']) chmodSync(join(bin, tool), 0o755);
  const script = join(root, 'kcluster-etcd-snapshot');
  const render = createTemplateRenderer().compile(join(packageRoot(), 'roles', 'etcd-snapshot-schedule', 'templates', 'kcluster-etcd-snapshot.sh.hbs'));
  writeFileSync(
    script,
    render({ dir, keep: 5, prefix: 'etcd-scheduled-cp1-', etcdctl: join(bin, 'etcdctl'), etcdutl: join(bin, 'etcdutl'), upload: join(bin, 'uploader') }),
  );
  chmodSync(script, 0o700);
  const run = (env: Record<string, string> = {}) =>
    execFileSync('sh', [script], { env: { ...process.env, ...env }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

  it('runs the uploader once the new snapshot is in place', () => {
    run();
    const seen = readFileSync(join(root, 'seen'), 'utf8').trim().split('\n');
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatch(/^etcd-scheduled-cp1-.*Z\.db$/);
  });

  it('a failed upload fails the run, and the snapshot it took stays', () => {
    rmSync(dir, { recursive: true, force: true });
    expect(() => run({ KC_UPLOAD_EXIT: '1' })).toThrow();
    expect(readdirSync(dir)).toEqual([expect.stringMatching(/^etcd-scheduled-cp1-.*Z\.db$/)]);
  });
});
