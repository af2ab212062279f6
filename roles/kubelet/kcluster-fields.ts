// The KubeletConfiguration fields kcluster's own configuration sets, read from the template
// itself, so that the fields an operator may not set again (vars.kubeletConfig) cannot drift
// from what the file really says.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../src/orchestrator/util/package-root.js';

let cached: ReadonlySet<string> | undefined;

/** The top-level keys of a YAML template (lines that start with a field name and a colon). */
export function topLevelFields(template: string): Set<string> {
  return new Set([...template.matchAll(/^([A-Za-z][A-Za-z0-9]*):/gm)].map((m) => m[1]!));
}

export function kclusterKubeletFields(): ReadonlySet<string> {
  cached ??= topLevelFields(readFileSync(join(packageRoot(), 'roles', 'kubelet', 'templates', 'config.yaml.hbs'), 'utf8'));
  return cached;
}
