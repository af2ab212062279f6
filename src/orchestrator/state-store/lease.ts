// One controller at a time per cluster, across machines (issue 41): a lease object in the store,
// taken with a conditional write (only if absent, or only if it is still the released or expired
// record that was read), renewed while the run lives, and expiring when its holder dies. Expiry
// is judged on the store's clock (its Date against the lease's Last-Modified), so a controller
// whose clock is off neither steals a live lease nor waits on a dead one.
import { hostname } from 'node:os';
import { PreconditionFailed, type S3Client } from './s3/s3-client.js';

export interface LeaseHolder {
  readonly machine: string;
  readonly pid: number;
  readonly command: string;
  /** ISO time the holder took it. */
  readonly started: string;
}

interface LeaseRecord {
  readonly holder?: LeaseHolder;
  /** Seconds after its last write that the lease is free. */
  readonly ttlSeconds: number;
  /** Set by a holder that let it go. */
  readonly released?: boolean;
}

/** Refused: another controller holds the lease. The message names it and how long it has left. */
export class LeaseHeld extends Error {
  override readonly name = 'LeaseHeld';
  constructor(
    message: string,
    readonly holder: LeaseHolder,
  ) {
    super(message);
  }
}

export const LEASE_KEY = 'lease.json';

/** The lease object's bytes: its record as one line of JSON. */
const leaseBody = (record: LeaseRecord): Buffer => Buffer.from(`${JSON.stringify(record)}\n`);
export const DEFAULT_LEASE_TTL_SECONDS = 60;

const describeHolder = (h: LeaseHolder): string => `${h.command} (pid ${h.pid} on ${h.machine}, started ${h.started})`;

export interface HeldLease {
  readonly holder: LeaseHolder;
  /** What the store said of the lease before it was taken: an expired holder, for a warning. */
  readonly tookOverFrom?: LeaseHolder;
  /** Writes the lease again (its expiry starts over); throws LeaseLost when another took it. */
  renew(): Promise<void>;
  /** Lets it go (a no-op once lost). */
  release(): Promise<void>;
}

/** The lease was taken by another controller after it expired: the run must stop. */
export class LeaseLost extends Error {
  override readonly name = 'LeaseLost';
}

export interface LeaseOptions {
  readonly command: string;
  readonly ttlSeconds?: number;
  readonly machine?: string;
  readonly pid?: number;
  readonly now?: () => Date;
}

/** The lease as the store has it: its record, ETag, and seconds until it expires (<= 0: expired). */
export async function readLease(s3: S3Client, prefix: string): Promise<{ record: LeaseRecord; etag: string; expiresIn: number } | undefined> {
  const got = await s3.get(`${prefix}${LEASE_KEY}`);
  if (got === undefined) return undefined;
  let record: LeaseRecord;
  try {
    record = JSON.parse(got.body.toString('utf8')) as LeaseRecord;
  } catch {
    throw new Error(`${s3.describe(`${prefix}${LEASE_KEY}`)} is not a lease kcluster wrote: remove it (kcluster state unlock) if no controller runs`);
  }
  const serverNow = got.serverDate?.getTime() ?? Date.now();
  const written = got.lastModified?.getTime() ?? serverNow;
  return { record, etag: got.etag, expiresIn: (record.ttlSeconds ?? DEFAULT_LEASE_TTL_SECONDS) - (serverNow - written) / 1000 };
}

/** Takes the lease, or throws LeaseHeld naming the controller that holds it. */
export async function acquireLease(s3: S3Client, prefix: string, options: LeaseOptions): Promise<HeldLease> {
  const key = `${prefix}${LEASE_KEY}`;
  const ttlSeconds = options.ttlSeconds ?? DEFAULT_LEASE_TTL_SECONDS;
  const holder: LeaseHolder = {
    machine: options.machine ?? hostname(),
    pid: options.pid ?? process.pid,
    command: options.command,
    started: (options.now ?? (() => new Date()))().toISOString(),
  };
  const current = await readLease(s3, prefix);
  let tookOverFrom: LeaseHolder | undefined;
  let etag: string;
  try {
    if (current === undefined) etag = (await s3.put(key, leaseBody({ holder, ttlSeconds }), { ifAbsent: true })).etag;
    else {
      if (current.record.released !== true && current.record.holder !== undefined && current.expiresIn > 0)
        throw new LeaseHeld(
          `another controller holds the lease ${s3.describe(key)}: ${describeHolder(current.record.holder)}; it expires in ${Math.ceil(current.expiresIn)} s unless renewed. Wait for it to finish, or if that controller is gone run kcluster state unlock`,
          current.record.holder,
        );
      if (current.record.released !== true) tookOverFrom = current.record.holder;
      etag = (await s3.put(key, leaseBody({ holder, ttlSeconds }), { ifMatch: current.etag })).etag;
    }
  } catch (error) {
    if (!(error instanceof PreconditionFailed)) throw error;
    // Another controller wrote the lease between the read and the write: it won.
    const winner = await readLease(s3, prefix);
    const who = winner?.record.holder;
    throw new LeaseHeld(
      `another controller took the lease ${s3.describe(key)} first${who !== undefined ? `: ${describeHolder(who)}` : ''}; wait for it to finish`,
      who ?? { machine: 'unknown', pid: 0, command: 'unknown', started: 'unknown' },
    );
  }
  let lost = false;
  return {
    holder,
    ...(tookOverFrom !== undefined ? { tookOverFrom } : {}),
    renew: async () => {
      if (lost) throw new LeaseLost(`the lease ${s3.describe(key)} was lost`);
      try {
        etag = (await s3.put(key, leaseBody({ holder, ttlSeconds }), { ifMatch: etag })).etag;
      } catch (error) {
        if (!(error instanceof PreconditionFailed)) throw error;
        lost = true;
        const now = await readLease(s3, prefix);
        throw new LeaseLost(
          `the lease ${s3.describe(key)} expired and was taken${now?.record.holder !== undefined ? ` by ${describeHolder(now.record.holder)}` : ''}: this run stops before it changes anything more`,
        );
      }
    },
    release: async () => {
      if (lost) return;
      lost = true;
      // A released record rather than a delete: S3 has no conditional delete everywhere, and a
      // write only if still ours never frees a lease another controller has taken since.
      await s3.put(key, leaseBody({ ttlSeconds, released: true }), { ifMatch: etag }).catch((error: unknown) => {
        if (!(error instanceof PreconditionFailed)) throw error;
      });
    },
  };
}

/**
 * Renews `lease` every `everyMs` until stopped; `onLost` hears once if the lease is lost (or
 * the store stops answering for longer than the lease lives), so the run can stop.
 */
export function keepRenewed(lease: HeldLease, everyMs: number, onLost: (error: Error) => void): () => void {
  let stopped = false;
  const timer = setInterval(() => {
    if (stopped) return;
    lease.renew().catch((error: unknown) => {
      if (stopped) return;
      stopped = true;
      clearInterval(timer);
      onLost(error as Error);
    });
  }, everyMs);
  timer.unref();
  return () => {
    stopped = true;
    clearInterval(timer);
  };
}

/** Frees a lease whose holder is gone (`kcluster state unlock`): the holder it had, or undefined when none held it. */
export async function breakLease(s3: S3Client, prefix: string): Promise<LeaseHolder | undefined> {
  const current = await readLease(s3, prefix);
  if (current === undefined || current.record.released === true) return undefined;
  await s3.put(`${prefix}${LEASE_KEY}`, leaseBody({ ttlSeconds: current.record.ttlSeconds, released: true }), { ifMatch: current.etag });
  return current.record.holder;
}
