// cluster.charts before any host is touched: the helm to run, and every chart prepared
// (prepare-charts.ts), or an InputError whose lines each name the inventory's file:line:col.
import { tmpdir } from 'node:os';
import type { Inventory } from '../../orchestrator/inventory/model.js';
import { InputError } from '../../orchestrator/engine/input-error.js';
import { SourceMap } from '../inventory/source-map.js';
import { ArtifactError } from '../artifacts/artifact.js';
import { helmBinaryFor, type HelmBinary } from './helm-binary.js';
import { localHelm, type HelmRunner } from './helm-runner.js';
import { ChartError, prepareCharts, type ChartProblem } from './prepare-charts.js';
import type { PreparedCharts } from './prepared-chart.js';
import { withWorkFolder } from './work-folder.js';

function located(inventory: Inventory, problems: readonly ChartProblem[]): InputError {
  const map = SourceMap.ofFile(inventory.file);
  const lines = problems.map((p) => {
    const { line, col } = map.value(p.path);
    const path = p.path
      .map((s) => (typeof s === 'number' ? `[${s}]` : `.${s}`))
      .join('')
      .slice(1);
    return `${inventory.file}:${line}:${col}: ${path}: ${p.message}`;
  });
  return new InputError(lines.join('\n'));
}

/** Where helm comes from and how it runs: the bundle's, run locally; tests give fakes. */
export interface ChartsDeps {
  readonly helmBinary: (inventory: Inventory) => Promise<HelmBinary>;
  readonly runner: (binary: string, workDir: string) => HelmRunner;
}

const BUNDLE_HELM: ChartsDeps = { helmBinary: (inventory) => helmBinaryFor(inventory), runner: (binary, workDir) => localHelm(binary, workDir) };

export async function chartsOrInputError(inventory: Inventory, deps: ChartsDeps = BUNDLE_HELM): Promise<PreparedCharts> {
  let helm: HelmBinary;
  try {
    helm = await deps.helmBinary(inventory);
  } catch (error) {
    if (!(error instanceof ArtifactError)) throw error;
    helm = { missing: error.message };
  }
  if (inventory.cluster.charts.length === 0) return { helm, charts: [] };
  if ('missing' in helm) throw located(inventory, [{ path: ['cluster', 'charts'], message: helm.missing }]);
  const binary = helm.path;
  try {
    const charts = await withWorkFolder(tmpdir(), (work) => prepareCharts(inventory, deps.runner(binary, work.dir), work));
    return { helm, charts };
  } catch (error) {
    if (error instanceof ChartError) throw located(inventory, error.problems);
    throw error;
  }
}
