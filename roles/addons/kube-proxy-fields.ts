// The KubeProxyConfiguration fields kcluster's kube-proxy ConfigMap sets, read from the template
// itself (the config.conf block), so that what cluster.kubeProxy.config may not set again cannot
// drift from what the file really says.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../src/orchestrator/util/package-root.js';

let cached: ReadonlySet<string> | undefined;

/** The keys at the top level of the config.conf block (4 spaces in), including conditional ones. */
export function configConfFields(template: string): Set<string> {
  const start = template.indexOf('  config.conf: |\n');
  const end = template.indexOf('  kubeconfig.conf: |', start);
  if (start < 0 || end < 0) throw new Error('kube-proxy template: the config.conf block was not found');
  return new Set([...template.slice(start, end).matchAll(/^ {4}([A-Za-z][A-Za-z0-9]*):/gm)].map((m) => m[1]!));
}

export function kclusterKubeProxyFields(): ReadonlySet<string> {
  cached ??= configConfFields(readFileSync(join(packageRoot(), 'roles', 'addons', 'templates', 'kube-proxy.yaml.hbs'), 'utf8'));
  return cached;
}
