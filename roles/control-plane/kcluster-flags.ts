// The flags kcluster's own manifests give each control-plane component, read from the
// templates themselves so that the list of flags an operator may not set again
// (cluster.<component>.extraArgs) cannot drift from what the manifests really say.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ControlPlaneComponent } from '../../src/kubernetes/cluster/component-args.js';
import { packageRoot } from '../../src/orchestrator/util/package-root.js';

const cache = new Map<ControlPlaneComponent, ReadonlySet<string>>();

/** "--name=value" and "--name" items of the manifest's command list. */
export function flagsInManifestTemplate(text: string): Set<string> {
  return new Set([...text.matchAll(/^\s*- --([a-z0-9][a-z0-9-]*)(?:=|\s*$)/gm)].map((m) => m[1]!));
}

export function kclusterFlags(component: ControlPlaneComponent): ReadonlySet<string> {
  let flags = cache.get(component);
  if (!flags) {
    flags = flagsInManifestTemplate(readFileSync(join(packageRoot(), 'roles', 'control-plane', 'templates', `${component}.yaml.hbs`), 'utf8'));
    cache.set(component, flags);
  }
  return flags;
}
