// cluster.state.scheduledSnapshots: resolved with its defaults, refused at its file:line:col
// where it cannot work (snapshots off, no bundle, a credential variable not set), and turned into
// the settings file each control plane's uploader reads.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { snapshotUploadConfig, snapshotUploadCredential } from '../../../src/kubernetes/etcd/scheduled-snapshot-upload.js';
import { formatDiagnostic, parseInventory } from '../../../src/kubernetes/inventory/load-inventory.js';
import type { Inventory } from '../../../src/orchestrator/inventory/model.js';

const file = join(mkdtempSync(join(tmpdir(), 'kc-scheduled-')), 'inventory.yaml');
const text = (cluster: string): string =>
  [
    'cluster:',
    cluster,
    '  state:',
    '    s3: { endpoint: "https://s3.example.test", bucket: ops-state, prefix: prod/ }',
    '    key: { env: KEY }',
    '    scheduledSnapshots:',
    '      accessKeyIdEnv: SNAP_ID',
    '      secretAccessKeyEnv: SNAP_SECRET',
    'ssh: { agent: true }',
    'hosts:',
    '  - { name: cp1, address: 10.0.0.1, roles: [control-plane] }',
    '',
  ].join('\n');
const BUNDLE = '  artifacts: { source: bundle, bundle: /srv/bundle }';

function load(source: string): Inventory {
  // Errors found after loading read their line from the file.
  writeFileSync(file, source);
  const result = parseInventory(source, file, { env: { SSH_AUTH_SOCK: '/a' }, homeDir: '/root' });
  if (!result.ok) throw new Error(result.errors.map(formatDiagnostic).join('\n'));
  return result.inventory;
}

const errorsOf = (source: string): string[] => {
  const result = parseInventory(source, file, { env: { SSH_AUTH_SOCK: '/a' }, homeDir: '/root' });
  return result.ok ? [] : result.errors.map(formatDiagnostic);
};

describe('cluster.state.scheduledSnapshots', () => {
  it('resolves with the store endpoint and 10 kept per control plane unless given', () => {
    expect(load(text(BUNDLE)).cluster.state?.scheduledSnapshots).toEqual({
      endpoint: 'https://s3.example.test',
      accessKeyIdEnv: 'SNAP_ID',
      secretAccessKeyEnv: 'SNAP_SECRET',
      keep: 10,
    });
  });

  it('is refused at its line with scheduled snapshots off, and with source: release', () => {
    expect(errorsOf(text(`${BUNDLE}\n  etcd: { snapshots: { enabled: false } }`)).join('\n')).toMatch(
      new RegExp(`${file}:8:7: cluster.state.scheduledSnapshots: cluster.etcd.snapshots.enabled is false, so there are no scheduled snapshots to copy`),
    );
    expect(errorsOf(text('  name: c')).join('\n')).toMatch(
      new RegExp(`${file}:7:7: cluster.state.scheduledSnapshots: needs cluster.artifacts.source: bundle .* and source is release`),
    );
  });

  it('needs both credential variables, naming the one not set at its line', () => {
    const inventory = load(text(BUNDLE));
    expect(() => snapshotUploadCredential(inventory, { SNAP_ID: 'AKID' })).toThrow(
      `${file}:8:27: cluster.state.scheduledSnapshots.secretAccessKeyEnv: the environment variable SNAP_SECRET is not set: set it to the credential the control planes copy their scheduled snapshots into the store with (it is written to each of them)`,
    );
    expect(snapshotUploadCredential(inventory, { SNAP_ID: 'AKID', SNAP_SECRET: 's3cr3t' })).toEqual({ accessKeyId: 'AKID', secretAccessKey: 's3cr3t' });
  });

  it("writes each control plane's settings: its folder and file names, the key it seals for, the retention", () => {
    const inventory = load(
      text(`${BUNDLE}\n`).replace(
        '      secretAccessKeyEnv: SNAP_SECRET',
        '      secretAccessKeyEnv: SNAP_SECRET\n      endpoint: "http://10.0.0.5:7070"\n      keep: 3\n      maxAgeDays: 7',
      ),
    );
    const config = JSON.parse(
      snapshotUploadConfig(inventory, 'cp1', {
        credential: { accessKeyId: 'AKID', secretAccessKey: 's3cr3t' },
        recipient: { publicKey: 'cHVibGlj', kid: 'ks-0123456789abcdef' },
      }),
    ) as Record<string, unknown>;
    expect(config).toEqual({
      endpoint: 'http://10.0.0.5:7070',
      bucket: 'ops-state',
      region: 'us-east-1',
      pathStyle: true,
      accessKeyId: 'AKID',
      secretAccessKey: 's3cr3t',
      storePrefix: 'prod/',
      folder: 'scheduled-snapshots/cp1/',
      recipient: 'cHVibGlj',
      kid: 'ks-0123456789abcdef',
      localDir: '/var/lib/kcluster/backups/scheduled',
      namePrefix: 'etcd-scheduled-cp1-',
      keep: 3,
      maxAgeDays: 7,
    });
  });
});
