// The operator's own manifests (cluster.manifests): files and folders on the controller, read
// and checked before any host is touched (YAML errors and objects without apiVersion, kind or
// metadata.name at file:line:col), joined into one manifest that is applied server-side.
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { isMap, isScalar, LineCounter, parseAllDocuments } from 'yaml';

/** One object the manifests hold: what kcluster deletes when it leaves them. */
export interface ObjectRef {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  /** As written; absent: the default namespace for a namespaced kind. */
  readonly namespace?: string;
}

export interface OperatorManifests {
  /** Every document, in file order, as one multi-document YAML text. */
  readonly text: string;
  readonly objects: readonly ObjectRef[];
}

/** The record is a ConfigMap (at most 1 MiB): the manifests must fit with room to spare. */
export const MAX_MANIFEST_BYTES = 512 * 1024;

export class ManifestError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(problems.join('\n'));
    this.name = 'ManifestError';
  }
}

export const refText = (r: ObjectRef): string => `${r.kind} ${r.namespace ? `${r.namespace}/` : ''}${r.name} (${r.apiVersion})`;
const refKey = (r: ObjectRef): string => `${r.apiVersion.includes('/') ? r.apiVersion.split('/')[0] : ''}|${r.kind}|${r.namespace ?? ''}|${r.name}`;

async function filesOf(path: string, problems: string[]): Promise<string[]> {
  const info = await stat(path).catch(() => undefined);
  if (info === undefined) {
    problems.push(`${path}: no such file or folder (cluster.manifests)`);
    return [];
  }
  if (!info.isDirectory()) return [path];
  const names = (await readdir(path)).filter((n) => /\.ya?ml$/.test(n)).sort();
  if (names.length === 0) problems.push(`${path}: the folder holds no .yaml or .yml file (cluster.manifests)`);
  return names.map((n) => join(path, n));
}

export async function loadOperatorManifests(paths: readonly string[]): Promise<OperatorManifests> {
  const problems: string[] = [];
  const documents: string[] = [];
  const objects: ObjectRef[] = [];
  const seen = new Map<string, string>();
  for (const path of paths) {
    for (const file of await filesOf(path, problems)) {
      const source = await readFile(file, 'utf8');
      const lines = new LineCounter();
      const where = (offset: number | undefined): string => {
        const { line, col } = lines.linePos(offset ?? 0);
        return `${file}:${line}:${col}`;
      };
      for (const doc of parseAllDocuments(source, { lineCounter: lines, prettyErrors: false })) {
        if (doc.errors.length > 0) {
          for (const e of doc.errors) problems.push(`${where(e.pos[0])}: ${e.message.split('\n')[0]}`);
          continue;
        }
        if (doc.contents === null || (isScalar(doc.contents) && doc.contents.value === null)) continue;
        const at = where(doc.contents.range?.[0]);
        if (!isMap(doc.contents)) {
          problems.push(`${at}: a manifest document must be a map with apiVersion, kind and metadata`);
          continue;
        }
        const value = doc.toJS() as { apiVersion?: unknown; kind?: unknown; metadata?: { name?: unknown; namespace?: unknown; generateName?: unknown } };
        const missing = [
          typeof value.apiVersion === 'string' ? '' : 'apiVersion',
          typeof value.kind === 'string' ? '' : 'kind',
          typeof value.metadata?.name === 'string' ? '' : 'metadata.name',
        ].filter(Boolean);
        if (missing.length > 0) {
          problems.push(
            `${at}: missing ${missing.join(', ')}: kcluster tracks each object by apiVersion, kind and name${value.metadata?.generateName !== undefined ? ' (generateName is not supported: give a name)' : ''}`,
          );
          continue;
        }
        if (/List$/.test(value.kind as string)) {
          problems.push(`${at}: kind ${String(value.kind)}: write its items as separate documents, so kcluster can track each object`);
          continue;
        }
        const ref: ObjectRef = {
          apiVersion: value.apiVersion as string,
          kind: value.kind as string,
          name: value.metadata!.name as string,
          ...(typeof value.metadata?.namespace === 'string' ? { namespace: value.metadata.namespace } : {}),
        };
        const first = seen.get(refKey(ref));
        if (first !== undefined) {
          problems.push(`${at}: ${refText(ref)} is also defined at ${first}: keep one`);
          continue;
        }
        seen.set(refKey(ref), at);
        objects.push(ref);
        documents.push(doc.toString().trimEnd());
      }
    }
  }
  if (problems.length > 0) throw new ManifestError(problems);
  const text = documents.length === 0 ? '' : `${documents.map((d) => (d.startsWith('---') ? d : `---\n${d}`)).join('\n')}\n`;
  if (Buffer.byteLength(text) > MAX_MANIFEST_BYTES)
    throw new ManifestError([
      `cluster.manifests: ${Buffer.byteLength(text)} bytes in all, more than kcluster records (${MAX_MANIFEST_BYTES}): apply the large ones another way`,
    ]);
  return { text, objects };
}

/** Objects the previous run applied that the manifests no longer hold. */
export function removedObjects(previous: readonly ObjectRef[], current: readonly ObjectRef[]): ObjectRef[] {
  const keep = new Set(current.map(refKey));
  return previous.filter((r) => !keep.has(refKey(r)));
}
