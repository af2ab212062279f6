// The fields the kubelet's KubeletConfiguration and kube-proxy's KubeProxyConfiguration accept,
// per Kubernetes minor: JSON trees generated from the Kubernetes API types by reflection
// (tools/config-fields/main.go, `npm run gen:config-fields`), one committed file per minor of
// the version table, so that an operator's misspelt field is refused instead of ignored.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../orchestrator/util/package-root.js';
import { minorOf } from '../artifacts/component-versions.js';

/** Where the generated trees live, relative to the package root. */
export const CONFIG_FIELDS_DIR = 'src/kubernetes/cluster/config-fields';

/** The JSON form of a value: a scalar kind, or an object, map or list with what it holds. */
export type ConfigFieldKind =
  'string' | 'int' | 'float' | 'bool' | 'duration' | 'durationOrInt' | 'quantity' | 'intOrString' | 'any' | 'object' | 'map' | 'list';

export interface ConfigFieldNode {
  readonly kind: ConfigFieldKind;
  /** An object's fields, by their JSON names. */
  readonly fields?: Readonly<Record<string, ConfigFieldNode>>;
  /** What a map's values are (its keys are free). */
  readonly values?: ConfigFieldNode;
  /** What a list's items are. */
  readonly items?: ConfigFieldNode;
}

/** One minor's file: the release and the modules it was generated from, and both trees. */
export interface ConfigFieldTrees {
  readonly kubernetesVersion: string;
  readonly modules: Readonly<Record<string, string>>;
  readonly kubelet: ConfigFieldNode;
  readonly kubeProxy: ConfigFieldNode;
}

/** The file of a minor ("1.37"), relative to the package root. */
export function configFieldsFile(minor: string): string {
  return `${CONFIG_FIELDS_DIR}/v${minor}.json`;
}

/** The version of the staging modules (k8s.io/kubelet, k8s.io/kube-proxy) of a release: v1.37.2 -> v0.37.2. */
export function stagingVersion(release: string): string {
  return release.replace(/^v1\./, 'v0.');
}

const cache = new Map<string, ConfigFieldTrees | undefined>();

/** The trees for a Kubernetes version's minor; undefined when kcluster has none for it. */
export function configFieldsFor(kubernetesVersion: string): ConfigFieldTrees | undefined {
  const minor = /^v\d+\.\d+\.\d+$/.test(kubernetesVersion) ? minorOf(kubernetesVersion) : undefined;
  if (minor === undefined) return undefined;
  if (!cache.has(minor)) {
    const file = join(packageRoot(), configFieldsFile(minor));
    cache.set(minor, existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as ConfigFieldTrees) : undefined);
  }
  return cache.get(minor);
}
