// The generic converge workload, kcluster's way: 15 config files and 5 unit files from
// templates, 5 packages checked present, 5 units enabled and started, 5 sysctls.
// Run: kcluster run bench/generic/kcluster-playbook.mjs -i INVENTORY (after `npm run build`).
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTemplateRenderer, managedFile, packagesPresent, systemdService, sysctl } from '../../dist/src/index.js';
import { workload } from './workload.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const render = createTemplateRenderer();
const data = (ctx, index) => ({ index, host: ctx.host.name, cluster: ctx.inventory.cluster.name, payload: workload.payload });

const tasks = [
  ...workload.files.map((f) =>
    managedFile({ path: f.path, mode: 0o644, content: (ctx) => render(join(here, 'templates', 'file.conf.hbs'), data(ctx, f.index)) }),
  ),
  ...workload.units.map((u) =>
    managedFile({
      path: u.path,
      mode: 0o644,
      invalidates: ['systemd:*'],
      content: (ctx) => render(join(here, 'templates', 'unit.service.hbs'), data(ctx, u.index)),
    }),
  ),
  packagesPresent({ names: workload.packages, install: false }),
  ...workload.units.map((u) => systemdService({ unit: u.name, enabled: true, state: 'started' })),
  ...workload.sysctls.map((s) => sysctl({ key: s.key, value: s.value, persistFile: s.file })),
];

export default {
  name: 'bench-generic',
  description: 'benchmark: 20 templated files, 5 packages, 5 units, 5 sysctls',
  plays: [{ name: 'generic', hosts: 'all', roles: [{ name: 'generic', tasks }] }],
};
