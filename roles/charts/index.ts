// The charts role: cluster.charts installed, upgraded and uninstalled with Helm's own logic, run
// once per cluster after the operator's manifests. Its tasks plan on the first control plane's
// slot (the release record is read there with the admin kubeconfig, as the addons' record) and
// carry out on the controller with the bundle's helm (helm-steps.ts). See README.md beside this file.
import type { Role, Task } from '../../src/orchestrator/engine/types.js';
import type { ClusterInputs } from '../../src/kubernetes/cluster/cluster-inputs.js';
import { chartReleases } from '../../src/kubernetes/charts/chart-releases.js';
import type { PreparedChart } from '../../src/kubernetes/charts/prepared-chart.js';
import { adminHelm, carryOut, type HelmWithKubeconfig } from './helm-steps.js';
import { planChart, planChartRemovals, type ChartPayload } from './plan.js';

type ChartTask = Task<{ releases: typeof chartReleases }, ChartPayload>;

function chartTask(chart: PreparedChart, withHelm: (signal: AbortSignal) => HelmWithKubeconfig): ChartTask {
  return {
    name: `chart ${chart.settings.namespace}/${chart.settings.release}`,
    tags: ['charts'],
    facts: () => ({ releases: chartReleases }),
    plan: (facts) => planChart(chart, facts.releases),
    apply: async (change, ctx) => {
      for (const line of await carryOut(change.payload, withHelm(ctx.signal))) ctx.log(line);
    },
  };
}

function removalsTask(charts: readonly PreparedChart[], withHelm: (signal: AbortSignal) => HelmWithKubeconfig): ChartTask {
  return {
    name: 'charts removed from the inventory',
    tags: ['charts'],
    facts: () => ({ releases: chartReleases }),
    plan: (facts) => planChartRemovals(charts, facts.releases),
    apply: async (change, ctx) => {
      for (const line of await carryOut(change.payload, withHelm(ctx.signal))) ctx.log(line);
    },
  };
}

/** Removals first: a release renamed in the inventory frees its objects before the new one takes them. */
export function chartsRole(inputs: ClusterInputs, withHelm: (signal: AbortSignal) => HelmWithKubeconfig = (signal) => adminHelm(inputs, signal)): Role {
  const charts = inputs.charts?.charts ?? [];
  return { name: 'charts', tags: ['charts'], tasks: [removalsTask(charts, withHelm), ...charts.map((c) => chartTask(c, withHelm))] };
}
