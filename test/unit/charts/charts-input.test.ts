// cluster.charts checked before any host is touched (with a fake helm): each problem at the
// inventory's file:line:col, the render and the inputs that say when to upgrade, values only in
// files of mode 0600.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { chartsOrInputError, type ChartsDeps } from '../../../src/kubernetes/charts/charts-input.js';
import type { HelmBinary } from '../../../src/kubernetes/charts/helm-binary.js';
import { loadInventoryText } from '../support/inventory-text.js';
import { fakeHelm, type FakeHelmCall } from './fake-helm.js';

const root = mkdtempSync(join(tmpdir(), 'kc-charts-'));
mkdirSync(join(root, 'demo'));
writeFileSync(join(root, 'demo', 'Chart.yaml'), 'apiVersion: v2\nname: demo\nversion: 1.2.3\n');
writeFileSync(join(root, 'good-values.yaml'), '{"image": "pause:1", "greeting": "from the file"}\n');
writeFileSync(join(root, 'bad-values.yaml'), 'a: 1\n  b: [\n');
writeFileSync(join(root, 'list-values.yaml'), '- a\n- b\n');

const HOSTS = 'hosts:\n  - { name: cp1, address: 10.0.0.1, roles: [control-plane] }\n';
const inventoryWith = (charts: string) => loadInventoryText(root, `cluster:\n  charts:\n${charts}${HOSTS}`);
const chart = (release: string, extra = '', version = '1.2.3', path = 'demo'): string =>
  `    - release: ${release}\n      namespace: apps\n      chart: ${path}\n      version: ${version}\n${extra}`;

function fakeDeps(calls: FakeHelmCall[] = [], helm: HelmBinary = { path: '/fake/helm', version: 'v4.3.1' }): ChartsDeps {
  return { helmBinary: async () => helm, runner: () => fakeHelm(calls) };
}

async function refusal(charts: string): Promise<string[]> {
  const inventory = inventoryWith(charts);
  const error = await chartsOrInputError(inventory, fakeDeps()).then(
    () => undefined,
    (e: Error) => e,
  );
  expect(error?.name).toBe('InputError');
  return error!.message.split('\n').map((l) => l.replace(inventory.file, 'inv.yaml'));
}

describe('cluster.charts before any host is touched (fake helm)', () => {
  it('refuses a missing chart, a version mismatch, a values file that does not parse or is not a map, and a chart that fails to render, each at its file:line:col', async () => {
    const lines = await refusal(
      [
        chart('missing', '', '1.2.3', 'nowhere'),
        chart('mismatch', '', '1.2.4'),
        chart('badfile', '      valuesFile: bad-values.yaml\n'),
        chart('listfile', '      valuesFile: list-values.yaml\n'),
        chart('norender'),
      ].join(''),
    );
    expect(lines).toEqual([
      `inv.yaml:5:14: cluster.charts[0].chart: ${join(root, 'nowhere')}: no such chart archive or folder on the controller`,
      `inv.yaml:10:16: cluster.charts[1].version: ${join(root, 'demo')} is chart version 1.2.3, not 1.2.4: set version to the chart's if this is the chart you mean, or use the chart of version 1.2.4`,
      `inv.yaml:15:19: cluster.charts[2].valuesFile: the values file does not parse: ${join(root, 'bad-values.yaml')}:1:4: Nested mappings are not allowed in compact mappings`,
      `inv.yaml:20:19: cluster.charts[3].valuesFile: the values file does not parse: ${join(root, 'list-values.yaml')}:1:1: a values file must be a map of values`,
      'inv.yaml:21:7: cluster.charts[4]: norender: the chart does not render with these values: execution error at (test/templates/deployment.yaml:29:20): set image',
    ]);
  });

  it('refuses charts when there is no helm to run them (bundle without helm, source: release), at cluster.charts; without charts it is no error', async () => {
    const missing = { missing: 'kcluster runs the helm of its bundle, and cluster.artifacts.source is release: set source: bundle' };
    const inventory = inventoryWith(chart('app', '      values: { image: "pause:1" }\n'));
    await expect(chartsOrInputError(inventory, fakeDeps([], missing))).rejects.toThrow(
      `${inventory.file}:3:5: cluster.charts: kcluster runs the helm of its bundle, and cluster.artifacts.source is release: set source: bundle`,
    );
    const none = loadInventoryText(root, HOSTS);
    expect(await chartsOrInputError(none, fakeDeps([], missing))).toEqual({ helm: missing, charts: [] });
  });

  it('renders each chart for the cluster version with the values file first and the inline values last, passed only as files of mode 0600', async () => {
    const calls: FakeHelmCall[] = [];
    const inventory = inventoryWith(chart('app', '      valuesFile: good-values.yaml\n      values: { greeting: inline, password: s3cret }\n'));
    const prepared = await chartsOrInputError(inventory, fakeDeps(calls));
    const render = calls.find((c) => c.args[0] === 'template')!;
    expect(render.args.slice(0, 7)).toEqual([
      'template',
      'app',
      join(root, 'demo'),
      '--namespace',
      'apps',
      '--kube-version',
      inventory.cluster.kubernetesVersion,
    ]);
    expect(render.values.map((v) => [v.path === join(root, 'good-values.yaml') ? 'file' : 'inline', v.mode & 0o077])).toEqual([
      ['file', expect.any(Number)],
      ['inline', 0],
    ]);
    expect(JSON.parse(render.values[1]!.text)).toEqual({ greeting: 'inline', password: 's3cret' });
    expect(calls.flatMap((c) => c.args).join(' ')).not.toContain('s3cret');
    expect(prepared.charts[0]!.manifest).toContain('greeting: inline');
    expect(prepared.charts[0]!.inputs).toMatch(/^[0-9a-f]{40}$/);
  });

  it('gives the same inputs for the same chart and values, other inputs when a value or the chart changes', async () => {
    const inputsOf = async (values: string): Promise<string> =>
      (await chartsOrInputError(inventoryWith(chart('app', `      values: ${values}\n`)), fakeDeps())).charts[0]!.inputs;
    const first = await inputsOf('{ image: "pause:1" }');
    expect(await inputsOf('{ image: "pause:1" }')).toBe(first);
    expect(await inputsOf('{ image: "pause:2" }')).not.toBe(first);
    writeFileSync(join(root, 'demo', 'NOTES.txt'), 'changed\n');
    expect(await inputsOf('{ image: "pause:1" }')).not.toBe(first);
  });
});
