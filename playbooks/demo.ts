// demo: one play on every host, running the demo role. Shows the engine before Kubernetes.
import type { Playbook } from '../src/orchestrator/engine/types.js';
import { demoRole } from '../roles/demo/index.js';

export const demoPlaybook: Playbook = {
  name: 'demo',
  description: 'files from templates, a systemd service with a restart handler, a sysctl, a package check',
  plays: [{ name: 'demo', hosts: 'all', roles: [demoRole] }],
};
