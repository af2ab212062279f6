// `kcluster etcd snapshot list|fetch` and `restore --from-host`: what is refused before any
// connection (through the real CLI, test/unit/cli/support/run-cli.ts), the table and ages, the
// listing parsed, and a fetch over a fake connection (the host's listing, sha256 and file
// canned): a name the host lacks, a corrupt copy, a good copy (0600, checked).
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, statSync, existsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from './support/run-cli.js';
import { formatAge, formatSize, snapshotTable } from '../../../src/cli/commands/etcd-snapshots.js';
import { fetchHostSnapshot, parseSnapshotList, SnapshotNotFoundError } from '../../../src/kubernetes/etcd/etcd-snapshot-files.js';
import type { Connection, ExecResult } from '../../../src/orchestrator/ssh/connection.js';
import type { ShellCommand } from '../../../src/orchestrator/ssh/quote.js';

const dir = mkdtempSync(join(tmpdir(), 'kc-cli-snapshots-'));
const inventory = join(dir, 'inventory.yaml');
writeFileSync(
  inventory,
  `cluster:\n  name: snap\nstateDir: ${join(dir, 'state')}\nssh:\n  user: root\n  keyFile: ${join(dir, 'no-key')}\nhosts:\n  - { name: cp1, address: 10.231.21.11, roles: [control-plane] }\n  - { name: w1, address: 10.231.21.12, roles: [worker] }\n`,
);

const LISTING = [
  '806944 1795724624 /var/lib/kcluster/backups/scheduled/etcd-scheduled-cp1-2026-11-26T20-23-44Z.db',
  '1048576 1795720000 /var/lib/kcluster/backups/etcd-2026-11-26T19-06-40-000Z.db',
  'stat: cannot stat something odd',
].join('\n');

describe('etcd snapshot list and fetch: refused before connecting', () => {
  it('fetch names the control planes when --from is not one (exit 2)', async () => {
    const r = await runCli(['etcd', 'snapshot', 'fetch', '-i', inventory, '--from', 'w1', 'etcd-1.db']);
    expect(r.code).toBe(2);
    expect(r.err).toContain(`--from w1: not a control plane of ${inventory} (control planes: cp1)`);
  });

  it('fetch refuses a name with a folder or another ending (exit 2)', async () => {
    for (const name of ['../etc/shadow.db', 'x.tar', '.hidden.db']) {
      const r = await runCli(['etcd', 'snapshot', 'fetch', '-i', inventory, '--from', 'cp1', name]);
      expect(r.code, name).toBe(2);
      expect(r.err).toContain(`"${name}" is not a snapshot name`);
    }
  });

  it('restore --from-host refuses a host that is not a control plane, before asking or connecting (exit 2)', async () => {
    const r = await runCli(['etcd', 'snapshot', 'restore', '-i', inventory, '--from-host', 'w1', 'etcd-1.db', '--yes']);
    expect(r.code).toBe(2);
    expect(r.err).toContain('--from w1: not a control plane');
  });

  it('fetch needs --from and -i; list needs -i (exit 2, naming the option)', async () => {
    const noFrom = await runCli(['etcd', 'snapshot', 'fetch', '-i', inventory, 'etcd-1.db']);
    expect(noFrom.code).toBe(2);
    expect(noFrom.err).toContain('--from');
    const noInventory = await runCli(['etcd', 'snapshot', 'list']);
    expect(noInventory.code).toBe(2);
    expect(noInventory.err).toContain('-i, --inventory');
  });

  it('an inventory error is exit 2 with its file', async () => {
    const r = await runCli(['etcd', 'snapshot', 'list', '-i', join(dir, 'missing.yaml')]);
    expect(r.code).toBe(2);
    expect(r.err).toContain('missing.yaml');
  });
});

describe('the listing and its table', () => {
  it('parses size, time and folder, newest first; other lines are ignored', () => {
    expect(parseSnapshotList(LISTING)).toEqual([
      {
        name: 'etcd-scheduled-cp1-2026-11-26T20-23-44Z.db',
        path: '/var/lib/kcluster/backups/scheduled/etcd-scheduled-cp1-2026-11-26T20-23-44Z.db',
        kind: 'scheduled',
        bytes: 806944,
        modifiedMs: 1795724624000,
      },
      {
        name: 'etcd-2026-11-26T19-06-40-000Z.db',
        path: '/var/lib/kcluster/backups/etcd-2026-11-26T19-06-40-000Z.db',
        kind: 'saved',
        bytes: 1048576,
        modifiedMs: 1795720000000,
      },
    ]);
  });

  it('ages and sizes as people read them', () => {
    expect([0, 12_000, 7 * 60_000 + 5000, 5 * 3600_000 + 12 * 60_000, 3 * 86_400_000 + 4 * 3600_000, 2 * 86_400_000, -5000].map(formatAge)).toEqual([
      '0s',
      '12s',
      '7m',
      '5h12m',
      '3d4h',
      '2d',
      '0s',
    ]);
    expect([512, 806944, 1048576, 3 * 1024 ** 3].map(formatSize)).toEqual(['512 B', '788.0 KiB', '1.0 MiB', '3.0 GiB']);
  });

  it('one line per snapshot under HOST NAME KIND AGE SIZE', () => {
    const now = 1795724624000 + 90_000;
    expect(snapshotTable([{ host: 'cp1', status: 'ok', snapshots: parseSnapshotList(LISTING) }], now).split('\n')).toEqual([
      'HOST  NAME                                        KIND       AGE    SIZE',
      'cp1   etcd-scheduled-cp1-2026-11-26T20-23-44Z.db  scheduled  1m     788.0 KiB',
      'cp1   etcd-2026-11-26T19-06-40-000Z.db            saved      1h18m  1.0 MiB',
    ]);
  });
});

describe('fetch over a fake connection', () => {
  const content = Buffer.from('an etcd snapshot');
  const sum = createHash('sha256').update(content).digest('hex');
  function fake(copied: Buffer, commands: string[]): Connection {
    const result = (stdout: string): ExecResult => ({ code: 0, stdout, stderr: '', durationMs: 0 });
    return {
      host: 'cp1',
      stats: { roundTrips: 0, bytesSent: 0, bytesReceived: 0 },
      exec: async (command: ShellCommand) => {
        commands.push(command.text);
        if (command.text.startsWith('for d in')) return result(`${LISTING}\n`);
        if (command.text.startsWith('sha256sum')) return result(`${sum}  -\n`);
        return result('{"revision":7}\n');
      },
      downloadFile: async (_remote: string, local: string) => {
        writeFileSync(local, copied);
        return { bytes: copied.length, sha256: createHash('sha256').update(copied).digest('hex') };
      },
    } as unknown as Connection;
  }

  it('a name the host lacks is named with what it has', async () => {
    await expect(fetchHostSnapshot(fake(content, []), 'etcd-nope.db', join(dir, 'x.db'))).rejects.toThrow(SnapshotNotFoundError);
    await expect(fetchHostSnapshot(fake(content, []), 'etcd-nope.db', join(dir, 'x.db'))).rejects.toThrow(
      'cp1 has no snapshot etcd-nope.db in /var/lib/kcluster/backups or /var/lib/kcluster/backups/scheduled (it has etcd-scheduled-cp1-2026-11-26T20-23-44Z.db, etcd-2026-11-26T19-06-40-000Z.db)',
    );
  });

  it("a copy whose sha256 differs from the host's is refused and not left behind", async () => {
    const file = join(dir, 'corrupt.db');
    await expect(fetchHostSnapshot(fake(Buffer.from('garbled'), []), 'etcd-2026-11-26T19-06-40-000Z.db', file)).rejects.toThrow(/the copy is corrupt; retry/);
    expect(existsSync(file)).toBe(false);
    expect(existsSync(`${file}.tmp`)).toBe(false);
  });

  it("a good copy: etcdutl read it on the host first, 0600 on the controller, its sha256 the host's", async () => {
    const commands: string[] = [];
    const file = join(dir, 'sub', 'good.db');
    const fetched = await fetchHostSnapshot(fake(content, commands), 'etcd-scheduled-cp1-2026-11-26T20-23-44Z.db', file);
    expect(fetched).toEqual({
      remote: '/var/lib/kcluster/backups/scheduled/etcd-scheduled-cp1-2026-11-26T20-23-44Z.db',
      file,
      bytes: content.length,
      sha256: sum,
    });
    expect(readFileSync(file)).toEqual(content);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(commands[1]).toBe('/usr/local/bin/etcdutl snapshot status /var/lib/kcluster/backups/scheduled/etcd-scheduled-cp1-2026-11-26T20-23-44Z.db -w json');
  });
});
