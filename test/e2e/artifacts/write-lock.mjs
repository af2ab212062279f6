// Writes kcluster-bundle.json, the bundle's lock file: one entry per binary and image with its
// component, version, architecture, path inside the bundle, size and sha256. `kcluster
// artifacts verify --bundle DIR` checks a bundle against it.
// usage: node write-lock.mjs BUNDLE_DIR ARCH IMAGES_TSV
import { createHash } from 'node:crypto';
import { createReadStream, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const [dir, arch, imagesTsv] = process.argv.slice(2);
if (!dir || !arch || !imagesTsv) throw new Error('usage: node write-lock.mjs BUNDLE_DIR ARCH IMAGES_TSV');

const sha256 = (file) =>
  new Promise((resolve, reject) => {
    const hash = createHash('sha256');
    createReadStream(file).on('data', (chunk) => hash.update(chunk)).on('end', () => resolve(hash.digest('hex'))).on('error', reject);
  });

const artifacts = [];
for (const component of readdirSync(dir).sort()) {
  if (component === 'images' || component.startsWith('.') || !statSync(join(dir, component)).isDirectory()) continue;
  for (const version of readdirSync(join(dir, component)).sort()) {
    for (const name of readdirSync(join(dir, component, version)).sort()) {
      const path = `${component}/${version}/${name}`;
      const file = join(dir, path);
      artifacts.push({ name, component, version, arch, type: 'binary', path, size: statSync(file).size, sha256: await sha256(file) });
    }
  }
}
for (const line of readFileSync(imagesTsv, 'utf8').split('\n').filter(Boolean)) {
  const [path, reference, component, version, name] = line.split('\t');
  const file = join(dir, path);
  artifacts.push({ name, component, version, arch, type: 'image', format: 'oci', reference, path, size: statSync(file).size, sha256: await sha256(file) });
}
const debianPackages = readFileSync(join(dir, 'debian-packages.txt'), 'utf8').split('\n').filter(Boolean);
const lock = { kind: 'kcluster-bundle', formatVersion: 1, arch, artifacts, debianPackages };
writeFileSync(join(dir, 'kcluster-bundle.json'), `${JSON.stringify(lock, null, 2)}\n`);
console.error(`write-lock: ${artifacts.length} artifacts`);
