// cluster.charts checked and rendered on the controller before any host is touched, with Helm's
// own logic: the chart is there, Helm reads it (`helm show chart`) and its version is the one
// the inventory expects, the values file parses, and `helm template` renders the chart with its
// values for the cluster's Kubernetes version. Every problem comes back at the inventory path
// it is about (the caller turns it into file:line:col).
import { createHash } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { parse } from 'yaml';
import type { Inventory } from '../../orchestrator/inventory/model.js';
import type { ChartSettings } from '../inventory/cluster-settings.js';
import { chartDigest } from './chart-digest.js';
import { valuesArgs, valuesFileProblem, valuesText } from './chart-values.js';
import { helmError, type HelmRunner } from './helm-runner.js';
import type { PreparedChart } from './prepared-chart.js';
import type { WorkFolder } from './work-folder.js';

export interface ChartProblem {
  /** Inventory path: ['cluster', 'charts', 0, 'version']. */
  readonly path: readonly (string | number)[];
  readonly message: string;
}

export class ChartError extends Error {
  constructor(readonly problems: readonly ChartProblem[]) {
    super(problems.map((p) => p.message).join('\n'));
    this.name = 'ChartError';
  }
}

/** The version Chart.yaml gives, as `helm show chart` prints it. */
function chartVersionOf(chartYaml: string): string | undefined {
  const value = parse(chartYaml) as { version?: unknown } | null;
  return typeof value?.version === 'string' ? value.version : undefined;
}

async function prepareOne(
  settings: ChartSettings,
  index: number,
  inventory: Inventory,
  helm: HelmRunner,
  work: WorkFolder,
): Promise<PreparedChart | ChartProblem> {
  const at = (key?: string): (string | number)[] => ['cluster', 'charts', index, ...(key !== undefined ? [key] : [])];
  const info = await stat(settings.chart).catch(() => undefined);
  if (info === undefined) return { path: at('chart'), message: `${settings.chart}: no such chart archive or folder on the controller` };
  if (settings.valuesFile !== undefined) {
    const problem = await valuesFileProblem(settings.valuesFile);
    if (problem !== undefined) return { path: at('valuesFile'), message: `the values file does not parse: ${problem}` };
  }
  const shown = await helm(['show', 'chart', settings.chart]);
  if (shown.code !== 0) return { path: at('chart'), message: `${settings.chart}: Helm cannot read this chart: ${helmError(shown)}` };
  const version = chartVersionOf(shown.stdout);
  if (version !== settings.version)
    return {
      path: at('version'),
      message: `${settings.chart} is chart version ${version ?? '(none)'}, not ${settings.version}: set version to the chart's if this is the chart you mean, or use the chart of version ${settings.version}`,
    };
  const name = `chart-${index}`;
  const rendered = await helm([
    'template',
    settings.release,
    settings.chart,
    '--namespace',
    settings.namespace,
    '--kube-version',
    inventory.cluster.kubernetesVersion,
    ...(await valuesArgs(settings, work, name)),
  ]);
  if (rendered.code !== 0) return { path: at(), message: `${settings.release}: the chart does not render with these values: ${helmError(rendered)}` };
  const inputs = createHash('sha256')
    .update(JSON.stringify([settings.release, settings.namespace, settings.version, await chartDigest(settings.chart), await valuesText(settings)]))
    .digest('hex')
    .slice(0, 40);
  return { settings, index, manifest: rendered.stdout, inputs };
}

/** Every chart of the inventory prepared, or a ChartError with every problem. */
export async function prepareCharts(inventory: Inventory, helm: HelmRunner, work: WorkFolder): Promise<PreparedChart[]> {
  const prepared: PreparedChart[] = [];
  const problems: ChartProblem[] = [];
  for (const [index, settings] of inventory.cluster.charts.entries()) {
    const one = await prepareOne(settings, index, inventory, helm, work);
    if ('manifest' in one) prepared.push(one);
    else problems.push(one);
  }
  if (problems.length > 0) throw new ChartError(problems);
  return prepared;
}
