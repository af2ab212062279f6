// A chart of cluster.charts once checked and rendered on the controller: what the charts role
// plans and applies from.
import type { ChartSettings } from '../inventory/cluster-settings.js';
import type { HelmBinary } from './helm-binary.js';

export interface PreparedChart {
  readonly settings: ChartSettings;
  /** Its index in cluster.charts (for messages). */
  readonly index: number;
  /** `helm template`'s output for these values: what the release's manifest becomes. */
  readonly manifest: string;
  /**
   * What the release label records (kcluster-inputs): the sha256 of the chart's content, the
   * values and where it goes, cut to 40 hex digits (a label value holds at most 63 characters).
   */
  readonly inputs: string;
}

export interface PreparedCharts {
  readonly helm: HelmBinary;
  readonly charts: readonly PreparedChart[];
}

/** The label Helm puts on the releases kcluster installed (`helm upgrade --labels`). */
export const INPUTS_LABEL = 'kcluster-inputs';
