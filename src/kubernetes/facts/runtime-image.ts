// Is an image present in the node's container runtime, and which one is it? An image is
// named by its config digest (its ID), which containerd and Docker both keep whatever archive
// format it was imported from. containerd: the k8s.io namespace (the one the kubelet uses).
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

function script(runtime: ContainerRuntime, reference: string): ShellCommand {
  if (runtime === 'docker') {
    return sh`command -v docker >/dev/null 2>&1 || { echo no-runtime; exit 0; }
out=$(docker info --format '{{.ServerVersion}}' 2>&1) || { echo runtime-down; printf '%s\\n' "$out"; exit 0; }
id=$(docker image inspect --format '{{.Id}}' ${reference} 2>/dev/null) && echo "present $id pinned" || echo absent`;
  }
  return sh`command -v ctr >/dev/null 2>&1 || { echo no-runtime; exit 0; }
out=$(ctr -n k8s.io images ls ${`name==${reference}`} 2>&1) || { echo runtime-down; printf '%s\\n' "$out" | grep -v '^time=' | tail -n 3; exit 0; }
# ctr logs warnings (cgroup v1 deprecation...) as "time=..." lines: keep the table only.
out=$(printf '%s\\n' "$out" | grep -v '^time=')
set -- $(printf '%s\\n' "$out" | sed -n 2p)
[ -n "\${3:-}" ] || { echo absent; exit 0; }
case "$out" in *io.cri-containerd.pinned=pinned*) pin=pinned ;; *) pin=unpinned ;; esac
cfg=$(ctr -n k8s.io content get "$3" 2>/dev/null | tr -d ' \\n\\t' | sed -n 's/.*"config":{[^}]*"digest":"\\(sha256:[0-9a-f]*\\)".*/\\1/p')
echo "present \${cfg:-unknown} $pin"`;
}

export function runtimeImage(runtime: ContainerRuntime, reference: string): Fact<RuntimeImage> {
  return { key: `image:${runtime}:${reference}`, become: true, script: script(runtime, reference), parse: parseRuntimeImage };
}
