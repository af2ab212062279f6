// The demo role: the engine at work before Kubernetes. Files from templates, a systemd
// service restarted by a handler only when its files change, a sysctl, a package check.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { HostContext, Role } from '../../src/engine/types.js';
import { execChecked } from '../../src/ssh/connection.js';
import { sh } from '../../src/ssh/quote.js';
import { createTemplateRenderer } from '../../src/templates/render.js';
import { managedFile } from '../../src/tasks/template-file.js';
import { packagesPresent } from '../../src/tasks/package-present.js';
import { systemdService } from '../../src/tasks/systemd-service.js';
import { sysctl } from '../../src/tasks/sysctl.js';
import { packageRoot } from '../../src/util/package-root.js';
import { demoDefaults } from './defaults.js';

const RESTART = 'restart kcluster-demo';

function templateDir(): string {
  // Templates live beside the role's source, whether we run from src or from dist.
  const here = dirname(fileURLToPath(import.meta.url));
  return here.includes(`${join('dist', 'roles')}`) ? join(packageRoot(), 'roles', 'demo', 'templates') : join(here, 'templates');
}

export function demoRole(): Role {
  const dir = templateDir();
  const render = createTemplateRenderer();
  const common = (ctx: HostContext) => ({
    host: ctx.host.name,
    roles: ctx.host.roles.join(','),
    cluster: ctx.inventory.cluster.name,
    motd: String(ctx.vars['motd']),
    greeting: String(ctx.vars['greeting']),
  });
  const template = (name: string) => (ctx: HostContext) => render(join(dir, name), common(ctx));
  return {
    name: 'demo',
    defaults: demoDefaults,
    templateDir: dir,
    tasks: [
      packagesPresent({ names: ['coreutils', 'procps'], install: false }),
      managedFile({ path: '/etc/motd', content: template('motd.hbs'), mode: 0o644 }),
      managedFile({ path: '/etc/kcluster-demo/host.conf', content: template('host.conf.hbs'), mode: 0o640, notify: [RESTART] }),
      managedFile({
        path: '/etc/kcluster-demo/hosts.txt',
        mode: 0o644,
        content: (ctx) =>
          render(join(dir, 'hosts.txt.hbs'), {
            hosts: ctx.inventory.hosts.map((h) => ({ name: h.name, address: h.ssh.address, roles: h.roles.join(',') })),
          }),
      }),
      managedFile({
        path: '/etc/systemd/system/kcluster-demo.service',
        content: template('kcluster-demo.service.hbs'),
        mode: 0o644,
        notify: [RESTART],
        invalidates: ['systemd:*'],
      }),
      systemdService({ unit: 'kcluster-demo.service', enabled: true, state: 'started' }),
      sysctl({ key: demoDefaults.sysctlKey, value: demoDefaults.sysctlValue, persistFile: '/etc/sysctl.d/90-kcluster-demo.conf' }),
    ],
    handlers: [
      {
        name: RESTART,
        run: async (ctx) => {
          await execChecked(ctx.connection, sh`systemctl daemon-reload && systemctl restart -- kcluster-demo.service`, { become: true, label: RESTART });
        },
      },
    ],
  };
}
