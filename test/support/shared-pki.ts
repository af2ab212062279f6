// One generated cluster PKI shared by the tests that need a PKI but do not test its generation
// (RSA key generation costs seconds per test file on a loaded 2-core machine). Generated once per
// machine and day into the temp folder, keyed by the spec and the PKI code; each test gets its
// own copy to change. test/unit/pki/cluster-pki.test.ts still generates its own from scratch.
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ensureClusterPki, type PkiSpec } from '../../src/kubernetes/pki/cluster-pki.js';

/** 3 control planes behind a load balancer, 2 workers. */
export const SHARED_PKI_SPEC: PkiSpec = {
  clusterName: 'lab',
  controlPlanes: [
    { name: 'cp1', address: '10.0.0.11' },
    { name: 'cp2', address: '10.0.0.12' },
    { name: 'cp3', address: '10.0.0.13' },
  ],
  nodes: ['cp1', 'cp2', 'cp3', 'w1', 'w2'].map((name, i) => ({ name, address: `10.0.0.${11 + i}` })),
  apiEndpoint: { host: '10.0.0.100', port: 6443 },
  serviceCIDR: '10.96.0.0/12',
  clusterDomain: 'cluster.local',
};

const PKI_CODE = resolve(import.meta.dirname, '../../src/kubernetes/pki');
const DAY_MS = 86_400_000;

function cacheKey(spec: PkiSpec): string {
  const hash = createHash('sha256').update(JSON.stringify(spec));
  for (const file of readdirSync(PKI_CODE).sort()) hash.update(readFileSync(join(PKI_CODE, file)));
  return hash.digest('hex').slice(0, 16);
}

/** A state folder (with pki/) holding a copy of the shared PKI for `spec`, the test's to change. */
export async function sharedPkiStateDir(spec: PkiSpec = SHARED_PKI_SPEC): Promise<string> {
  const cached = join(tmpdir(), `kcluster-test-pki-${cacheKey(spec)}`);
  if (existsSync(cached) && Date.now() - statSync(cached).mtimeMs > DAY_MS) rmSync(cached, { recursive: true, force: true });
  if (!existsSync(cached)) {
    const fresh = mkdtempSync(`${cached}.partial-`);
    await ensureClusterPki(fresh, spec);
    try {
      renameSync(fresh, cached);
    } catch {
      rmSync(fresh, { recursive: true, force: true }); // another test file was faster
    }
  }
  const copy = mkdtempSync(join(tmpdir(), 'kc-pki-copy-'));
  cpSync(cached, copy, { recursive: true });
  return copy;
}
