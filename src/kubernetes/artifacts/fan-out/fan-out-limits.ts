// How far the artifact fan-out reaches (cluster.artifacts.fanOut): the controller sends each
// artifact to at most CONTROLLER_COPIES hosts; every host that holds a verified copy serves at
// most PER_HOLDER others at once. See roles/artifacts/README.md, "Fan-out".
import type { Inventory } from '../../../orchestrator/inventory/model.js';

/** Copies of one artifact the controller sends itself (more only when a relay fails). */
export const FAN_OUT_CONTROLLER_COPIES = 2;
/** Receivers one holder serves at once. */
export const FAN_OUT_PER_HOLDER = 2;
/** A holder's relay server exits after this long without a client (and removes a staged image archive). */
export const RELAY_IDLE_SECONDS = 45;
/** The controller stops sending receivers to a holder this long after its last client, before it exits. */
export const RELAY_TRUSTED_IDLE_MS = 30_000;
/** A relay server exits after this long in all, whatever happens to the run. */
export const RELAY_LIFETIME_MINUTES = 15;
/** A receiver waits at most this long for a holder before the controller sends it its copy. */
export const FAN_OUT_WAIT_MS = 120_000;
/** Relays that fail in a run, none having succeeded, before the run sends everything from the controller. */
export const FAN_OUT_FAILURES_BEFORE_OFF = 3;

/**
 * Whether the run fans artifacts out: asked for, from a bundle (with source: release the images
 * come from registries and kcluster-relay from no release), and more hosts than the controller's
 * own copies (otherwise there is no one to pass anything on to).
 */
export function fanOutApplies(inventory: Inventory): boolean {
  const { artifacts } = inventory.cluster;
  return artifacts.fanOut && artifacts.kind === 'bundle' && inventory.hosts.length > FAN_OUT_CONTROLLER_COPIES;
}

/** Why fanOutApplies is false although cluster.artifacts.fanOut is true. */
export function fanOutOffReason(inventory: Inventory): string {
  if (inventory.cluster.artifacts.kind !== 'bundle') return 'source: release; fan-out needs source: bundle';
  return `${inventory.hosts.length} host(s): the controller sends up to ${FAN_OUT_CONTROLLER_COPIES} copies itself anyway`;
}
