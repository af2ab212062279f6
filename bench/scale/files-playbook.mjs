// The scale workload: the generic workload's 20 templated files (15 configs, 5 unit files),
// which light lab hosts (no systemd, no package manager runs) can carry at 100-200 hosts.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTemplateRenderer, managedFile } from '../../dist/src/index.js';
import { workload } from '../generic/workload.mjs';

const templates = join(dirname(fileURLToPath(import.meta.url)), '..', 'generic', 'templates');
const render = createTemplateRenderer();
const data = (ctx, index) => ({ index, host: ctx.host.name, cluster: ctx.inventory.cluster.name, payload: workload.payload });

export default {
  name: 'bench-scale',
  description: 'benchmark: 20 templated files per host',
  plays: [
    {
      name: 'files',
      hosts: 'all',
      roles: [
        {
          name: 'files',
          tasks: [
            ...workload.files.map((f) =>
              managedFile({ path: f.path, mode: 0o644, content: (ctx) => render(join(templates, 'file.conf.hbs'), data(ctx, f.index)) }),
            ),
            ...workload.units.map((u) =>
              managedFile({ path: u.path, mode: 0o644, content: (ctx) => render(join(templates, 'unit.service.hbs'), data(ctx, u.index)) }),
            ),
          ],
        },
      ],
    },
  ],
};
