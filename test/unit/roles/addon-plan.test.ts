import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { planAddon, type AddonPayload } from '../../../roles/addons/addon-plan.js';
import { isPending, type Change, type PendingChange } from '../../../src/orchestrator/engine/change.js';
import { addonRecord, addonRecordManifest, type AddonRecord } from '../../../src/kubernetes/facts/addon-record.js';

const sha = (text: string): string => createHash('sha256').update(text).digest('hex');
const before = 'kind: ConfigMap\ndata:\n  Corefile: |\n    .:1053 {\n        forward . /etc/resolv.conf\n    }\n';
const after =
  'kind: ConfigMap\ndata:\n  Corefile: |\n    .:1053 {\n        forward . /etc/resolv.conf\n    }\n    corp.test:1053 {\n        forward . 10.0.0.53\n    }\n';

/** The record as the fact parses it from the ConfigMap's data (the shell prints "ok" then the JSON). */
function parsedRecord(data: Record<string, string>): AddonRecord {
  return addonRecord.parse(`ok\n${JSON.stringify(data)}\n`, 0);
}

/** The change, which must be pending (not "none" or "skip"). */
function changed(change: Change<AddonPayload>): PendingChange<AddonPayload> {
  if (!isPending(change)) throw new Error(`expected a pending change, got ${change.kind}: ${change.reason}`);
  return change;
}

describe('addon record', () => {
  it('splits the sha256 of each addon from the text it recorded', () => {
    const record = parsedRecord({ coredns: sha(before), 'coredns.yaml': before, flannel: 'abc' });
    expect(record).toEqual({ reachable: true, applied: { coredns: sha(before), flannel: 'abc' }, texts: { coredns: before } });
  });

  it('writes both keys of one addon and nothing else', () => {
    const manifest = JSON.parse(addonRecordManifest('coredns', sha(after), after)) as { metadata: { name: string }; data: Record<string, string> };
    expect(manifest.metadata.name).toBe('kcluster-addons');
    expect(manifest.data).toEqual({ coredns: sha(after), 'coredns.yaml': after });
    // What it writes, the fact reads back the same.
    expect(parsedRecord(manifest.data)).toEqual({ reachable: true, applied: { coredns: sha(after) }, texts: { coredns: after } });
  });
});

describe('planAddon', () => {
  it('changes nothing when the rendered manifest is the one recorded', () => {
    const change = planAddon('coredns', before, parsedRecord({ coredns: sha(before), 'coredns.yaml': before }));
    expect(change.kind).toBe('none');
  });

  it('shows the lines that change against the recorded text', () => {
    const change = changed(planAddon('coredns', after, parsedRecord({ coredns: sha(before), 'coredns.yaml': before })));
    expect(change.kind).toBe('update');
    expect(change.summary).toBe('re-apply coredns (server-side apply)');
    expect(change.diff).toContain('--- a/addons/coredns.yaml');
    expect(change.diff).toContain('+    corp.test:1053 {');
    expect(change.diff).toContain('+        forward . 10.0.0.53');
    // Unchanged lines are context, never added or removed.
    expect(change.diff).not.toMatch(/^[+-] +forward \. \/etc\/resolv\.conf$/m);
    expect(change.payload).toEqual({ manifest: after, sha256: sha(after) });
  });

  it('says so when an older record kept only the sha256, and diffs the whole manifest', () => {
    const change = changed(planAddon('coredns', after, parsedRecord({ coredns: sha(before) })));
    expect(change.kind).toBe('update');
    expect(change.summary).toMatch(/the text last applied was not recorded .*whole manifest/);
    expect(change.diff).toMatch(/^\+kind: ConfigMap$/m);
  });

  it('creates an addon the record does not name', () => {
    const change = changed(planAddon('flannel', after, parsedRecord({})));
    expect(change.kind).toBe('create');
    expect(change.summary).toBe('apply flannel (server-side apply)');
  });

  it('refuses to plan when the API server could not be asked', () => {
    expect(() => planAddon('coredns', after, { reachable: false, detail: 'connection refused' })).toThrow(/cannot read the addon record .*connection refused/);
  });
});
