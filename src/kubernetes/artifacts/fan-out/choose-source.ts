// Where one host's copy of one artifact comes from, given what the run knows of that artifact
// now. Pure: the state in, a decision out (the distributor in artifact-fan-out.ts acts on it).

export interface HolderState {
  readonly host: string;
  /** Receivers it serves right now. */
  readonly active: number;
  /** When it last registered or finished serving someone (ms): its server exits once idle long enough. */
  readonly lastUsedMs: number;
  /** When it became a holder (ms): the earliest holder first among equals. */
  readonly sinceMs: number;
}

export interface ArtifactState {
  /** Copies the controller started sending (its first ones and the fallbacks). */
  readonly controllerSends: number;
  /** Copies on their way (from the controller or a holder) whose receivers may become holders. */
  readonly inFlight: number;
  /** Hosts that hold a verified copy and serve it, failed ones left out. */
  readonly holders: readonly HolderState[];
}

export interface FanOutLimits {
  readonly controllerCopies: number;
  readonly perHolder: number;
  /** A holder idle for this long is not trusted to be serving any more. */
  readonly trustedIdleMs: number;
}

export type SourceChoice =
  | { readonly kind: 'holder'; readonly host: string }
  | { readonly kind: 'controller'; readonly reason: 'first copies' | 'no holder' }
  | { readonly kind: 'wait' };

export function chooseSource(state: ArtifactState, nowMs: number, limits: FanOutLimits): SourceChoice {
  const alive = state.holders.filter((h) => nowMs - h.lastUsedMs < limits.trustedIdleMs || h.active > 0);
  const free = alive.filter((h) => h.active < limits.perHolder).sort((a, b) => a.active - b.active || a.sinceMs - b.sinceMs);
  if (free[0] !== undefined) return { kind: 'holder', host: free[0].host };
  if (state.controllerSends < limits.controllerCopies) return { kind: 'controller', reason: 'first copies' };
  // A copy on its way makes a holder soon, and a busy holder frees up.
  if (state.inFlight > 0 || alive.length > 0) return { kind: 'wait' };
  return { kind: 'controller', reason: 'no holder' };
}
