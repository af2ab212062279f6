// `--check` leaves the state folder byte-identical (issue 40's invariant; on an empty folder it
// once wrote the whole PKI and the Secrets key), and a `--tags` typo is refused before anything
// is made: no PKI, no key, not even an empty log (issue 44). The bundle is a stand-in (fake-*:
// small pieces whose sizes and checksums its lock lists); the one host is on loopback where no
// sshd listens, so the check run ends unreachable without leaving this machine.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeFakeBundle, writeFakeBundleWithPieces } from '../support/fake-bundle.js';
import { loadInventoryText } from '../support/inventory-text.js';
import { runCli } from './support/run-cli.js';
import { filesUnder } from '../../soak/state-digest.js';

const root = mkdtempSync(join(tmpdir(), 'kc-check-writes-'));
const HOSTS = `ssh: { user: root, keyFile: ${join(root, 'key')}, port: 9 }\nhosts:\n  - { name: cp1, address: 127.0.0.1, roles: [control-plane] }\n`;
writeFileSync(join(root, 'key'), '-----BEGIN OPENSSH PRIVATE KEY-----\nnot a key\n-----END OPENSSH PRIVATE KEY-----\n', { mode: 0o600 });

const bundle = writeFakeBundleWithPieces(join(root, 'fake-bundle'), [
  loadInventoryText(root, `cluster:\n  artifacts: { source: bundle, bundle: /x }\n${HOSTS}`),
]);

function inventoryFile(): { file: string; state: string } {
  const dir = mkdtempSync(join(root, 'case-'));
  const state = join(dir, 'state');
  const file = join(dir, 'inventory.yaml');
  writeFileSync(file, `stateDir: ${state}\ncluster:\n  artifacts: { source: bundle, bundle: ${bundle} }\n${HOSTS}`);
  return { file, state };
}

describe('a run that changes nothing writes nothing', () => {
  it('apply --check on an empty state folder plans with a PKI made in memory and leaves only its log', async () => {
    const { file, state } = inventoryFile();
    const r = await runCli(['apply', '-i', file, '--check']);
    expect(r.err).toContain('pki (made in memory for this plan, not written): ca: created');
    expect(r.code, 'its one host is unreachable (exit 5)').toBe(5);
    expect(filesUnder(state).map((f) => relative(state, f).split('/')[0])).toEqual(['logs']);
  }, 60_000);

  it('a --tags typo is refused (exit 2) before anything is made: the state folder stays empty', async () => {
    const { file, state } = inventoryFile();
    const r = await runCli(['apply', '-i', file, '--tags', 'kubelett']);
    expect(r.code).toBe(2);
    expect(r.err).toContain('unknown tag --tags "kubelett" (did you mean "kubelet"?)');
    expect(r.err).not.toContain('pki');
    expect(filesUnder(state)).toEqual([]);
  }, 60_000);

  it('--list-tags prints the tags and writes nothing', async () => {
    const { file, state } = inventoryFile();
    const r = await runCli(['apply', '-i', file, '--list-tags']);
    expect(r.code).toBe(0);
    expect(r.out.split('\n')).toContain('kubelet');
    expect(filesUnder(state)).toEqual([]);
  }, 60_000);

  it('--list-tags and a --tags typo fetch and verify no artifact: a bundle whose pieces are missing is not even read', async () => {
    const piecesMissing = writeFakeBundle(join(root, 'lock-only'), [
      loadInventoryText(root, `cluster:\n  artifacts: { source: bundle, bundle: /x }\n${HOSTS}`),
    ]);
    const dir = mkdtempSync(join(root, 'lock-only-case-'));
    const file = join(dir, 'inventory.yaml');
    writeFileSync(file, `stateDir: ${join(dir, 'state')}\ncluster:\n  artifacts: { source: bundle, bundle: ${piecesMissing} }\n${HOSTS}`);
    const listed = await runCli(['apply', '-i', file, '--list-tags']);
    expect(listed.code, listed.err).toBe(0);
    expect(listed.out.split('\n')).toContain('kubelet');
    const typo = await runCli(['apply', '-i', file, '--tags', 'kubelett']);
    expect(typo.code).toBe(2);
    expect(typo.err).toContain('unknown tag --tags "kubelett"');
    expect(typo.err).not.toMatch(/artifact problems?/);
    // A real run still verifies every piece (and refuses these).
    const real = await runCli(['apply', '-i', file, '--tags', 'kubelet']);
    expect(real.code).toBe(2);
    expect(real.err).toMatch(/artifact problems?/);
  }, 60_000);
});
