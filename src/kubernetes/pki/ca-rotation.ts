// A CA rotation (`kcluster certs rotate-ca`) as the state folder records it, so that a run cut
// short (a failure, Ctrl-C, a lost controller) continues where it stopped. Four phases, each a
// state every component may be in while every connection still verifies:
//   1. trust-new:    the old CA signs, every trust bundle holds old + new;
//   2. restart-pods: pods that read the cluster CA at start are restarted, so they hold both;
//   3. reissue:      the new CA signs (every leaf reissued from it), bundles still hold both;
//   4. drop-old:     the bundles hold the new CA alone.
// The service-account key pair goes through the same phases when asked (alone): its public key
// verifies tokens like a CA's certificate verifies certificates; no pod reads it, and the old
// public key is dropped only after a point the operator states (tokens signed before expire).
// Files: <stateDir>/pki/rotation/state.json; the new CA in rotation/next/ until phase 3, when it
// becomes <stateDir>/pki/<ca>.crt|key and the old one moves to rotation/previous/; when phase 4
// is on every host the rotation folder moves to <stateDir>/retired-cas/<start time>/.
// Bundles list the signing CA first, so a tool reading the first certificate of ca.crt with
// ca.key gets a matching pair.
import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { PkiFiles } from './pki-files.js';
import type { RollMark } from './stale-trust-workloads.js';

/** The CAs kcluster can rotate, by the name the command takes, and their file stems. */
export const ROTATABLE_CAS = { cluster: 'ca', etcd: 'etcd/ca', 'front-proxy': 'front-proxy-ca' } as const;
export type CaName = keyof typeof ROTATABLE_CAS;
export type CaFile = (typeof ROTATABLE_CAS)[CaName];
/** The service-account key pair (sa.key, sa.pub) rotates the same way, alone and only when asked. */
export const SERVICE_ACCOUNT_KEY = 'sa';
export type Rotated = CaFile | typeof SERVICE_ACCOUNT_KEY;
/** The file that verifies (a CA certificate, or the service-account public key) and the signing key. */
export const verifyingFile = (r: Rotated): string => (r === SERVICE_ACCOUNT_KEY ? 'sa.pub' : `${r}.crt`);
export const signingKeyFile = (r: Rotated): string => `${r}.key`;

export const ROTATION_PHASES = ['trust-new', 'restart-pods', 'reissue', 'drop-old'] as const;
export type RotationPhase = (typeof ROTATION_PHASES)[number];

const PHASE_DESCRIPTIONS: Readonly<Record<RotationPhase, string>> = {
  'trust-new': 'the new CA trusted beside the old everywhere (control planes one at a time, then the nodes in batches)',
  'restart-pods': "pods that read the cluster CA at start restarted (kcluster's addons; the operator's workloads with --restart-workloads)",
  reissue: 'every certificate reissued from the new CA (control planes one at a time, then the nodes in batches)',
  'drop-old': 'the old CA dropped from every trust bundle (control planes one at a time, then the nodes in batches)',
};

const SERVICE_ACCOUNT_PHASES: Readonly<Record<RotationPhase, string>> = {
  'trust-new': 'the new public key verifies tokens beside the old on every API server (control planes one at a time)',
  reissue: 'the new key signs tokens (API servers, controller-manager), the old public key still verifies',
  'restart-pods': "kcluster's addons restarted so that their tokens come from the new key (your workloads with --restart-workloads)",
  'drop-old': 'the old public key dropped, once the time given by --keep-old-key has passed',
};

/** What a phase does, for the CAs or for the service-account key. */
export const phaseDescription = (phase: RotationPhase, cas: readonly Rotated[]): string =>
  cas.includes(SERVICE_ACCOUNT_KEY) ? SERVICE_ACCOUNT_PHASES[phase] : PHASE_DESCRIPTIONS[phase];

/** The phases a rotation goes through, in order: no pod reads the etcd CA. */
export function phasesFor(cas: readonly Rotated[]): RotationPhase[] {
  // The service-account key: pods started before the new key signs hold tokens from the old
  // one, which the kubelet renews within about an hour; restarted, kcluster's addons hold new
  // ones at once, so a short --keep-old-key breaks none of them.
  if (cas.includes(SERVICE_ACCOUNT_KEY)) return ['trust-new', 'reissue', 'restart-pods', 'drop-old'];
  const podsRead = cas.includes('ca') || cas.includes('front-proxy-ca');
  return ROTATION_PHASES.filter((p) => p !== 'restart-pods' || podsRead);
}

export interface CaRotation {
  /** The CAs rotated, or the service-account key ('sa') alone. */
  readonly cas: readonly Rotated[];
  /** The phase to run next (it may have started and been cut short). */
  readonly phase: RotationPhase;
  /** ISO time the rotation started: names its retired folder. */
  readonly startedAt: string;
  /** ISO time from which every namespace's kube-root-ca.crt held both CAs: pods started before read the old one alone. */
  readonly trustPublishedAt?: string;
  /** Service-account key: the old public key verifies tokens until this ISO time, then drop-old may run. */
  readonly dropAfter?: string;
}

/** The pod template annotation a rotation rolls workloads with: its value is the rotation's alone. */
export const rotationRollMark = (rotation: Pick<CaRotation, 'startedAt'>): RollMark => ({ annotation: 'kcluster.io/ca-rotation', value: rotation.startedAt });

export const rotationDir = (stateDir: string): string => join(stateDir, 'pki', 'rotation');
const statePath = (stateDir: string): string => join(rotationDir(stateDir), 'state.json');
const retiredDir = (stateDir: string, rotation: Pick<CaRotation, 'startedAt'>): string =>
  join(stateDir, 'retired-cas', rotation.startedAt.replace(/[:.]/g, '-'));

const isPhase = (value: unknown): value is RotationPhase => ROTATION_PHASES.includes(value as RotationPhase);
const isRotated = (value: unknown): value is Rotated => value === SERVICE_ACCOUNT_KEY || Object.values(ROTATABLE_CAS).includes(value as CaFile);

export async function readCaRotation(stateDir: string): Promise<CaRotation | undefined> {
  const path = statePath(stateDir);
  let parsed: Partial<CaRotation>;
  try {
    parsed = JSON.parse(await readFile(path, 'utf8')) as Partial<CaRotation>;
  } catch (error) {
    // No file: no rotation. Read, not checked first: a rotation that ends removes the file, and
    // a reader between the check and the read (kubeconfig, status, a test) would fail.
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new Error(`${path}: ${(error as Error).message}: restore it from your backup of the state folder`, { cause: error });
  }
  if (!Array.isArray(parsed.cas) || parsed.cas.length === 0 || !parsed.cas.every(isRotated) || !isPhase(parsed.phase) || typeof parsed.startedAt !== 'string')
    throw new Error(`${path}: not a CA rotation kcluster wrote (cas, phase, startedAt): restore it from your backup of the state folder`);
  return parsed as CaRotation;
}

export async function writeCaRotation(stateDir: string, rotation: CaRotation): Promise<void> {
  await new PkiFiles(rotationDir(stateDir)).write('state.json', `${JSON.stringify(rotation, null, 2)}\n`, 0o600);
}

/**
 * The CA certificate a CA's trust bundle holds besides its signing one, in this phase: the one
 * in rotation/next/ (not signing yet), else the one in rotation/previous/ (signed before).
 */
export async function alsoTrusted(stateDir: string, rotation: CaRotation | undefined, ca: Rotated): Promise<string | undefined> {
  if (rotation === undefined || !rotation.cas.includes(ca) || rotation.phase === 'drop-old') return undefined;
  const candidates = ['next', 'previous'].map((d) => join(rotationDir(stateDir), d, verifyingFile(ca)));
  const file = candidates.find((f) => existsSync(f));
  if (file === undefined)
    throw new Error(
      `${candidates.join(' and ')}: both missing, although the CA rotation in ${statePath(stateDir)} is at ${rotation.phase}: restore them from your backup of the state folder`,
    );
  return readFile(file, 'utf8');
}

/** What the controller verifies the API servers with: the cluster CA's trust bundle, read from the state folder. */
export async function controllerClusterTrust(stateDir: string): Promise<string> {
  const signing = await readFile(join(stateDir, 'pki', 'ca.crt'), 'utf8');
  return trustBundle(signing, await alsoTrusted(stateDir, await readCaRotation(stateDir), 'ca'));
}

/** A trust bundle: the signing CA first, then the other; outside a rotation the signing CA's file as it is. */
export function trustBundle(signing: string, other: string | undefined): string {
  if (other === undefined) return signing;
  return `${signing.endsWith('\n') ? signing : `${signing}\n`}${other}`;
}

/**
 * Make the new CA the signing one: the current pair to rotation/previous/, rotation/next/'s to
 * <stateDir>/pki. Each file is moved by rename; run again after an interruption, it completes
 * what is left (a CA whose next/ pair is gone was moved already).
 */
export async function switchSigningCas(stateDir: string, cas: readonly Rotated[]): Promise<void> {
  const pki = join(stateDir, 'pki');
  const rotation = rotationDir(stateDir);
  for (const ca of cas) {
    for (const file of [verifyingFile(ca), signingKeyFile(ca)]) {
      const next = join(rotation, 'next', file);
      if (!existsSync(next)) continue;
      const previous = join(rotation, 'previous', file);
      const current = join(pki, file);
      await mkdir(dirname(previous), { recursive: true, mode: 0o700 });
      if (!existsSync(previous)) await rename(current, previous);
      await rename(next, current);
    }
  }
}

/** What switchSigningCas would move into the PKI folder (name there -> content): for an in-memory PKI. */
export async function pendingSigningCas(stateDir: string, cas: readonly Rotated[]): Promise<Map<string, string>> {
  const pending = new Map<string, string>();
  for (const ca of cas)
    for (const file of [verifyingFile(ca), signingKeyFile(ca)]) {
      const next = join(rotationDir(stateDir), 'next', file);
      if (existsSync(next)) pending.set(file, await readFile(next, 'utf8'));
    }
  return pending;
}

/** The rotation is on every host: its folder (the old CAs, the state) leaves the PKI folder for retired-cas/. */
export async function retireCaRotation(stateDir: string, rotation: CaRotation): Promise<string> {
  const target = retiredDir(stateDir, rotation);
  await mkdir(dirname(target), { recursive: true, mode: 0o700 });
  await rm(target, { recursive: true, force: true });
  await rename(rotationDir(stateDir), target);
  return target;
}
