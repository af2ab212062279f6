// The etcd-snapshot-schedule role: on every control plane, a systemd timer and a oneshot
// service that take a snapshot of the local etcd member on the inventory's schedule
// (cluster.etcd.snapshots: on by default, every 12 hours, 5 kept), check it with etcdutl and
// keep it 0600 in /var/lib/kcluster/backups/scheduled, pruning the oldest beyond `keep`.
// Turned off, the timer is stopped and disabled and its three files removed; the snapshots
// stay. See README.md beside this file.
import { join } from 'node:path';
import type { ClusterInputs } from '../../src/kubernetes/cluster/cluster-inputs.js';
import { ETCDCTL } from '../../src/kubernetes/etcd/etcdctl.js';
import { SCHEDULED_SNAPSHOT_DIR, scheduledSnapshotPrefix } from '../../src/kubernetes/etcd/etcd-snapshot-files.js';
import { noChange } from '../../src/orchestrator/engine/change.js';
import type { Handler, Role, Task } from '../../src/orchestrator/engine/types.js';
import { systemdUnit } from '../../src/orchestrator/facts/systemd-unit.js';
import { execChecked } from '../../src/orchestrator/ssh/connection.js';
import { quoteWord, sh } from '../../src/orchestrator/ssh/quote.js';
import { fileAbsent } from '../../src/orchestrator/tasks/file-absent.js';
import { managedFile } from '../../src/orchestrator/tasks/managed-file.js';
import {
  SNAPSHOT_UPLOAD_CONFIG,
  SNAPSHOT_UPLOADER,
  snapshotUploadConfig,
  uploadsScheduledSnapshots,
} from '../../src/kubernetes/etcd/scheduled-snapshot-upload.js';
import { systemdService } from '../../src/orchestrator/tasks/systemd-service.js';
import { templateFile } from '../../src/orchestrator/tasks/template-file.js';
import { createTemplateRenderer } from '../../src/orchestrator/templates/render.js';
import { packageRoot } from '../../src/orchestrator/util/package-root.js';

export const SNAPSHOT_SCRIPT = '/usr/local/sbin/kcluster-etcd-snapshot';
export const SNAPSHOT_SERVICE = 'kcluster-etcd-snapshot.service';
export const SNAPSHOT_TIMER = 'kcluster-etcd-snapshot.timer';
const SERVICE_FILE = `/etc/systemd/system/${SNAPSHOT_SERVICE}`;
const TIMER_FILE = `/etc/systemd/system/${SNAPSHOT_TIMER}`;
const RESTART_TIMER = `restart ${SNAPSHOT_TIMER}`;
const DAEMON_RELOAD = 'systemd daemon-reload (etcd snapshots)';
const TAGS = ['etcd', 'snapshot'];

const templateDir = join(packageRoot(), 'roles', 'etcd-snapshot-schedule', 'templates');

export function etcdSnapshotScheduleRole(inputs: Pick<ClusterInputs, 'inventory' | 'snapshotUpload'>): Role {
  const settings = inputs.inventory.cluster.etcdSnapshots;
  const upload = uploadsScheduledSnapshots(inputs.inventory) ? inputs.snapshotUpload : undefined;
  if (uploadsScheduledSnapshots(inputs.inventory) && upload === undefined)
    throw new Error('cluster.state.scheduledSnapshots is set but the cluster inputs carry no upload credential and key');
  const handlers: Handler[] = [
    { name: DAEMON_RELOAD, run: async (ctx) => void (await execChecked(ctx.connection, sh`systemctl daemon-reload`, { become: true, label: DAEMON_RELOAD })) },
  ];
  if (!settings.enabled) {
    return {
      name: 'etcd-snapshot-schedule',
      tags: TAGS,
      tasks: [
        timerOff(),
        ...[TIMER_FILE, SERVICE_FILE, SNAPSHOT_SCRIPT, SNAPSHOT_UPLOAD_CONFIG].map((path) =>
          fileAbsent({
            path,
            why: 'cluster.etcd.snapshots.enabled is false; the snapshots taken stay',
            tags: TAGS,
            notify: [DAEMON_RELOAD],
            invalidates: ['systemd:*'],
          }),
        ),
      ],
      handlers,
    };
  }
  const renderer = createTemplateRenderer();
  const common = { schedule: settings.schedule, keep: settings.keep, script: SNAPSHOT_SCRIPT };
  return {
    name: 'etcd-snapshot-schedule',
    templateDir,
    tags: TAGS,
    tasks: [
      templateFile({
        path: SNAPSHOT_SCRIPT,
        template: join(templateDir, 'kcluster-etcd-snapshot.sh.hbs'),
        mode: 0o700,
        renderer,
        tags: TAGS,
        // Shell words, quoted here: the template splices them in as they are.
        data: (ctx) => ({
          ...common,
          dir: quoteWord(SCHEDULED_SNAPSHOT_DIR),
          prefix: scheduledSnapshotPrefix(ctx.host.name),
          etcdctl: ETCDCTL.text,
          etcdutl: '/usr/local/bin/etcdutl',
          ...(upload !== undefined ? { upload: sh`${SNAPSHOT_UPLOADER} -config ${SNAPSHOT_UPLOAD_CONFIG}`.text } : {}),
        }),
      }),
      upload !== undefined
        ? managedFile({
            path: SNAPSHOT_UPLOAD_CONFIG,
            mode: 0o600,
            secret: true,
            tags: TAGS,
            content: (ctx) => snapshotUploadConfig(inputs.inventory, ctx.host.name, upload),
          })
        : fileAbsent({ path: SNAPSHOT_UPLOAD_CONFIG, why: 'no cluster.state.scheduledSnapshots: the control planes copy nothing into the store', tags: TAGS }),
      templateFile({
        path: SERVICE_FILE,
        template: join(templateDir, 'kcluster-etcd-snapshot.service.hbs'),
        mode: 0o644,
        renderer,
        tags: TAGS,
        data: common,
        notify: [DAEMON_RELOAD],
        invalidates: ['systemd:*'],
      }),
      templateFile({
        path: TIMER_FILE,
        template: join(templateDir, 'kcluster-etcd-snapshot.timer.hbs'),
        mode: 0o644,
        renderer,
        tags: TAGS,
        data: common,
        notify: [RESTART_TIMER],
        invalidates: ['systemd:*'],
      }),
      systemdService({ name: SNAPSHOT_TIMER, enabled: true, state: 'started', tags: TAGS }),
    ],
    handlers: [
      ...handlers,
      // A changed schedule takes effect when the timer is restarted (systemd computes the next run then).
      {
        name: RESTART_TIMER,
        run: async (ctx) =>
          void (await execChecked(ctx.connection, sh`systemctl daemon-reload && systemctl restart -- ${SNAPSHOT_TIMER}`, {
            become: true,
            label: RESTART_TIMER,
          })),
      },
    ],
  };
}

/** Turned off: the timer stopped and disabled (nothing to do when its unit is gone already). */
function timerOff(): Task<{ unit: ReturnType<typeof systemdUnit> }, null> {
  return {
    name: `${SNAPSHOT_TIMER} stopped and disabled`,
    tags: TAGS,
    invalidates: ['systemd:*'],
    facts: () => ({ unit: systemdUnit(SNAPSHOT_TIMER) }),
    plan: ({ unit }) => {
      const active = ['active', 'activating', 'reloading'].includes(unit.activeState);
      const enabled = unit.unitFileState === 'enabled';
      if (!active && !enabled) return noChange(`${SNAPSHOT_TIMER} is not running (scheduled etcd snapshots are off)`);
      return { kind: 'run', summary: `stop and disable ${SNAPSHOT_TIMER} (cluster.etcd.snapshots.enabled is false; the snapshots taken stay)`, payload: null };
    },
    apply: async (_change, ctx) =>
      void (await execChecked(ctx.connection, sh`systemctl disable --now -- ${SNAPSHOT_TIMER}`, { become: true, label: `disable ${SNAPSHOT_TIMER}` })),
  };
}
