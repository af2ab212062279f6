// The charts role's plans and steps (fake helm, fake release record): install, unchanged,
// upgrade with the manifest diff (Secrets' values hidden), uninstall of a release that left the
// inventory; the release record decoded as Helm stores it; Helm's arguments for each step.
import { gzipSync } from 'node:zlib';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { chartReleases, releaseManifest, type ChartReleases } from '../../../src/kubernetes/charts/chart-releases.js';
import type { PreparedChart } from '../../../src/kubernetes/charts/prepared-chart.js';
import type { WorkFolder } from '../../../src/kubernetes/charts/work-folder.js';
import { withWorkFolder } from '../../../src/kubernetes/charts/work-folder.js';
import { isPending } from '../../../src/orchestrator/engine/change.js';
import { carryOut, type HelmWithKubeconfig } from '../../../roles/charts/helm-steps.js';
import { planChart, planChartRemovals } from '../../../roles/charts/plan.js';
import { fakeHelm, type FakeHelmCall } from '../charts/fake-helm.js';

const MANIFEST = '---\n# Source: demo/templates/cm.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\ndata:\n  greeting: "hello"\n';
const WITH_SECRET = `${MANIFEST}---\n# Source: demo/templates/secret.yaml\napiVersion: v1\nkind: Secret\nmetadata:\n  name: app\nstringData:\n  password: "s3cret"\n`;

const prepared = (manifest: string, inputs = 'a'.repeat(40), values: Record<string, unknown> = {}): PreparedChart => ({
  settings: { release: 'app', namespace: 'apps', chart: '/charts/demo', version: '1.2.3', values },
  index: 0,
  manifest,
  inputs,
});

/** What a Secret of Helm's storage holds in data.release: base64 of Helm's base64 of gzipped JSON. */
const stored = (manifest: string): string =>
  Buffer.from(gzipSync(Buffer.from(JSON.stringify({ name: 'app', manifest, config: { password: 's3cret' } }))).toString('base64')).toString('base64');

const record = (releases: { namespace: string; release: string; revision: number; inputs: string; manifest: string }[]): ChartReleases =>
  chartReleases.parse(`ok\n${releases.map((r) => `${r.namespace} ${r.release} ${r.revision} ${r.inputs} ${stored(r.manifest)}`).join('\n')}\n`, 0);

describe('charts role (fake helm, fake release record)', () => {
  it('decodes a release as Helm stores it in its Secret: the manifest, not the values', () => {
    expect(releaseManifest(stored(MANIFEST))).toBe(MANIFEST);
    const parsed = record([{ namespace: 'apps', release: 'app', revision: 3, inputs: 'b'.repeat(40), manifest: MANIFEST }]);
    expect(parsed).toEqual({ reachable: true, releases: [{ namespace: 'apps', release: 'app', revision: 3, inputs: 'b'.repeat(40), manifest: MANIFEST }] });
    expect(chartReleases.parse('unreachable\nThe connection to the server was refused\n', 0)).toEqual({
      reachable: false,
      detail: 'The connection to the server was refused',
    });
  });

  it('installs a chart kcluster never installed, showing its whole manifest as added', () => {
    const change = planChart(prepared(MANIFEST), record([]));
    expect(change.kind).toBe('create');
    expect(isPending(change) && change.summary).toBe('helm install apps/app (chart version 1.2.3)');
    expect(isPending(change) && change.diff).toContain('+  greeting: "hello"');
  });

  it('changes nothing when the release carries the same inputs', () => {
    const change = planChart(prepared(MANIFEST), record([{ namespace: 'apps', release: 'app', revision: 2, inputs: 'a'.repeat(40), manifest: MANIFEST }]));
    expect(change).toEqual({ kind: 'none', reason: `apps/app is chart version 1.2.3 with these values (revision 2, inputs ${'a'.repeat(12)}…)` });
  });

  it("upgrades when the inputs changed, the diff going from the release's manifest to the new render with Secrets' values hidden", () => {
    const before = WITH_SECRET;
    const after = WITH_SECRET.replace('"hello"', '"bonjour"').replace('"s3cret"', '"n3w"');
    const change = planChart(
      prepared(after, 'c'.repeat(40)),
      record([{ namespace: 'apps', release: 'app', revision: 2, inputs: 'a'.repeat(40), manifest: before }]),
    );
    expect(change.kind).toBe('update');
    if (!isPending(change)) throw new Error('expected an upgrade');
    expect(change.summary).toBe('helm upgrade apps/app (chart version 1.2.3; revision 2 -> 3: the chart or its values changed)');
    expect(change.diff).toContain('-  greeting: "hello"');
    expect(change.diff).toContain('+  greeting: "bonjour"');
    expect(change.diff).toMatch(/- {2}password: "\(hidden: 6 bytes, sha256 [0-9a-f]{12}\)"/);
    expect(change.diff).toMatch(/\+ {2}password: "\(hidden: 3 bytes, sha256 [0-9a-f]{12}\)"/);
    expect(change.diff).not.toContain('s3cret');
    expect(change.diff).not.toContain('n3w');
  });

  it('uninstalls the releases kcluster installed that left cluster.charts, and only those', () => {
    const releases = record([
      { namespace: 'apps', release: 'app', revision: 1, inputs: 'a'.repeat(40), manifest: MANIFEST },
      { namespace: 'old', release: 'gone', revision: 4, inputs: 'd'.repeat(40), manifest: MANIFEST },
    ]);
    const change = planChartRemovals([prepared(MANIFEST)], releases);
    expect(change.kind).toBe('delete');
    if (!isPending(change)) throw new Error('expected an uninstall');
    expect(change.summary).toBe('helm uninstall old/gone (no longer in cluster.charts; their namespaces stay)');
    expect(change.payload.uninstall).toEqual([{ namespace: 'old', release: 'gone' }]);
    expect(change.diff).toContain('--- a/charts/old/gone.yaml');
    expect(planChartRemovals([prepared(MANIFEST)], record([{ namespace: 'apps', release: 'app', revision: 1, inputs: 'x', manifest: '' }])).kind).toBe('none');
  });

  it('refuses to plan when the API server does not answer', () => {
    expect(() => planChart(prepared(MANIFEST), { reachable: false, detail: 'refused' })).toThrow(
      'cannot read the chart releases through the API server: refused',
    );
  });

  it('runs helm upgrade --install with the values in a 0600 file, the inputs label and a wait, and helm uninstall (fake helm)', async () => {
    const calls: FakeHelmCall[] = [];
    const stateDir = mkdtempSync(join(tmpdir(), 'kc-charts-state-'));
    mkdirSync(join(stateDir, 'x'));
    writeFileSync(join(stateDir, 'x', 'kubeconfig'), 'fake');
    const withHelm: HelmWithKubeconfig = (use) => withWorkFolder(stateDir, (work: WorkFolder) => use(fakeHelm(calls), '/state/kubeconfig', work));
    const done = await carryOut(
      { install: prepared(MANIFEST, 'e'.repeat(40), { password: 's3cret' }), uninstall: [{ namespace: 'old', release: 'gone' }] },
      withHelm,
    );
    expect(done).toEqual(['apps/app: installed or upgraded', 'old/gone: uninstalled']);
    const [upgrade, uninstall] = calls;
    expect(upgrade!.args.filter((a) => !a.endsWith('.values.json'))).toEqual([
      'upgrade',
      'app',
      '/charts/demo',
      '--install',
      '--namespace',
      'apps',
      '--create-namespace',
      '--kubeconfig',
      '/state/kubeconfig',
      '--reset-values',
      '--values',
      '--labels',
      `kcluster-inputs=${'e'.repeat(40)}`,
      '--wait=watcher',
      '--timeout',
      '5m0s',
    ]);
    expect(upgrade!.values.map((v) => [JSON.parse(v.text), v.mode])).toEqual([[{ password: 's3cret' }, 0o600]]);
    expect(uninstall!.args).toEqual(['uninstall', 'gone', '--namespace', 'old', '--kubeconfig', '/state/kubeconfig', '--wait=watcher', '--timeout', '5m0s']);
  });
});
