// What `kcluster config --host NAME` prints: the configuration every component of one host
// gets, rendered by the cluster playbook's own tasks, before anything runs (kOps' "every flag
// that will be passed to every component"). The playbook is built from the checked inputs (no
// SSH, no download: artifacts resolved only), with the cluster PKI and Secrets keys of a
// throwaway copy of the state folder (created there when the state has none), so nothing in
// the state folder is written. Each file task of the host's plays is planned as for a host
// that has no such file yet (the pure plan of `apply --check --diff` on a fresh host), and
// its content is what apply would write:
//
// - the static pods (etcd, kube-apiserver, kube-controller-manager, kube-scheduler): image
//   and command line, one flag a line;
// - the kubelet's config.yaml and its unit, containerd's config.toml (or Docker's files), the
//   API proxy's unit, the CNI configuration: the whole file.
//
// Tasks whose content depends on other facts of the host are planned with the values a fresh
// supported host has (FRESH_HOST_FACTS; the etcd user's uid and gid: 0). Secrets (keys,
// tokens, credentials: what --diff hides) are never printed. Not shown yet: what the addons
// role applies through the API (kube-proxy's ConfigMap, CoreDNS, flannel's DaemonSet).
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { prepareArtifacts } from '../src/kubernetes/artifacts/prepare-artifacts.js';
import { pkiSpecOf } from '../src/kubernetes/cluster/pki-spec.js';
import { ensureClusterPki } from '../src/kubernetes/pki/cluster-pki.js';
import { EncryptionKeyStore } from '../src/kubernetes/secrets/encryption-keys.js';
import { InputError } from '../src/orchestrator/engine/input-error.js';
import { playHosts } from '../src/orchestrator/engine/play-hosts.js';
import type { AnyTask, HostContext } from '../src/orchestrator/engine/types.js';
import type { Inventory } from '../src/orchestrator/inventory/model.js';
import { deepMerge } from '../src/orchestrator/inventory/deep-merge.js';
import { looksSecret, type ManagedFilePayload } from '../src/orchestrator/tasks/managed-file.js';
import { clusterPlaybook } from './cluster.js';
import { checkClusterInputs } from './cluster-inputs.js';

/** The files shown, by path: the components' configuration (not certificates, kubeconfigs or keys). */
const SHOWN: readonly RegExp[] = [
  /^\/etc\/kubernetes\/manifests\/[^/]+\.yaml$/,
  /^\/var\/lib\/kubelet\/config\.yaml$/,
  /^\/etc\/systemd\/system\/[^/]+\.service(\.d\/[^/]+\.conf)?$/,
  /^\/etc\/containerd\/config\.toml$/,
  /^\/etc\/docker\/daemon\.json$/,
  /^\/etc\/cni\/net\.d\/[^/]+$/,
];

export interface HostFile {
  readonly path: string;
  readonly role: string;
  readonly content: string;
}

/**
 * The value each fact a file task reads has on a fresh supported host (Debian 12: cgroup v2,
 * no systemd-resolved, none of kcluster's files yet; the etcd user made by the run, its uid
 * and gid the host's: 0 here), or undefined for any other fact: that task is not shown.
 */
export const FRESH_HOST_FACTS = 'cgroup v2, no systemd-resolved, none of kcluster\'s files yet';
function freshFact(key: string): unknown {
  if (key.startsWith('file:')) return { exists: false };
  if (key === 'cgroup-version') return 'v2';
  if (key === 'etcd-user') return { exists: true, uid: 0, gid: 0 };
  return undefined;
}

/** The content a file task would write on a host without the file, or undefined when it is no file task. */
function plannedContent(task: AnyTask, ctx: HostContext): string | undefined {
  const facts = task.facts(ctx) as Record<string, { key: string }>;
  if (!('file' in facts) && !('__file' in facts)) return undefined;
  const values: Record<string, unknown> = {};
  for (const [name, fact] of Object.entries(facts)) {
    const value = freshFact(fact.key);
    if (value === undefined) return undefined;
    values[name] = value;
  }
  const change = (task.plan as (facts: unknown, ctx: HostContext) => { kind: string; payload?: ManagedFilePayload })(values, ctx);
  return change.payload?.content.toString('utf8');
}

/** Every shown file of `hostName`, in the order the playbook writes them. */
export async function hostConfigFiles(inventory: Inventory, hostName: string, env: Readonly<Record<string, string | undefined>>): Promise<HostFile[]> {
  const host = inventory.hosts.find((h) => h.name === hostName);
  if (host === undefined) throw new InputError(`--host ${hostName}: no such host in ${inventory.file} (hosts: ${inventory.hosts.map((h) => h.name).join(', ')})`);
  const checked = await checkClusterInputs(inventory, env);
  // Resolved, not fetched: the tasks that upload them are built, never planned here.
  const artifacts = (await prepareArtifacts(inventory, { resolveOnly: true })).map((a) => ({ localPath: '(not fetched)', sha256: '0'.repeat(64), size: 0, ...(a.type === 'image' && a.origin.kind === 'bundle' ? { imageId: '(not read)' } : {}), ...a }));
  const scratch = await mkdtemp(join(tmpdir(), 'kcluster-config-'));
  try {
    if (existsSync(join(inventory.stateDir, 'pki'))) await cp(join(inventory.stateDir, 'pki'), join(scratch, 'pki'), { recursive: true });
    if (existsSync(join(inventory.stateDir, 'encryption'))) await cp(join(inventory.stateDir, 'encryption'), join(scratch, 'encryption'), { recursive: true });
    const pki = await ensureClusterPki(scratch, pkiSpecOf(inventory, checked.topology));
    const encryption = await new EncryptionKeyStore(scratch).ensure();
    const inputs = { inventory, ...checked, artifacts, pki, encryption, ignorePreflight: new Set<string>(), controllerEpochSeconds: Math.floor(Date.now() / 1000) };
    const playbook = clusterPlaybook(inputs, { running: false });
    const files: HostFile[] = [];
    const seen = new Set<string>();
    for (const play of playbook.plays) {
      if (!playHosts(inventory, play).includes(hostName)) continue;
      for (const role of play.roles) {
        const ctx: HostContext = { host, inventory, vars: deepMerge(role.defaults ?? {}, host.vars), shared: new Map(), factOf: () => undefined };
        for (const task of role.tasks) {
          const content = plannedContent(task, ctx);
          const path = task.name.startsWith('file ') ? task.name.slice('file '.length) : undefined;
          if (content === undefined || path === undefined || seen.has(path) || !SHOWN.some((p) => p.test(path)) || looksSecret(content)) continue;
          seen.add(path);
          files.push({ path, role: role.name, content });
        }
      }
    }
    return files;
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/** A static pod as its image and command line, one flag a line; other files as they are. */
export function renderHostConfig(host: string, files: readonly HostFile[]): string {
  const out: string[] = [`# kcluster config --host ${host}: what apply writes for each component of ${host} (role in brackets),`, `# for a fresh host (${FRESH_HOST_FACTS}); apply --check --diff shows it against the real one.`];
  for (const file of files) {
    out.push('', `## ${file.path} [${file.role}]`);
    if (file.path.startsWith('/etc/kubernetes/manifests/')) {
      const pod = parse(file.content) as { spec?: { containers?: { name: string; image: string; command?: string[]; args?: string[] }[] } };
      for (const c of pod.spec?.containers ?? []) {
        out.push(`image: ${c.image}`, ...[...(c.command ?? []), ...(c.args ?? [])].map((part) => `  ${part}`));
      }
    } else {
      out.push(file.content.trimEnd());
    }
  }
  return `${out.join('\n')}\n`;
}
