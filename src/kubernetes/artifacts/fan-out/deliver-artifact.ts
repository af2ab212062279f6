// One artifact onto one host, verified, from wherever the fan-out says (artifact-fan-out.ts):
// a holder over the cluster network (kcluster-relay fetch checks size and sha256 before the
// rename), else the controller over SSH (the host checks them too: atomic-write.ts). A relay
// that fails for any reason is followed by the controller's copy, said in the task's log. Then,
// when other hosts still need it, the host serves its copy (offerArtifact).
import type { ApplyContext } from '../../../orchestrator/engine/types.js';
import { execChecked } from '../../../orchestrator/ssh/connection.js';
import type { PreparedArtifact } from '../artifact.js';
import type { ArtifactFanOut, FanOutLease } from './artifact-fan-out.js';
import { fetchTimeoutSeconds, hostPort, newRelayToken, parseServeOutput, relayFetchCommand, relayServeCommand } from './relay-commands.js';

export interface Destination {
  readonly path: string;
  /** Octal, as the file lands. */
  readonly mode: number;
  /** What the log lines call it ("kubelet", "image pause"). */
  readonly label: string;
}

/** How the copy arrived; `lease` (with fan-out) must be finished by the caller, through offerArtifact or not. */
export interface Delivery {
  readonly lease?: FanOutLease;
}

const sizeOf = (artifact: PreparedArtifact): number => {
  if (artifact.size === undefined) throw new Error(`${artifact.name}: a verified artifact has a size`);
  return artifact.size;
};

async function fromController(ctx: ApplyContext, artifact: PreparedArtifact, to: Destination): Promise<void> {
  await ctx.transfers.run(() =>
    ctx.connection.uploadFile(artifact.localPath!, to.path, {
      mode: to.mode,
      owner: 'root',
      group: 'root',
      become: true,
      mkdirParents: true,
      sha256: artifact.sha256!,
      label: `upload ${to.label}`,
      signal: ctx.signal,
    }),
  );
}

export async function deliverArtifact(ctx: ApplyContext, artifact: PreparedArtifact, to: Destination, fanOut: ArtifactFanOut | undefined): Promise<Delivery> {
  if (fanOut === undefined) {
    await fromController(ctx, artifact, to);
    return {};
  }
  const lease = await fanOut.acquire(artifact.sha256!, ctx.host.name, ctx.signal);
  try {
    const { source } = lease;
    if (source.kind === 'holder') {
      const from = hostPort(source.holder.address, source.holder.port);
      const file = { path: to.path, sha256: artifact.sha256!, size: sizeOf(artifact) };
      const started = Date.now();
      try {
        await execChecked(ctx.connection, relayFetchCommand(file, from, to.mode.toString(8).padStart(4, '0')), {
          stdin: `${source.holder.token}\n`,
          become: true,
          label: `relay ${to.label} from ${source.holder.host}`,
          timeoutMs: (fetchTimeoutSeconds(file.size) + 10) * 1000,
          signal: ctx.signal,
        });
        lease.relayed();
        ctx.log(`${to.label}: relayed from ${source.holder.host} (${from}) in ${Date.now() - started} ms, size and sha256 checked`);
        return { lease };
      } catch (error) {
        if (ctx.signal.aborted) throw error;
        const reason = (error instanceof Error ? error.message : String(error)).split('\n').slice(-1)[0] ?? '';
        lease.relayFailed(reason);
        ctx.log(`${to.label}: relay from ${source.holder.host} (${from}) failed: ${reason}; sending it from the controller instead`);
      }
    } else {
      ctx.log(`${to.label}: sent from the controller (${source.reason})`);
    }
    await fromController(ctx, artifact, to);
    return { lease };
  } catch (error) {
    lease.finish();
    throw error;
  }
}

/**
 * After the copy landed: when other hosts still need it, start this host's server for it and
 * register the host as a holder; finishes the lease either way. Returns whether a server took
 * the file (then, with removeOnExit, the server deletes it when it exits; otherwise the caller does).
 */
export async function offerArtifact(
  ctx: ApplyContext,
  artifact: PreparedArtifact,
  path: string,
  delivery: Delivery,
  fanOut: ArtifactFanOut | undefined,
  removeOnExit: boolean,
): Promise<boolean> {
  const { lease } = delivery;
  if (fanOut === undefined || lease === undefined) return false;
  if (!fanOut.wantsHolder(artifact.sha256!, artifact.hosts)) {
    lease.finish();
    return false;
  }
  const token = newRelayToken();
  const address = fanOut.serveAddress(ctx.host);
  try {
    const result = await execChecked(ctx.connection, relayServeCommand({ path, sha256: artifact.sha256!, size: sizeOf(artifact) }, address, removeOnExit), {
      stdin: `${token}\n`,
      become: true,
      label: `serve ${artifact.name} to other hosts`,
      timeoutMs: 30_000,
      signal: ctx.signal,
    });
    const served = parseServeOutput(result.stdout);
    if ('problem' in served) {
      ctx.log(`${artifact.name}: not served to other hosts: ${served.problem}`);
      lease.finish();
      return false;
    }
    lease.finish({ host: ctx.host.name, address, port: served.port, token });
    return true;
  } catch (error) {
    lease.finish();
    ctx.log(`${artifact.name}: not served to other hosts: ${(error as Error).message}`);
    return false;
  }
}
