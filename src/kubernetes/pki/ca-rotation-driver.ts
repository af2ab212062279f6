// The phases of a CA rotation driven from where the state folder says it is (ca-rotation.ts):
// which phases are left, whether a rotation under way is the one asked for, how the record
// moves on once a phase finished, and the loop that runs phase after phase until the last,
// a failure, an interruption or the service-account key's keep time stops it. The loop does
// no I/O of its own: running a phase (a playbook), saving the record and retiring the rotation
// are given to it, so every phase and every interruption is tested without hosts, and the
// record has one writer.
import { phasesFor, ROTATABLE_CAS, SERVICE_ACCOUNT_KEY, type CaRotation, type Rotated, type RotationPhase } from './ca-rotation.js';

/** How the command names what is rotated: "cluster, etcd", "service-account key". */
export const rotatedNames = (rotated: readonly Rotated[]): string =>
  rotated.map((r) => (r === SERVICE_ACCOUNT_KEY ? 'service-account key' : (Object.entries(ROTATABLE_CAS).find(([, file]) => file === r)?.[0] ?? r))).join(', ');

/** The phases from the one the rotation is at (it may have started) to the last. */
export function phasesLeft(rotation: Pick<CaRotation, 'cas' | 'phase'>): RotationPhase[] {
  const all = phasesFor(rotation.cas);
  const at = all.indexOf(rotation.phase);
  return all.slice(at < 0 ? 0 : at);
}

const sameSet = (a: readonly Rotated[], b: readonly Rotated[]): boolean => [...a].sort().join() === [...b].sort().join();

/** Why a rotation under way stops the one asked for (other CAs), with the command that finishes it; undefined when none does. */
export function rotationConflict(underWay: CaRotation | undefined, wanted: readonly Rotated[] | undefined, inventoryFile: string): string | undefined {
  if (underWay === undefined || wanted === undefined || sameSet(underWay.cas, wanted)) return undefined;
  const finish = underWay.cas.includes(SERVICE_ACCOUNT_KEY)
    ? 'the same command with --service-account-key'
    : `the same command without --ca, or --ca ${rotatedNames(underWay.cas).replaceAll(' ', '')}`;
  return `${inventoryFile}: a rotation of ${rotatedNames(underWay.cas)} is under way (phase ${underWay.phase}, started ${underWay.startedAt}): finish it first (${finish})`;
}

/**
 * The record once `finished` is done: at the next phase, or undefined after the last. Once the
 * new service-account key signs (reissue done), pods started before hold tokens from the old
 * key, and the old public key verifies them for `keepOldKeyMs` more.
 */
export function afterPhase(rotation: CaRotation, finished: RotationPhase, now: Date, keepOldKeyMs: number): CaRotation | undefined {
  const order = phasesFor(rotation.cas);
  const next = order[order.indexOf(finished) + 1];
  if (next === undefined) return undefined;
  if (finished === 'reissue' && rotation.cas.includes(SERVICE_ACCOUNT_KEY))
    return { ...rotation, phase: next, trustPublishedAt: now.toISOString(), dropAfter: new Date(now.getTime() + keepOldKeyMs).toISOString() };
  return { ...rotation, phase: next };
}

/** Until when drop-old must wait (the old service-account key is still kept), or undefined when it may run. */
export function keptUntil(rotation: CaRotation, now: Date): string | undefined {
  return rotation.phase === 'drop-old' && rotation.dropAfter !== undefined && now.getTime() < Date.parse(rotation.dropAfter) ? rotation.dropAfter : undefined;
}

/** How a phase's run ended: finished, failed, interrupted (Ctrl-C), planned only (--check), or refused before it ran (already reported). */
export type PhaseOutcome = 'done' | 'failed' | 'interrupted' | 'checked' | 'not-run';

export interface RotationDriverIo {
  /**
   * Runs one phase. What it learns on the way that the record must keep (when the new trust was
   * published) goes through `record`, never into the rotation it was given.
   */
  runPhase(rotation: CaRotation, phase: RotationPhase, record: (rotation: CaRotation) => Promise<void>): Promise<PhaseOutcome>;
  /** Writes the record to the state folder. */
  save(rotation: CaRotation): Promise<void>;
  now(): Date;
  log(line: string): void;
}

export type RotationDriveResult =
  | { readonly kind: 'finished'; readonly rotation: CaRotation }
  | { readonly kind: 'stopped'; readonly rotation: CaRotation; readonly phase: RotationPhase; readonly outcome: Exclude<PhaseOutcome, 'done'> }
  | { readonly kind: 'waiting'; readonly rotation: CaRotation; readonly until: string };

/**
 * Runs the phases from where `start` is. Each finished phase is recorded at the next before
 * anything else happens (a rerun goes on from it; after reissue, from the new CA, never the
 * old). Stops at the first phase that does not finish, and before drop-old while the old
 * service-account key is kept.
 */
export async function driveCaRotation(start: CaRotation, keepOldKeyMs: number, io: RotationDriverIo): Promise<RotationDriveResult> {
  let rotation = start;
  const record = async (updated: CaRotation): Promise<void> => {
    rotation = updated;
    await io.save(updated);
  };
  for (;;) {
    const until = keptUntil(rotation, io.now());
    if (until !== undefined) return { kind: 'waiting', rotation, until };
    const phase = rotation.phase;
    const outcome = await io.runPhase(rotation, phase, record);
    if (outcome !== 'done') return { kind: 'stopped', rotation, phase, outcome };
    const next = afterPhase(rotation, phase, io.now(), keepOldKeyMs);
    if (next === undefined) return { kind: 'finished', rotation };
    await record(next);
    io.log(`phase ${phase} done; next: ${next.phase}`);
  }
}
