// Which etcd snapshots a state store deletes after a copy (cluster.state.snapshots): beyond the
// newest `keep` (the one just copied counting as the newest), and those older than maxAgeDays;
// never the one just copied.
import { describe, expect, it } from 'vitest';
import { snapshotsToPrune } from '../../../src/cli/state-store/snapshot-retention.js';

const DAY = 24 * 3600 * 1000;
const now = Date.parse('2026-11-28T12:00:00Z');
const stored = (name: string, ageDays: number) => ({ key: `p/snapshots/${name}.db.kce`, etag: '"x"', size: 1, lastModified: new Date(now - ageDays * DAY) });
const names = (list: { key: string }[]) => list.map((o) => o.key.replace(/^p\/snapshots\/|\.db\.kce$/g, ''));

describe('snapshot retention in the store', () => {
  const five = [stored('e', 0), stored('a', 40), stored('c', 10), stored('b', 20), stored('d', 5)];

  it('keeps the newest `keep`, deleting the rest oldest first', () => {
    expect(names(snapshotsToPrune(five, { keep: 3 }, now, 'p/snapshots/e.db.kce'))).toEqual(['a', 'b']);
    expect(snapshotsToPrune(five, { keep: 5 }, now, 'p/snapshots/e.db.kce')).toEqual([]);
  });

  it('deletes those older than maxAgeDays even among the newest `keep`', () => {
    expect(names(snapshotsToPrune(five, { keep: 10, maxAgeDays: 7 }, now, 'p/snapshots/e.db.kce'))).toEqual(['a', 'b', 'c']);
  });

  it('counts the snapshot just copied as the newest and never deletes it, whatever time the listing gives it', () => {
    expect(names(snapshotsToPrune([stored('new', 400), stored('x', 1)], { keep: 1, maxAgeDays: 30 }, now, 'p/snapshots/new.db.kce'))).toEqual(['x']);
  });

  it('orders snapshots of the same second by name', () => {
    const same = [stored('etcd-2', 1), stored('etcd-1', 1), stored('etcd-3', 1)];
    expect(names(snapshotsToPrune(same, { keep: 1 }, now, 'p/snapshots/etcd-3.db.kce'))).toEqual(['etcd-1', 'etcd-2']);
  });
});
