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
// tokens, credentials: what --diff hides) are never printed. The addons (kube-proxy, flannel,
// CoreDNS), applied through the API for the whole cluster, are planned as on a cluster that
// has none yet and shown for every host: their ConfigMaps' data (kube-proxy's configuration,
// the Corefile, flannel's network) and their containers' command lines.
import { parse, parseAllDocuments } from 'yaml';
import { unfetchedArtifacts } from '../src/kubernetes/artifacts/unfetched-artifacts.js';
import { pkiSpecOf } from '../src/kubernetes/cluster/pki-spec.js';
import { ensureClusterPki } from '../src/kubernetes/pki/cluster-pki.js';
import { EncryptionKeyStore } from '../src/kubernetes/secrets/encryption-keys.js';
import { InputError } from '../src/orchestrator/engine/input-error.js';
import { playHosts } from '../src/orchestrator/engine/play-hosts.js';
import type { AnyTask, HostContext } from '../src/orchestrator/engine/types.js';
import type { Inventory } from '../src/orchestrator/inventory/model.js';
import { deepMerge } from '../src/orchestrator/inventory/deep-merge.js';
import { quotedTerms, selectHosts, unknownSelectorHint } from '../src/orchestrator/inventory/select-hosts.js';
import { looksSecret, type ManagedFilePayload } from '../src/orchestrator/tasks/managed-file.js';
import { clusterPlaybook } from './cluster.js';
import { addonRecord } from '../src/kubernetes/facts/addon-record.js';
import type { AddonPayload } from '../roles/addons/addon-plan.js';
import { checkClusterInputs, UNREAD_SNAPSHOT_UPLOAD } from './cluster-inputs.js';
import { uploadsScheduledSnapshots } from '../src/kubernetes/etcd/scheduled-snapshot-upload.js';

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
export const FRESH_HOST_FACTS = "cgroup v2, no systemd-resolved, none of kcluster's files yet";
function freshFact(key: string): unknown {
  if (key.startsWith('file:')) return { exists: false };
  if (key === addonRecord.key) return { reachable: true, applied: {}, texts: {} };
  if (key === 'cgroup-version') return 'v2';
  if (key === 'etcd-user') return { exists: true, uid: 0, gid: 0 };
  return undefined;
}

/**
 * The content a file task would write on a host without the file, or the manifest an addon
 * task would apply on a cluster without it; undefined for other tasks.
 */
function plannedContent(task: AnyTask, ctx: HostContext): string | undefined {
  const facts = task.facts(ctx) as Record<string, { key: string }>;
  if (!('file' in facts) && !('__file' in facts) && !('record' in facts)) return undefined;
  const values: Record<string, unknown> = {};
  for (const [name, fact] of Object.entries(facts)) {
    const value = freshFact(fact.key);
    if (value === undefined) return undefined;
    values[name] = value;
  }
  const change = (task.plan as (facts: unknown, ctx: HostContext) => { kind: string; payload?: Partial<ManagedFilePayload & AddonPayload> })(values, ctx);
  return change.payload?.content?.toString('utf8') ?? change.payload?.manifest;
}

/** The hosts a --host selector names (names, groups, globs, all), or an InputError naming what it did not find. */
function selectedHosts(inventory: Inventory, selector: string): string[] {
  const selection = selectHosts(inventory, selector);
  if (selection.unknown.length > 0)
    throw new InputError(
      `--host: no host or group named ${quotedTerms(selection.unknown)} in ${inventory.file}${unknownSelectorHint(inventory, selection.unknown)}`,
    );
  if (selection.hosts.length === 0) throw new InputError(`--host ${selector}: selects no host of ${inventory.file}`);
  return selection.hosts;
}

/**
 * Every shown file of each host `selector` names, in the order the playbook writes them. The
 * playbook is built once, from a PKI and Secrets key read from the state folder or made in
 * memory (nothing is written, no key is copied anywhere).
 */
export async function hostConfigFiles(
  inventory: Inventory,
  selector: string,
  env: Readonly<Record<string, string | undefined>>,
): Promise<{ host: string; files: HostFile[] }[]> {
  const names = selectedHosts(inventory, selector);
  // The upload settings are not among the files shown: no credential is asked for them.
  const checked = await checkClusterInputs(inventory, env, { snapshotUploadCredential: false });
  // Resolved, not fetched: the tasks that upload them are built, never planned here.
  const artifacts = await unfetchedArtifacts(inventory);
  const pki = await ensureClusterPki(inventory.stateDir, pkiSpecOf(inventory, checked.topology), { inMemory: true });
  const encryption = await new EncryptionKeyStore(inventory.stateDir, { inMemory: true }).ensure();
  const inputs = {
    inventory,
    ...checked,
    artifacts,
    pki,
    encryption,
    ignorePreflight: new Set<string>(),
    controllerEpochSeconds: Math.floor(Date.now() / 1000),
    ...(uploadsScheduledSnapshots(inventory) ? { snapshotUpload: UNREAD_SNAPSHOT_UPLOAD } : {}),
  };
  const playbook = clusterPlaybook(inputs, { running: false });
  return names.map((hostName) => ({ host: hostName, files: filesOf(inventory, playbook, hostName) }));
}

function filesOf(inventory: Inventory, playbook: ReturnType<typeof clusterPlaybook>, hostName: string): HostFile[] {
  const host = inventory.hosts.find((h) => h.name === hostName)!;
  const files: HostFile[] = [];
  const seen = new Set<string>();
  for (const play of playbook.plays) {
    const hosts = playHosts(inventory, play);
    for (const role of play.roles) {
      for (const task of role.tasks) {
        // The addons run on every node (kube-proxy, flannel) or somewhere in the cluster
        // (CoreDNS): shown for every host, rendered as the host that applies them does.
        const addon = task.name.startsWith('addon ') ? task.name : undefined;
        const on = addon !== undefined ? inventory.hosts.find((h) => h.name === hosts[0]) : hosts.includes(hostName) ? host : undefined;
        if (on === undefined) continue;
        const path = addon ?? (task.name.startsWith('file ') ? task.name.slice('file '.length) : undefined);
        if (path === undefined || seen.has(path) || (addon === undefined && !SHOWN.some((p) => p.test(path)))) continue;
        const ctx: HostContext = { host: on, inventory, vars: deepMerge(role.defaults ?? {}, on.vars), shared: new Map(), factOf: () => undefined };
        const content = plannedContent(task, ctx);
        if (content === undefined || looksSecret(content)) continue;
        seen.add(path);
        files.push({ path, role: addon !== undefined ? `${role.name}, cluster-wide` : role.name, content });
      }
    }
  }
  return files;
}

interface K8sObject {
  kind?: string;
  metadata?: { name?: string };
  data?: Record<string, string>;
  spec?: { template?: { spec?: { containers?: { name: string; image: string; command?: string[]; args?: string[] }[] } } };
}

/** An addon's configuration: each ConfigMap's data, each workload container's image and command line. */
function addonSummary(manifest: string): string[] {
  const out: string[] = [];
  for (const doc of parseAllDocuments(manifest)) {
    const object = doc.toJS() as K8sObject | null;
    if (object === null) continue;
    if (object.kind === 'ConfigMap') {
      for (const [key, value] of Object.entries(object.data ?? {})) out.push(`# ConfigMap ${object.metadata?.name ?? ''} ${key}:`, value.trimEnd());
    }
    for (const c of object.spec?.template?.spec?.containers ?? []) {
      out.push(
        `# ${object.kind ?? ''} ${object.metadata?.name ?? ''} container ${c.name}:`,
        `image: ${c.image}`,
        ...[...(c.command ?? []), ...(c.args ?? [])].map((part) => `  ${part}`),
      );
    }
  }
  return out;
}

/** A static pod as its image and command line, one flag a line; an addon as its configuration; other files as they are. */
export function renderHostConfig(host: string, files: readonly HostFile[], access: readonly string[] = []): string {
  const out: string[] = [
    `# kcluster config --host ${host}: what apply writes for each component of ${host} (role in brackets),`,
    `# for a fresh host (${FRESH_HOST_FACTS}); apply --check --diff shows it against the real one.`,
    ...(access.length > 0 ? ['', ...access] : []),
  ];
  for (const file of files) {
    const addon = file.path.startsWith('addon ') ? addonSummary(file.content) : undefined;
    if (addon?.length === 0) continue; // RBAC only: nothing a component is configured with
    out.push('', `## ${file.path} [${file.role}]`);
    if (file.path.startsWith('/etc/kubernetes/manifests/')) {
      const pod = parse(file.content) as { spec?: { containers?: { name: string; image: string; command?: string[]; args?: string[] }[] } };
      for (const c of pod.spec?.containers ?? []) {
        out.push(`image: ${c.image}`, ...[...(c.command ?? []), ...(c.args ?? [])].map((part) => `  ${part}`));
      }
    } else if (addon !== undefined) {
      out.push(...addon);
    } else {
      out.push(file.content.trimEnd());
    }
  }
  return `${out.join('\n')}\n`;
}
