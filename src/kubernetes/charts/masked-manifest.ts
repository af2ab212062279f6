// A chart's manifest as `--check --diff` shows it: each value of a Secret's data and
// stringData replaced by its size and the start of its sha256, so a diff says that a secret
// changed without printing it (values often hold passwords).
import { createHash } from 'node:crypto';
import { isMap, isScalar, parseAllDocuments } from 'yaml';

const hidden = (value: unknown): string => {
  const text = String(value ?? '');
  return `(hidden: ${Buffer.byteLength(text)} bytes, sha256 ${createHash('sha256').update(text).digest('hex').slice(0, 12)})`;
};

export function maskedManifest(manifest: string): string {
  const docs = parseAllDocuments(manifest);
  if (!Array.isArray(docs)) return manifest;
  let masked = false;
  const texts = docs.map((doc) => {
    if (doc.errors.length === 0 && isMap(doc.contents) && doc.get('kind') === 'Secret') {
      for (const key of ['data', 'stringData']) {
        const map = doc.get(key);
        if (!isMap(map)) continue;
        for (const pair of map.items) {
          if (isScalar(pair.value)) pair.value.value = hidden(pair.value.value);
          masked = true;
        }
      }
    }
    return doc.toString();
  });
  return masked ? texts.join('') : manifest;
}
