// The demo role: the engine at work before Kubernetes. Files from templates, a systemd
// service restarted by a handler only when its unit file or config changed, a sysctl, and a
// package check. See README.md beside this file for what it guarantees.
import { join } from 'node:path';
import type { HostContext, Role } from '../../src/orchestrator/engine/types.js';
import { execChecked } from '../../src/orchestrator/ssh/connection.js';
import { sh } from '../../src/orchestrator/ssh/quote.js';
import { createTemplateRenderer } from '../../src/orchestrator/templates/render.js';
import { templateFile } from '../../src/orchestrator/tasks/template-file.js';
import { packagePresent } from '../../src/orchestrator/tasks/package-present.js';
import { systemdService } from '../../src/orchestrator/tasks/systemd-service.js';
import { sysctl } from '../../src/orchestrator/tasks/sysctl.js';
import { packageRoot } from '../../src/orchestrator/util/package-root.js';
import { DEMO_SERVICE, DEMO_SYSCTL, demoDefaults } from './defaults.js';

const RESTART = `restart ${DEMO_SERVICE}`;

// From the package root, so the same path works from src/ (tests) and dist/ (the CLI).
const templateDir = join(packageRoot(), 'roles', 'demo', 'templates');

/** Values every demo template may use: computed here, so the templates stay flat. */
export function demoTemplateData(ctx: HostContext): Record<string, unknown> {
  return {
    host: ctx.host.name,
    roles: ctx.host.roles.join(','),
    cluster: ctx.inventory.cluster.name,
    motd: String(ctx.vars['motd']),
    greeting: String(ctx.vars['greeting']),
    hosts: ctx.inventory.hosts.map((h) => ({ name: h.name, address: h.ssh.address, roles: h.roles.join(',') })),
  };
}

function buildDemoRole(): Role {
  const renderer = createTemplateRenderer();
  const file = (name: string, path: string, mode: number, more: { notify?: readonly string[]; invalidates?: readonly string[] } = {}) =>
    templateFile({ path, template: join(templateDir, name), data: demoTemplateData, mode, renderer, ...more });
  return {
    name: 'demo',
    defaults: demoDefaults,
    templateDir,
    tasks: [
      packagePresent({ names: ['coreutils', 'procps'], install: false }),
      file('motd.hbs', '/etc/motd', 0o644),
      file('host.conf.hbs', '/etc/kcluster-demo/host.conf', 0o640, { notify: [RESTART] }),
      file('hosts.txt.hbs', '/etc/kcluster-demo/hosts.txt', 0o644),
      file('kcluster-demo.service.hbs', `/etc/systemd/system/${DEMO_SERVICE}`, 0o644, { notify: [RESTART], invalidates: ['systemd:*'] }),
      systemdService({ name: DEMO_SERVICE, enabled: true, state: 'started' }),
      sysctl(DEMO_SYSCTL),
    ],
    handlers: [
      {
        name: RESTART,
        run: async (ctx) => {
          // daemon-reload first: the unit file itself may be what changed.
          await execChecked(ctx.connection, sh`systemctl daemon-reload && systemctl restart -- ${DEMO_SERVICE}`, { become: true, label: RESTART });
        },
      },
    ],
  };
}

export const demoRole: Role = buildDemoRole();
