// The run-wide distributor of artifacts between hosts (cluster.artifacts.fanOut): for each
// artifact (by sha256) it decides where each host's copy comes from — the controller for the
// first FAN_OUT_CONTROLLER_COPIES hosts, then a host that holds a verified copy and serves it
// (each serving at most FAN_OUT_PER_HOLDER receivers at once), so copies spread as a tree. A
// receiver waits for a holder rather than asking the controller again; a failed relay falls back
// to the controller (the caller says so in its log). After FAN_OUT_FAILURES_BEFORE_OFF failed
// relays and no successful one, the run stops trying (a firewall between the nodes, say).
import type { HostSettings } from '../../../orchestrator/inventory/model.js';
import { chooseSource, type ArtifactState, type FanOutLimits, type HolderState } from './choose-source.js';
import { FAN_OUT_CONTROLLER_COPIES, FAN_OUT_FAILURES_BEFORE_OFF, FAN_OUT_PER_HOLDER, FAN_OUT_WAIT_MS, RELAY_TRUSTED_IDLE_MS } from './fan-out-limits.js';

/** A host serving a verified copy: where to dial and the token its server asks for. */
export interface RelayHolder {
  readonly host: string;
  readonly address: string;
  readonly port: number;
  readonly token: string;
}

export interface FanOutOptions extends FanOutLimits {
  readonly waitMs: number;
  readonly failuresBeforeOff: number;
  readonly now: () => number;
}

export const DEFAULT_FAN_OUT: FanOutOptions = {
  controllerCopies: FAN_OUT_CONTROLLER_COPIES,
  perHolder: FAN_OUT_PER_HOLDER,
  trustedIdleMs: RELAY_TRUSTED_IDLE_MS,
  waitMs: FAN_OUT_WAIT_MS,
  failuresBeforeOff: FAN_OUT_FAILURES_BEFORE_OFF,
  now: () => Date.now(),
};

interface MutableHolder extends HolderState {
  readonly relay: RelayHolder;
  active: number;
  lastUsedMs: number;
}

interface MutableArtifact {
  controllerSends: number;
  inFlight: number;
  readonly holders: Map<string, MutableHolder>;
  /** Hosts given a source for their copy (not those still waiting for one). */
  readonly receivers: Set<string>;
}

/** Where one host's copy comes from, and what the caller reports back. */
export interface FanOutLease {
  readonly source: { readonly kind: 'holder'; readonly holder: RelayHolder } | { readonly kind: 'controller'; readonly reason: string };
  /** The holder's copy arrived whole and verified. */
  relayed(): void;
  /** The holder's copy did not arrive: the holder is not asked again; the controller sends this one. */
  relayFailed(reason: string): void;
  /** The copy is on the host (or failed): `holder` when the host now serves it too. Once. */
  finish(holder?: RelayHolder): void;
}

export class ArtifactFanOut {
  private readonly artifacts = new Map<string, MutableArtifact>();
  private readonly waiters = new Set<() => void>();
  private successes = 0;
  private failures = 0;
  /** Why the run stopped fanning out, once it did. */
  offReason: string | undefined;

  /**
   * @param serveAddress where a holder's server listens and its receivers dial: the address the
   *   cluster uses for the node (given by the cluster layer, which defines it).
   */
  constructor(
    readonly serveAddress: (host: HostSettings) => string,
    private readonly options: FanOutOptions = DEFAULT_FAN_OUT,
  ) {}

  private state(sha256: string): MutableArtifact {
    let state = this.artifacts.get(sha256);
    if (!state) {
      state = { controllerSends: 0, inFlight: 0, holders: new Map(), receivers: new Set() };
      this.artifacts.set(sha256, state);
    }
    return state;
  }

  private wake(): void {
    for (const waiter of [...this.waiters]) waiter();
  }

  /** Copies the controller started sending of this artifact (first copies and fallbacks). */
  controllerSends(sha256: string): number {
    return this.artifacts.get(sha256)?.controllerSends ?? 0;
  }

  /** Whether a host that now holds the artifact should serve it: some of `needing` have no source for their copy yet (not asked, or waiting). */
  wantsHolder(sha256: string, needing: readonly string[]): boolean {
    if (this.offReason !== undefined) return false;
    const state = this.state(sha256);
    return needing.some((host) => !state.receivers.has(host));
  }

  /** Where `receiver`'s copy comes from; waits (up to waitMs, or until `signal`) for a holder when that is the choice. */
  async acquire(sha256: string, receiver: string, signal?: AbortSignal): Promise<FanOutLease> {
    const state = this.state(sha256);
    const deadline = this.options.now() + this.options.waitMs;
    for (;;) {
      if (this.offReason !== undefined) return this.controllerLease(state, receiver, `fan-out off for this run: ${this.offReason}`);
      const now = this.options.now();
      const snapshot: ArtifactState = { controllerSends: state.controllerSends, inFlight: state.inFlight, holders: [...state.holders.values()] };
      const choice = chooseSource(snapshot, now, this.options);
      if (choice.kind === 'holder') return this.holderLease(state, receiver, state.holders.get(choice.host)!);
      if (choice.kind === 'controller')
        return this.controllerLease(state, receiver, choice.reason === 'first copies' ? 'one of its first copies' : 'no host serves it');
      if (now >= deadline) return this.controllerLease(state, receiver, `no holder free after ${Math.round(this.options.waitMs / 1000)} s`);
      signal?.throwIfAborted();
      await this.waitForChange(Math.min(1000, deadline - now), signal);
    }
  }

  private waitForChange(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.waiters.delete(done);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.waiters.add(done);
      signal?.addEventListener('abort', done, { once: true });
    });
  }

  private finisher(state: MutableArtifact): (holder?: RelayHolder) => void {
    let finished = false;
    return (holder) => {
      if (finished) return;
      finished = true;
      state.inFlight--;
      if (holder !== undefined && this.offReason === undefined) {
        const now = this.options.now();
        state.holders.set(holder.host, { host: holder.host, relay: holder, active: 0, lastUsedMs: now, sinceMs: now });
      }
      this.wake();
    };
  }

  private controllerLease(state: MutableArtifact, receiver: string, reason: string): FanOutLease {
    state.receivers.add(receiver);
    state.controllerSends++;
    state.inFlight++;
    return { source: { kind: 'controller', reason }, relayed: () => {}, relayFailed: () => {}, finish: this.finisher(state) };
  }

  private holderLease(state: MutableArtifact, receiver: string, holder: MutableHolder): FanOutLease {
    state.receivers.add(receiver);
    holder.active++;
    state.inFlight++;
    let settled = false;
    const finish = this.finisher(state);
    const settle = (): boolean => {
      if (settled) return false;
      settled = true;
      holder.active--;
      holder.lastUsedMs = this.options.now();
      return true;
    };
    return {
      source: { kind: 'holder', holder: holder.relay },
      relayed: () => {
        if (settle()) this.successes++;
        this.wake();
      },
      relayFailed: (reason) => {
        if (!settle()) return;
        state.holders.delete(holder.host);
        state.controllerSends++;
        this.failures++;
        if (this.successes === 0 && this.failures >= this.options.failuresBeforeOff)
          this.offReason = `${this.failures} relays failed and none succeeded (the last: ${reason})`;
        this.wake();
      },
      finish: (next) => {
        // A lease given up before its relay was reported (Ctrl-C, an error in between) frees the holder.
        settle();
        finish(next);
      },
    };
  }
}
