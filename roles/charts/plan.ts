// The plans of the charts role, pure: a chart of the inventory against the release kcluster
// installed (the inputs label says whether the chart or its values changed), and the releases
// kcluster installed that left the inventory. The diff is the release's manifest against the
// new render, Secrets' values hidden.
import { noChange, type Change } from '../../src/orchestrator/engine/change.js';
import { createTwoFilesPatch } from '../../src/orchestrator/tasks/managed-file.js';
import type { ChartRelease, ChartReleases } from '../../src/kubernetes/charts/chart-releases.js';
import { maskedManifest } from '../../src/kubernetes/charts/masked-manifest.js';
import type { PreparedChart } from '../../src/kubernetes/charts/prepared-chart.js';

export interface ChartPayload {
  readonly install?: PreparedChart;
  readonly uninstall?: readonly Pick<ChartRelease, 'namespace' | 'release'>[];
}

const id = (r: { readonly namespace: string; readonly release: string }): string => `${r.namespace}/${r.release}`;
const file = (side: 'a' | 'b', r: { readonly namespace: string; readonly release: string }): string => `${side}/charts/${id(r)}.yaml`;

function releasesOf(releases: ChartReleases): readonly ChartRelease[] {
  if (!releases.reachable) throw new Error(`cannot read the chart releases through the API server: ${releases.detail}`);
  return releases.releases;
}

export function planChart(chart: PreparedChart, releases: ChartReleases): Change<ChartPayload> {
  const { release, namespace, version } = chart.settings;
  const current = releasesOf(releases).find((r) => r.namespace === namespace && r.release === release);
  if (current?.inputs === chart.inputs)
    return noChange(`${id(chart.settings)} is chart version ${version} with these values (revision ${current.revision}, inputs ${chart.inputs.slice(0, 12)}…)`);
  const summary =
    current === undefined
      ? `helm install ${id(chart.settings)} (chart version ${version})`
      : `helm upgrade ${id(chart.settings)} (chart version ${version}; revision ${current.revision} -> ${current.revision + 1}: the chart or its values changed)`;
  const diff = createTwoFilesPatch(
    file('a', chart.settings),
    file('b', chart.settings),
    maskedManifest(current?.manifest ?? ''),
    maskedManifest(chart.manifest),
  );
  return { kind: current === undefined ? 'create' : 'update', summary, diff, payload: { install: chart } };
}

export function planChartRemovals(charts: readonly PreparedChart[], releases: ChartReleases): Change<ChartPayload> {
  const kept = new Set(charts.map((c) => id(c.settings)));
  const gone = releasesOf(releases).filter((r) => !kept.has(id(r)));
  if (gone.length === 0) return noChange('no release kcluster installed has left cluster.charts');
  const diff = gone.map((r) => createTwoFilesPatch(file('a', r), file('b', r), maskedManifest(r.manifest), '')).join('');
  return {
    kind: 'delete',
    summary: `helm uninstall ${gone.map(id).join(', ')} (no longer in cluster.charts; their namespaces stay)`,
    diff,
    payload: { uninstall: gone.map((r) => ({ namespace: r.namespace, release: r.release })) },
  };
}
