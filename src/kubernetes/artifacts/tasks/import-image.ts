// Import one image archive into the node's container runtime, only when the image is missing
// or is another image under the same name (compared by image ID, the config digest). The
// archive is streamed to the host, imported, pinned against the kubelet's image garbage
// collection (there is no registry to pull it back from), and deleted. With fan-out
// (cluster.artifacts.fanOut) the archive may come from another host instead, and when other
// hosts still need it this host keeps it staged and serves it: its relay server deletes it when
// it exits (fan-out/deliver-artifact.ts).
import { randomBytes } from 'node:crypto';
import { noChange, type Change } from '../../../orchestrator/engine/change.js';
import type { Task } from '../../../orchestrator/engine/types.js';
import { execChecked } from '../../../orchestrator/ssh/connection.js';
import { sh } from '../../../orchestrator/ssh/quote.js';
import type { PreparedArtifact } from '../artifact.js';
import type { ArtifactFanOut } from '../fan-out/artifact-fan-out.js';
import { deliverArtifact, offerArtifact, type Delivery } from '../fan-out/deliver-artifact.js';
import { containerdImages, dockerImage, imageIn, waitUntilCriListsImage, type ContainerRuntime, type RuntimeImage } from '../../facts/runtime-image.js';

export const IMAGE_STAGING_DIR = '/var/lib/kcluster/images';
/** How long an imported image may take to appear in containerd's CRI before the import fails. */
const CRI_LISTING_WAIT_S = 30;

export interface ImportImagePayload {
  readonly localPath: string;
  readonly pinOnly: boolean;
}

export function planImportImage(artifact: PreparedArtifact, runtime: ContainerRuntime, current: RuntimeImage): Change<ImportImagePayload> {
  const ref = artifact.reference!;
  const payload = { localPath: artifact.localPath!, pinOnly: false };
  switch (current.state) {
    case 'no-runtime':
      return { kind: 'create', summary: `import ${ref} into ${runtime} (not installed yet)`, payload };
    case 'runtime-down':
      return { kind: 'create', summary: `import ${ref} into ${runtime} (${runtime} is not answering yet)`, payload };
    case 'absent':
      return { kind: 'create', summary: `import ${ref} into ${runtime}`, payload };
    case 'present':
      if (current.imageId !== artifact.imageId) {
        return { kind: 'update', summary: `replace ${ref} in ${runtime}: image ${current.imageId ?? 'unknown'} -> ${artifact.imageId}`, payload };
      }
      if (!current.pinned) return { kind: 'update', summary: `pin ${ref} against image garbage collection`, payload: { ...payload, pinOnly: true } };
      return noChange(`${runtime} has ${ref} (${artifact.imageId?.slice(0, 19)})`);
  }
}

type ImageFacts = { images: typeof containerdImages } | { image: ReturnType<typeof dockerImage> };

export function importImage(artifact: PreparedArtifact, runtime: ContainerRuntime, fanOut?: ArtifactFanOut): Task<ImageFacts, ImportImagePayload> {
  const ref = artifact.reference;
  const sha256 = artifact.sha256;
  if (ref === undefined || artifact.localPath === undefined || artifact.imageId === undefined || sha256 === undefined) {
    throw new Error(`${artifact.component}/${artifact.name}: importing needs a verified image archive on the controller (source: bundle)`);
  }
  const stagedAt = `${IMAGE_STAGING_DIR}/${artifact.name}-${artifact.version}.tar`;
  return {
    name: `image ${ref}`,
    tags: ['artifacts', 'images'],
    // containerd: the host's one image list, which every image task shares.
    facts: () => (runtime === 'containerd' ? { images: containerdImages } : { image: dockerImage(ref) }),
    plan: (facts) => planImportImage(artifact, runtime, 'images' in facts ? imageIn(facts.images, ref) : facts.image),
    apply: async (change, ctx) => {
      // containerd: pinned, then listed by its CRI as the kubelet will see it (waitUntilCriListsImage).
      const pin =
        runtime === 'containerd'
          ? sh`ctr -n k8s.io images label ${ref} io.cri-containerd.pinned=pinned >/dev/null && ${waitUntilCriListsImage(ref, artifact.imageId!, CRI_LISTING_WAIT_S)}`
          : sh`true`;
      if (change.payload.pinOnly) {
        await execChecked(ctx.connection, pin, { become: true, label: `pin ${artifact.name}` });
        return;
      }
      // With fan-out a staged archive may outlive the run in its relay server (until it idles out),
      // so each run stages under its own name: an older server never deletes a newer run's archive.
      const staged = fanOut === undefined ? stagedAt : `${stagedAt.slice(0, -'.tar'.length)}.${randomBytes(4).toString('hex')}.tar`;
      const delivery: Delivery = await deliverArtifact(ctx, artifact, { path: staged, mode: 0o600, label: `image ${artifact.name}` }, fanOut);
      // Served to other hosts: the relay server owns the staged archive and deletes it when it exits.
      const served = await offerArtifact(ctx, artifact, staged, delivery, fanOut, true);
      const load =
        runtime === 'containerd' ? sh`ctr -n k8s.io images import --platform ${`linux/${artifact.arch}`} ${staged}` : sh`docker load --input ${staged}`;
      const removeAfter = served ? sh`` : sh`trap 'rm -f -- ${staged}' EXIT; `;
      await execChecked(ctx.connection, sh`${removeAfter}${load} && ${pin}`, {
        become: true,
        label: `import ${artifact.name}`,
        timeoutMs: 300_000,
      });
    },
  };
}
