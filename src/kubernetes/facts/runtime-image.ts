// Is an image present in the node's container runtime, and which one is it? An image is
// named by its config digest (its ID), which containerd and Docker both keep whatever archive
// format it was imported from. containerd: every image of the k8s.io namespace (the one the
// kubelet uses) in one `crictl images` (IDs and pins as the kubelet sees them), one fact that
// every image task of a host shares: two ctr processes per image made a converged rerun's
// image checks the largest part of its time on a busy host.
import { sh, type ShellCommand } from '../../orchestrator/ssh/quote.js';
import type { Fact } from '../../orchestrator/engine/fact.js';

export type ContainerRuntime = 'containerd' | 'docker';

export type RuntimeImage =
  | { readonly state: 'no-runtime' }
  | { readonly state: 'runtime-down'; readonly detail: string }
  | { readonly state: 'absent' }
  | { readonly state: 'present'; readonly imageId?: string; readonly pinned: boolean };

export function parseRuntimeImage(stdout: string): RuntimeImage {
  const [first = '', ...rest] = stdout.trim().split('\n');
  const [word, id, pinned] = first.split(' ');
  if (word === 'no-runtime') return { state: 'no-runtime' };
  if (word === 'runtime-down') return { state: 'runtime-down', detail: rest.join(' ').slice(0, 300) };
  if (word === 'absent') return { state: 'absent' };
  if (word === 'present') {
    return { state: 'present', ...(id && /^sha256:[0-9a-f]{64}$/.test(id) ? { imageId: id } : {}), pinned: pinned === 'pinned' };
  }
  throw new Error(`unexpected image state "${first.slice(0, 120)}"`);
}

function dockerScript(reference: string): ShellCommand {
  return sh`command -v docker >/dev/null 2>&1 || { echo no-runtime; exit 0; }
out=$(docker info --format '{{.ServerVersion}}' 2>&1) || { echo runtime-down; printf '%s\\n' "$out"; exit 0; }
id=$(docker image inspect --format '{{.Id}}' ${reference} 2>/dev/null) && echo "present $id pinned" || echo absent`;
}

/** What `crictl images -o json` lists, by reference (repo tag). */
export type ContainerdImages =
  | { readonly state: 'no-runtime' | 'no-crictl' }
  | { readonly state: 'runtime-down'; readonly detail: string }
  | { readonly state: 'listed'; readonly images: ReadonlyMap<string, { readonly imageId: string; readonly pinned: boolean }> };

export function parseContainerdImages(stdout: string): ContainerdImages {
  const [first = '', ...rest] = stdout.trim().split('\n');
  if (first === 'no-runtime' || first === 'no-crictl') return { state: first };
  if (first === 'runtime-down') return { state: 'runtime-down', detail: rest.join(' ').slice(0, 300) };
  if (first !== 'listed') throw new Error(`unexpected image list "${first.slice(0, 120)}"`);
  const listed = JSON.parse(rest.join('\n')) as { images?: { id?: string; repoTags?: string[]; pinned?: boolean }[] };
  const images = new Map<string, { imageId: string; pinned: boolean }>();
  for (const image of listed.images ?? [])
    for (const tag of image.repoTags ?? []) images.set(tag, { imageId: image.id ?? 'unknown', pinned: image.pinned === true });
  return { state: 'listed', images };
}

const CRICTL = sh`/usr/local/bin/crictl --runtime-endpoint unix:///run/containerd/containerd.sock --timeout 10s`;

export const containerdImages: Fact<ContainerdImages> = {
  key: 'images:containerd',
  become: true,
  script: sh`command -v ctr >/dev/null 2>&1 || { echo no-runtime; exit 0; }
[ -x /usr/local/bin/crictl ] || { echo no-crictl; exit 0; }
list() { ${CRICTL} images -o json; }
out=$(list 2>/dev/null) || { echo runtime-down; list 2>&1 | tail -n 3; exit 0; }
echo listed; printf '%s\\n' "$out"`,
  parse: parseContainerdImages,
};

/**
 * Waits until containerd's CRI (what the kubelet and the image list above read) shows `reference`
 * as image `imageId`, pinned. The CRI keeps its own copy of the image store, updated from
 * containerd's image events one at a time: right after `ctr images import` and `label` it may
 * not list the image yet, the later the busier containerd is (imports running side by side,
 * containers starting).
 */
export function waitUntilCriListsImage(reference: string, imageId: string, seconds: number): ShellCommand {
  const expected = `${imageId} true`;
  return sh`seen=; i=0; while [ "$i" -lt ${String(seconds * 5)} ]; do
seen=$(${CRICTL} inspecti -q -o go-template --template '{{.status.id}} {{.status.pinned}}' ${reference} 2>&1) && [ "$seen" = ${expected} ] && break
i=$((i + 1)); sleep 0.2; done
[ "$seen" = ${expected} ] || { printf '%s\n' "containerd's CRI does not list ${reference} as ${expected} ${String(seconds)} s after its import (crictl inspecti: $seen)" >&2; exit 1; }`;
}

/** One image's state, from the host's list. */
export function imageIn(list: ContainerdImages, reference: string): RuntimeImage {
  switch (list.state) {
    case 'no-runtime':
      return { state: 'no-runtime' };
    case 'no-crictl':
      return { state: 'runtime-down', detail: 'crictl, which kcluster reads the images with, is not installed yet' };
    case 'runtime-down':
      return list;
    case 'listed': {
      const found = list.images.get(reference);
      if (found === undefined) return { state: 'absent' };
      return { state: 'present', ...(/^sha256:[0-9a-f]{64}$/.test(found.imageId) ? { imageId: found.imageId } : {}), pinned: found.pinned };
    }
  }
}

/** Docker: one image by its reference. */
export function dockerImage(reference: string): Fact<RuntimeImage> {
  return { key: `image:docker:${reference}`, become: true, script: dockerScript(reference), parse: parseRuntimeImage };
}
