// Install one verified binary from the controller's cache: plan compares the host's file
// (sha256, mode, owner) with the artifact; apply streams it over SSH into a temp file that the
// host checks (size and sha256) before renaming it into place (a half-sent binary never
// replaces a working one), then records size, mtime and sum. Uploads across the run share one
// bound. With fan-out (cluster.artifacts.fanOut) the copy may come from another host instead
// (fan-out/deliver-artifact.ts), and this host then serves it to others.
import { noChange, type Change } from '../../../orchestrator/engine/change.js';
import type { Task } from '../../../orchestrator/engine/types.js';
import { execChecked } from '../../../orchestrator/ssh/connection.js';
import { sh } from '../../../orchestrator/ssh/quote.js';
import type { PreparedArtifact } from '../artifact.js';
import type { ArtifactFanOut } from '../fan-out/artifact-fan-out.js';
import { deliverArtifact, offerArtifact, type Delivery } from '../fan-out/deliver-artifact.js';
import { installedBinary, recordPathFor, type InstalledBinary } from '../../../orchestrator/facts/installed-binary.js';

export interface InstallBinaryPayload {
  readonly localPath: string;
  readonly sha256: string;
  /** The content is right; only mode or owner need fixing. */
  readonly attributesOnly: boolean;
}

const MODE = '0755';

export function planInstallBinary(artifact: PreparedArtifact, current: InstalledBinary): Change<InstallBinaryPayload> {
  const path = artifact.installPath!;
  const what = `${artifact.name} ${artifact.version}`;
  const payload = { localPath: artifact.localPath!, sha256: artifact.sha256!, attributesOnly: false };
  if (!current.exists) return { kind: 'create', summary: `install ${what} at ${path}`, payload };
  if (current.regular === false) return { kind: 'update', summary: `replace what is at ${path} (not a regular file) with ${what}`, payload };
  if (current.sha256 !== artifact.sha256)
    return { kind: 'update', summary: `replace ${path} with ${what} (sha256 ${current.sha256?.slice(0, 12)}… -> ${artifact.sha256!.slice(0, 12)}…)`, payload };
  if (current.mode !== MODE || current.owner !== 'root' || current.group !== 'root') {
    return {
      kind: 'update',
      summary: `fix ${path}: mode ${current.mode} -> ${MODE}, owner ${current.owner}:${current.group} -> root:root`,
      payload: { ...payload, attributesOnly: true },
    };
  }
  return noChange(`${path} is ${what}`);
}

/** `fanOut`: the run's distributor when hosts pass artifacts on (never for kcluster-relay itself, which must be there first). */
export function installBinary(
  artifact: PreparedArtifact,
  notify?: readonly string[],
  fanOut?: ArtifactFanOut,
): Task<{ bin: ReturnType<typeof installedBinary> }, InstallBinaryPayload> {
  const path = artifact.installPath;
  if (path === undefined || artifact.localPath === undefined || artifact.sha256 === undefined) {
    throw new Error(`${artifact.component}/${artifact.name}: a binary needs an install path and a verified local file`);
  }
  return {
    name: `binary ${path}`,
    tags: ['artifacts'],
    ...(notify ? { notify } : {}),
    invalidates: [`file:${path}`, `file:${path}#*`],
    facts: () => ({ bin: installedBinary(path) }),
    plan: (facts) => planInstallBinary(artifact, facts.bin),
    apply: async (change, ctx) => {
      const record = recordPathFor(path);
      const relay = artifact.component === 'kcluster-relay' ? undefined : fanOut;
      let delivery: Delivery = {};
      if (!change.payload.attributesOnly) delivery = await deliverArtifact(ctx, artifact, { path, mode: 0o755, label: artifact.name }, relay);
      try {
        // A copy lands only after the host checked its size and sha256 (atomic-write.ts, or kcluster-relay fetch), so
        // the record takes the artifact's sum; a file fixed in place (attributes only) is hashed.
        const sum = change.payload.attributesOnly ? sh`sum=$(sha256sum < "$p") || exit 1; sum=\${sum%% *}` : sh`sum=${change.payload.sha256}`;
        await execChecked(
          ctx.connection,
          sh`p=${path}; chown root:root -- "$p" && chmod 0755 -- "$p" || exit 1
${sum}
if [ "$sum" != ${change.payload.sha256} ]; then echo "$p has sha256 $sum, expected "${change.payload.sha256} >&2; rm -f -- ${record}; exit 1; fi
umask 022; mkdir -p -- ${recordPathFor(path).slice(0, recordPathFor(path).lastIndexOf('/'))} && echo "$(stat -c '%s %Y' -- "$p") $sum" > ${record}`,
          { become: true, label: `record ${artifact.name}` },
        );
      } catch (error) {
        delivery.lease?.finish();
        throw error;
      }
      await offerArtifact(ctx, artifact, path, delivery, relay, false);
    },
  };
}
