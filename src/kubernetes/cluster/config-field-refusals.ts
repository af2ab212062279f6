// The operator's KubeletConfiguration fields (vars.kubeletConfig, merged per host) and
// KubeProxyConfiguration fields (cluster.kubeProxy.config) checked against the field trees of
// the inventory's Kubernetes minor, each problem at the file:line:col where it is written (the
// host's vars, a group's, or the cluster's), once.
import type { Inventory } from '../../orchestrator/inventory/model.js';
import type { SourceMap } from '../inventory/source-map.js';
import { configFieldProblems, type ConfigFieldProblem } from './config-field-check.js';
import { configFieldsFor } from './config-fields.js';

type Path = readonly (string | number)[];

/** Where a problem is written under `base`, or undefined when `base` does not write it. */
function writtenAt(map: SourceMap, base: Path, problem: ConfigFieldProblem): { line: number; col: number } | undefined {
  const full = [...base, ...problem.path];
  // The deepest map key on the path: lists are never merged, so where it is written holds the rest.
  let j = full.length - 1;
  while (j >= 0 && typeof full[j] !== 'string') j--;
  const key = full[j];
  if (typeof key !== 'string') return undefined;
  const at = map.keyIfWritten(full.slice(0, j), key);
  if (at === undefined) return undefined;
  return problem.atKey ? at : map.value(full);
}

/** One line per problem, `file:line:col: path: message`; none when the minor has no field trees. */
export function configFieldRefusals(inventory: Inventory, sourceMap: () => SourceMap): string[] {
  const trees = configFieldsFor(inventory.cluster.kubernetesVersion);
  if (trees === undefined) return []; // a version kcluster does not know is refused with the artifacts
  const file = inventory.file;
  const lines: string[] = [];
  const seen = new Set<string>();
  let map: SourceMap | undefined;
  const report = (candidates: Path[], problem: ConfigFieldProblem, fallback: string): void => {
    map ??= sourceMap();
    const found = candidates.map((base) => ({ base, at: writtenAt(map!, base, problem) })).find((c) => c.at !== undefined);
    const where = found
      ? `${file}:${found.at!.line}:${found.at!.col}: ${[...found.base, ...problem.path].join('.')}`
      : `${file}: ${fallback}.${problem.path.join('.')}`;
    const line = `${where}: ${problem.message}`;
    if (seen.has(line)) return;
    seen.add(line);
    lines.push(line);
  };

  const proxyBase = ['cluster', 'kubeProxy', 'config'];
  const proxyComponent = `kube-proxy's KubeProxyConfiguration of Kubernetes ${trees.kubernetesVersion}`;
  for (const problem of configFieldProblems(inventory.cluster.kubeProxy.config, trees.kubeProxy, proxyComponent)) {
    report([proxyBase], problem, proxyBase.join('.'));
  }

  const kubeletComponent = `the kubelet's KubeletConfiguration of Kubernetes ${trees.kubernetesVersion}`;
  inventory.hosts.forEach((host, i) => {
    const groups = Object.entries(inventory.groups)
      .filter(([, members]) => members.includes(host.name))
      .map(([g]): Path => ['groups', g, 'vars', 'kubeletConfig']);
    const candidates: Path[] = [['hosts', i, 'vars', 'kubeletConfig'], ...groups, ['vars', 'kubeletConfig']];
    for (const problem of configFieldProblems(host.vars['kubeletConfig'], trees.kubelet, kubeletComponent)) {
      report(candidates, problem, `host ${host.name}: vars.kubeletConfig`);
    }
  });
  return lines;
}
