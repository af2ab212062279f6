// The releases kcluster installed, read through the admin kubeconfig on the first control
// plane: Helm keeps each revision of a release in a Secret of its namespace (labels owner=helm,
// name, status, version); kcluster's carry the label kcluster-inputs (prepared-chart.ts). For
// each deployed one: its namespace, name, revision, recorded inputs and manifest (decoded from
// the Secret: base64, then Helm's base64 of gzipped JSON), so that `--check --diff` shows what
// the release holds against the new render. Values stay in the cluster: only the manifest is kept.
import { gunzipSync } from 'node:zlib';
import { sh } from '../../orchestrator/ssh/quote.js';
import type { Fact } from '../../orchestrator/engine/fact.js';
import { kubectlAnswerScript, parseKubectlAnswer } from '../facts/kubectl-answer.js';
import { adminKubectl } from '../facts/admin-kubectl.js';

const KUBECTL = '/usr/local/bin/kubectl';
import { INPUTS_LABEL } from './prepared-chart.js';

export interface ChartRelease {
  readonly namespace: string;
  readonly release: string;
  readonly revision: number;
  readonly inputs: string;
  readonly manifest: string;
}

export type ChartReleases = { readonly reachable: true; readonly releases: readonly ChartRelease[] } | { readonly reachable: false; readonly detail: string };

const SELECTOR = `owner=helm,status=deployed,${INPUTS_LABEL}`;
const COLUMNS = `{range .items[*]}{.metadata.namespace}{" "}{.metadata.labels.name}{" "}{.metadata.labels.version}{" "}{.metadata.labels.${INPUTS_LABEL}}{" "}{.data.release}{"\\n"}{end}`;

/** Helm's stored release (base64 of gzipped JSON, itself base64 in the Secret) -> its manifest. */
export function releaseManifest(secretData: string): string {
  const helmText = Buffer.from(secretData, 'base64').toString('utf8');
  const bytes = Buffer.from(helmText, 'base64');
  const json = bytes[0] === 0x1f && bytes[1] === 0x8b ? gunzipSync(bytes).toString('utf8') : bytes.toString('utf8');
  const release = JSON.parse(json) as { manifest?: unknown };
  return typeof release.manifest === 'string' ? release.manifest : '';
}

export function parseChartReleases(lines: readonly string[]): ChartRelease[] {
  return lines
    .filter((l) => l.trim() !== '')
    .map((line) => {
      const [namespace = '', release = '', revision = '', inputs = '', data = ''] = line.trim().split(' ');
      return { namespace, release, revision: Number(revision), inputs, manifest: releaseManifest(data) };
    })
    .sort((a, b) => `${a.namespace}/${a.release}`.localeCompare(`${b.namespace}/${b.release}`));
}

export const chartReleases: Fact<ChartReleases> = {
  key: 'chart-releases',
  become: true,
  // Without kubectl (a host before its first apply) there is no cluster, so no release yet.
  script: sh`[ -x ${KUBECTL} ] || { echo ok; exit 0; }
${kubectlAnswerScript(sh`${adminKubectl(20)} get secrets --all-namespaces -l ${SELECTOR} -o ${`jsonpath=${COLUMNS}`}`)}`,
  parse(stdout) {
    const answer = parseKubectlAnswer(stdout, 'the chart releases');
    return answer.reachable ? { reachable: true, releases: parseChartReleases(answer.text.split('\n')) } : answer;
  },
};
