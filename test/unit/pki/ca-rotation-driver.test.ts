// The CA rotation's phase driver: phases left, a rotation under way against the one asked for,
// the record after each phase, and the loop through every phase and every way a phase can end.
// The phase runner here is scripted (what each playbook run would end with); the driver and the
// records it writes are the real ones.
import { describe, expect, it } from 'vitest';
import { phasesFor, type CaRotation, type RotationPhase } from '../../../src/kubernetes/pki/ca-rotation.js';
import {
  afterPhase,
  driveCaRotation,
  keptUntil,
  phasesLeft,
  rotatedNames,
  rotationConflict,
  type PhaseOutcome,
} from '../../../src/kubernetes/pki/ca-rotation-driver.js';

const START = '2026-11-28T10:00:00.000Z';
const cas: CaRotation = { cas: ['ca', 'etcd/ca', 'front-proxy-ca'], phase: 'trust-new', startedAt: START };
const etcdOnly: CaRotation = { cas: ['etcd/ca'], phase: 'trust-new', startedAt: START };
const saKey: CaRotation = { cas: ['sa'], phase: 'trust-new', startedAt: START };
const HOUR = 3_600_000;

/** A driver run with a scripted phase runner: each phase ends as `ends` says (default done). */
async function driveScripted(start: CaRotation, ends: Partial<Record<RotationPhase, PhaseOutcome>> = {}, options: { now?: Date; keepOldKeyMs?: number } = {}) {
  const ran: RotationPhase[] = [];
  const saved: CaRotation[] = [];
  const lines: string[] = [];
  const result = await driveCaRotation(start, options.keepOldKeyMs ?? HOUR, {
    runPhase: async (rotation, phase, record) => {
      ran.push(phase);
      expect(rotation.phase).toBe(phase);
      // restart-pods learns when the trust was published, and records it through the driver.
      if (phase === 'restart-pods' && rotation.trustPublishedAt === undefined) await record({ ...rotation, trustPublishedAt: '2026-11-28T10:05:00.000Z' });
      return ends[phase] ?? 'done';
    },
    save: async (r) => void saved.push(r),
    now: () => options.now ?? new Date('2026-11-28T11:00:00.000Z'),
    log: (line) => void lines.push(line),
  });
  return { result, ran, saved, lines };
}

describe('phasesLeft and rotatedNames', () => {
  it('lists the phases from the one under way, and names what rotates as the command does', () => {
    expect(phasesLeft(cas)).toEqual(['trust-new', 'restart-pods', 'reissue', 'drop-old']);
    expect(phasesLeft({ ...cas, phase: 'reissue' })).toEqual(['reissue', 'drop-old']);
    // No pod reads the etcd CA: no restart-pods phase.
    expect(phasesLeft(etcdOnly)).toEqual(['trust-new', 'reissue', 'drop-old']);
    // The key signs before the pods restart, so that their new tokens come from it.
    expect(phasesLeft({ ...saKey, phase: 'restart-pods' })).toEqual(['restart-pods', 'drop-old']);
    expect(rotatedNames(cas.cas)).toBe('cluster, etcd, front-proxy');
    expect(rotatedNames(saKey.cas)).toBe('service-account key');
  });
});

describe('rotationConflict', () => {
  it('lets the same rotation go on (in any order), or any when none is under way or none is named', () => {
    expect(rotationConflict(undefined, ['ca'], 'inv.yaml')).toBeUndefined();
    expect(rotationConflict(cas, undefined, 'inv.yaml')).toBeUndefined();
    expect(rotationConflict(cas, ['front-proxy-ca', 'ca', 'etcd/ca'], 'inv.yaml')).toBeUndefined();
  });

  it('refuses other CAs while one is under way, naming its phase, its start and the command that finishes it', () => {
    expect(rotationConflict({ ...etcdOnly, phase: 'reissue' }, ['ca'], 'inv.yaml')).toBe(
      `inv.yaml: a rotation of etcd is under way (phase reissue, started ${START}): finish it first (the same command without --ca, or --ca etcd)`,
    );
    expect(rotationConflict(saKey, ['ca'], 'inv.yaml')).toContain('finish it first (the same command with --service-account-key)');
  });
});

describe('afterPhase and keptUntil', () => {
  it('moves a CA rotation to its next phase, and to none after the last', () => {
    const now = new Date('2026-11-28T12:00:00.000Z');
    expect(afterPhase(cas, 'trust-new', now, HOUR)).toEqual({ ...cas, phase: 'restart-pods' });
    expect(afterPhase(etcdOnly, 'trust-new', now, HOUR)).toEqual({ ...etcdOnly, phase: 'reissue' });
    // A CA's reissue keeps no old key: no drop time.
    expect(afterPhase({ ...cas, phase: 'reissue' }, 'reissue', now, HOUR)).toEqual({ ...cas, phase: 'drop-old' });
    expect(afterPhase({ ...cas, phase: 'drop-old' }, 'drop-old', now, HOUR)).toBeUndefined();
  });

  it('starts the old service-account key`s keep time when the new key signs, and waits drop-old until it ends', () => {
    const now = new Date('2026-11-28T12:00:00.000Z');
    const signing = afterPhase({ ...saKey, phase: 'reissue' }, 'reissue', now, HOUR)!;
    expect(signing).toEqual({ ...saKey, phase: 'restart-pods', trustPublishedAt: now.toISOString(), dropAfter: '2026-11-28T13:00:00.000Z' });
    const dropping = { ...signing, phase: 'drop-old' as const };
    expect(keptUntil(dropping, new Date('2026-11-28T12:59:59.000Z'))).toBe('2026-11-28T13:00:00.000Z');
    expect(keptUntil(dropping, new Date('2026-11-28T13:00:00.000Z'))).toBeUndefined();
    expect(keptUntil({ ...cas, phase: 'drop-old' }, now)).toBeUndefined();
  });
});

describe('driveCaRotation (scripted phase runner)', () => {
  it('runs every phase in order and records each next phase before going on', async () => {
    const { result, ran, saved, lines } = await driveScripted(cas);
    expect(ran).toEqual(phasesFor(cas.cas));
    expect(result).toMatchObject({ kind: 'finished', rotation: { phase: 'drop-old', trustPublishedAt: '2026-11-28T10:05:00.000Z' } });
    // The publish time restart-pods learnt, then each next phase; nothing after the last.
    expect(saved.map((r) => r.phase)).toEqual(['restart-pods', 'restart-pods', 'reissue', 'drop-old']);
    expect(saved[1]!.trustPublishedAt).toBe('2026-11-28T10:05:00.000Z');
    expect(saved.at(-1)!.trustPublishedAt).toBe('2026-11-28T10:05:00.000Z');
    expect(lines).toEqual(['phase trust-new done; next: restart-pods', 'phase restart-pods done; next: reissue', 'phase reissue done; next: drop-old']);
  });

  it.each(['failed', 'interrupted', 'checked', 'not-run'] as const)(
    'stops at a phase that ended %s, with the record at that phase (a rerun goes on there)',
    async (outcome) => {
      for (const phase of phasesFor(cas.cas)) {
        const { result, ran, saved } = await driveScripted(cas, { [phase]: outcome });
        const order = phasesFor(cas.cas);
        expect(ran).toEqual(order.slice(0, order.indexOf(phase) + 1));
        expect(result).toMatchObject({ kind: 'stopped', phase, outcome, rotation: { phase } });
        // What was saved last is the phase that did not finish: the same command runs it again.
        if (saved.length > 0) expect(saved.at(-1)!.phase).toBe(phase);
      }
    },
  );

  it('resumes from the recorded phase and runs only the phases left', async () => {
    const { result, ran } = await driveScripted({ ...cas, phase: 'reissue', trustPublishedAt: '2026-11-28T10:05:00.000Z' });
    expect(ran).toEqual(['reissue', 'drop-old']);
    expect(result.kind).toBe('finished');
  });

  it('rotates the service-account key up to drop-old, then waits for the keep time; a later run drops the old key', async () => {
    const first = await driveScripted(saKey, {}, { now: new Date('2026-11-28T11:00:00.000Z'), keepOldKeyMs: 10_000 });
    expect(first.ran).toEqual(['trust-new', 'reissue', 'restart-pods']);
    expect(first.result).toMatchObject({ kind: 'waiting', until: '2026-11-28T11:00:10.000Z', rotation: { phase: 'drop-old' } });
    // The key's restart-pods has its publish time from reissue: it records nothing more.
    expect(first.saved.map((r) => r.phase)).toEqual(['reissue', 'restart-pods', 'drop-old']);
    const later = await driveScripted(first.result.rotation, {}, { now: new Date('2026-11-28T11:00:11.000Z') });
    expect(later.ran).toEqual(['drop-old']);
    expect(later.result.kind).toBe('finished');
  });

  it('a run interrupted after the key signs keeps the keep time it started: a rerun does not start it again', async () => {
    const cut = await driveScripted(saKey, { 'restart-pods': 'interrupted' }, { now: new Date('2026-11-28T11:00:00.000Z'), keepOldKeyMs: 60_000 });
    expect(cut.result).toMatchObject({ kind: 'stopped', phase: 'restart-pods', rotation: { dropAfter: '2026-11-28T11:01:00.000Z' } });
    const rerun = await driveScripted(cut.result.rotation, {}, { now: new Date('2026-11-28T11:00:30.000Z'), keepOldKeyMs: 60_000 });
    expect(rerun.ran).toEqual(['restart-pods']);
    expect(rerun.result).toMatchObject({ kind: 'waiting', until: '2026-11-28T11:01:00.000Z' });
  });
});
