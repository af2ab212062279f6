// cluster.manifests on the controller: files and folders read in order, each object tracked by
// apiVersion, kind and name, every problem at file:line:col, and what leaves them found.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { loadOperatorManifests, removedObjects } from '../../../src/kubernetes/cluster/operator-manifests.js';

const root = mkdtempSync(join(tmpdir(), 'kc-manifests-'));
const write = (name: string, text: string): string => {
  const path = join(root, name);
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, text);
  return path;
};

describe('operator manifests', () => {
  it('reads a file and a folder (its .yaml/.yml files sorted), skips empty documents, and keeps each object', async () => {
    const file = write('one.yaml', 'apiVersion: v1\nkind: Namespace\nmetadata: { name: team-a }\n---\n# only a comment\n');
    write('dir/b.yml', 'apiVersion: v1\nkind: ConfigMap\nmetadata: { name: b, namespace: team-a }\ndata: { k: v }\n');
    write('dir/a.yaml', 'apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: { name: reader }\nrules: []\n');
    write('dir/notes.txt', 'not a manifest');
    const loaded = await loadOperatorManifests([file, join(root, 'dir')]);
    expect(loaded.objects).toEqual([
      { apiVersion: 'v1', kind: 'Namespace', name: 'team-a' },
      { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', name: 'reader' },
      { apiVersion: 'v1', kind: 'ConfigMap', name: 'b', namespace: 'team-a' },
    ]);
    expect(parseAllDocuments(loaded.text).map((d) => (d.toJS() as { kind: string }).kind)).toEqual(['Namespace', 'ClusterRole', 'ConfigMap']);
  });

  it('names every problem at file:line:col: bad YAML, a document without kind or name, a List, a duplicate, a missing path', async () => {
    const bad = write(
      'bad.yaml',
      'apiVersion: v1\nkind: ConfigMap\nmetadata: { name: x }\n---\napiVersion: v1\nmetadata: { generateName: y- }\n---\nkind: [\n---\napiVersion: v1\nkind: List\nmetadata: { name: l }\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: { name: x }\n',
    );
    const error = await loadOperatorManifests([bad, join(root, 'missing.yaml')]).catch((e: Error) => e);
    expect(error).toBeInstanceOf(Error);
    const lines = (error as Error).message.split('\n');
    expect(lines[0]).toBe(
      `${bad}:5:1: missing kind, metadata.name: kcluster tracks each object by apiVersion, kind and name (generateName is not supported: give a name)`,
    );
    expect(lines[1]).toMatch(new RegExp(`^${bad}:9:1: `));
    expect(lines).toContain(`${bad}:10:1: kind List: write its items as separate documents, so kcluster can track each object`);
    expect(lines).toContain(`${bad}:14:1: ConfigMap x (v1) is also defined at ${bad}:1:1: keep one`);
    // One run, every problem: the missing path too.
    expect(lines.at(-1)).toBe(`${join(root, 'missing.yaml')}: no such file or folder (cluster.manifests)`);
    expect(lines.length).toBe(5);
    await expect(loadOperatorManifests([join(root, 'missing.yaml')])).rejects.toThrow(
      `${join(root, 'missing.yaml')}: no such file or folder (cluster.manifests)`,
    );
  });

  it('finds the objects that left the manifests (same group, kind, namespace and name are the same object)', () => {
    const previous = [
      { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: 'a' },
      { apiVersion: 'v1', kind: 'ConfigMap', name: 'gone', namespace: 'a' },
    ];
    expect(removedObjects(previous, [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: 'a' }])).toEqual([previous[1]]);
    expect(removedObjects(previous, [])).toEqual(previous);
  });
});
