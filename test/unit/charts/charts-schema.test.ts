// cluster.charts in the inventory: each entry's shape and the one-release-per-namespace rule,
// refused at file:line:col; paths resolved against the inventory's folder.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatDiagnostic } from '../../../src/kubernetes/inventory/load-inventory.js';
import { loadInventoryText, parseInventoryText } from '../support/inventory-text.js';

const root = mkdtempSync(join(tmpdir(), 'kc-charts-schema-'));
const HOSTS = 'hosts:\n  - { name: cp1, address: 10.0.0.1, roles: [control-plane] }\n';

function errorsOf(charts: string): string[] {
  const { file, result } = parseInventoryText(root, `cluster:\n  charts:\n${charts}${HOSTS}`);
  return result.ok ? [] : result.errors.map((d) => formatDiagnostic(d).replace(file, 'inv.yaml'));
}

describe('cluster.charts in the inventory', () => {
  it('refuses a bad release name, a missing version, an unknown key and values that are not a map, each at its line', () => {
    const errors = errorsOf(
      [
        '    - { release: My_App, namespace: apps, chart: a.tgz, version: 1.0.0 }\n',
        '    - { release: b, namespace: apps, chart: b.tgz }\n',
        '    - { release: c, namespace: apps, chart: c.tgz, version: 1.0.0, value: {} }\n',
        '    - { release: d, namespace: apps, chart: d.tgz, version: 1.0.0, values: [a] }\n',
      ].join(''),
    );
    expect(errors).toEqual([
      `inv.yaml:3:18: cluster.charts[0].release: must be a Helm release name: lowercase letters, digits and '-', at most 53 characters (got "My_App")`,
      'inv.yaml:4:7: cluster.charts[1]: missing required key "version"',
      'inv.yaml:5:68: cluster.charts[2].value: unknown key "value"; did you mean "values"? (allowed: release, namespace, chart, version, values, valuesFile)',
      `inv.yaml:6:76: cluster.charts[3].values: must be a map of the chart's values (got ["a"])`,
    ]);
  });

  it('refuses two charts with the same release in one namespace, at the second', () => {
    expect(
      errorsOf(
        '    - { release: app, namespace: apps, chart: a.tgz, version: 1.0.0 }\n    - { release: app, namespace: apps, chart: b.tgz, version: 2.0.0 }\n',
      ),
    ).toEqual(['inv.yaml:4:18: cluster.charts[1].release: release app in namespace apps is also cluster.charts[0]: give each chart its own release name']);
  });

  it('resolves the chart and the values file against the inventory folder; inline values default to none', () => {
    const inventory = loadInventoryText(
      root,
      `cluster:\n  charts:\n    - { release: app, namespace: apps, chart: charts/app, version: 1.0.0, valuesFile: v.yaml }\n${HOSTS}`,
    );
    expect(inventory.cluster.charts).toEqual([
      { release: 'app', namespace: 'apps', chart: join(root, 'charts/app'), version: '1.0.0', values: {}, valuesFile: join(root, 'v.yaml') },
    ]);
  });
});
