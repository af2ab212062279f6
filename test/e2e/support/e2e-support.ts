// Shared by the end-to-end tests: the bundle they install from, its kubectl, SSH to lab
// hosts, waiting for a condition with a deadline, a web app polled under load, and kubeconfigs
// for other users of a cluster.
import { get } from 'node:http';
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { parse, stringify } from 'yaml';
import { kcluster, parseEvents } from '../../integration/support/test-lab.js';
import { apiClient } from '../../../src/kubernetes/kube/api-client.js';

export interface BundleEntry {
  name: string;
  component: string;
  type: string;
  version: string;
  path: string;
  reference?: string;
}

/** The bundle directory from KCLUSTER_TEST_BUNDLE; a clear error when it is not set. */
export function bundleDir(): string {
  const dir = process.env['KCLUSTER_TEST_BUNDLE'];
  if (!dir || !existsSync(join(dir, 'kcluster-bundle.json'))) {
    throw new Error(
      'the end-to-end tests need the bundle: run them through `npm test`, or set KCLUSTER_TEST_BUNDLE to the folder `kcluster bundle build --all-releases --test-tools` prints',
    );
  }
  return dir;
}

export const bundleEntries = (): BundleEntry[] =>
  (JSON.parse(readFileSync(join(bundleDir(), 'kcluster-bundle.json'), 'utf8')) as { artifacts: BundleEntry[] }).artifacts;

/** The newest Kubernetes version in the bundle (the one kcluster defaults to). */
/** The Kubernetes releases the bundle holds, oldest first. */
export function bundleKubernetesVersions(): string[] {
  const versions = bundleEntries()
    .filter((a) => a.name === 'kubelet')
    .map((a) => a.version);
  return versions.sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
}

export function newestKubernetesVersion(): string {
  return bundleKubernetesVersions().at(-1)!;
}

export const kubectlBinary = (version = newestKubernetesVersion()): string =>
  join(bundleDir(), bundleEntries().find((a) => a.name === 'kubectl' && a.version === version)!.path);

/** Runs a command on a lab host through the lab's ssh_config; rejects with stderr on failure. */
/** OpenSSH's client with these arguments (the last one the command), `input` on its stdin; its stdout, or an error with its stderr. */
export async function sshCommand(args: readonly string[], input?: string | Buffer): Promise<string> {
  const child = execFile('ssh', args, { maxBuffer: 16 * 1024 * 1024 });
  child.stdin?.end(input);
  let out = '';
  let err = '';
  child.stdout?.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (err += c.toString()));
  const code = await new Promise<number>((resolve) => child.on('close', (c) => resolve(c ?? 1)));
  if (code !== 0) throw new Error(`ssh ${args.slice(-2).join(' ')}: exit ${code}: ${err}`);
  return out;
}

export function sshTo(labDir: string) {
  return (host: string, command: string, input?: string | Buffer): Promise<string> => sshCommand(['-F', join(labDir, 'ssh_config'), host, command], input);
}

/** Polls `probe` every 2 s until it returns a value; throws with the last error after the deadline. */
export async function until<T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    await new Promise((r) => setTimeout(r, 2000));
  }
  throw new Error(`${what}: not within ${timeoutMs / 1000} s${last ? ` (last error: ${(last as Error).message})` : ''}`);
}

/**
 * A kubeconfig for another user of the cluster the admin kubeconfig points at (its server and
 * CA), written to `file`: a client certificate and key, or a bearer token.
 */
export function writeKubeconfigAs(adminFile: string, file: string, user: { clientCertificate: string; clientKey: string } | { token: string }): string {
  const admin = readFileSync(adminFile, 'utf8');
  const server = /server: (\S+)/.exec(admin)?.[1];
  const ca = /certificate-authority-data: (\S+)/.exec(admin)?.[1];
  if (server === undefined || ca === undefined) throw new Error(`${adminFile}: no server or certificate-authority-data`);
  const credentials = 'token' in user ? `token: ${user.token}` : `client-certificate: ${user.clientCertificate}, client-key: ${user.clientKey}`;
  writeFileSync(
    file,
    `apiVersion: v1\nkind: Config\nclusters: [{ name: c, cluster: { server: ${server}, certificate-authority-data: ${ca} } }]\nusers: [{ name: u, user: { ${credentials} } }]\ncontexts: [{ name: x, context: { cluster: c, user: u } }]\ncurrent-context: x\n`,
  );
  return file;
}

export interface HostRecap {
  host: string;
  changed: number;
  failed: number;
  roundTrips: number;
}
export const recapOf = (stdout: string): HostRecap[] =>
  (parseEvents(stdout).find((e) => e['type'] === 'run-end') as { summary: { hosts: HostRecap[] } } | undefined)?.summary.hosts ?? [];

/** "host role/task: summary" for every task or handler that changed: the message of a failed "changes nothing". */
export const changesIn = (stdout: string): string =>
  parseEvents(stdout)
    .filter((e) => (e['type'] === 'task-result' || e['type'] === 'handler-result') && e['status'] === 'changed')
    .map((e) => `${String(e['host'])} ${String(e['role'])}/${String(e['task'] ?? e['handler'])}: ${String(e['summary'] ?? '')}`)
    .join('\n');

/** A second `apply` of `inventory` changes nothing on any of its `hosts` (what changed is the failure's message). */
export async function convergedAgain(inventory: string, hosts: number): Promise<void> {
  const again = await kcluster(['apply', '-i', inventory, '--output', 'json']);
  expect(again.code, again.stderr).toBe(0);
  expect(
    recapOf(again.stdout).map((h) => h.changed),
    changesIn(again.stdout),
  ).toEqual(Array.from({ length: hosts }, () => 0));
}

/**
 * The lab's inventory (`labDir`/inventory.yaml) with only the hosts `NAME<i>` of `hosts`, each
 * with its roles (the cluster as it is at a step), `edit`ed, written to `labDir`/`file`.
 */
export function labInventoryWith(
  labDir: string,
  labName: string,
  file: string,
  hosts: Record<number, string[]>,
  edit: (doc: { cluster: Record<string, unknown> }) => void = () => {},
): string {
  const doc = parse(readFileSync(join(labDir, 'inventory.yaml'), 'utf8')) as { cluster: Record<string, unknown>; hosts: { name: string }[] };
  doc.hosts = Object.entries(hosts).map(([i, roles]) => ({ ...doc.hosts.find((h) => h.name === `${labName}${i}`)!, roles }));
  edit(doc);
  const path = join(labDir, file);
  writeFileSync(path, stringify(doc));
  return path;
}

/**
 * What `kubectl exec <client pod> --` runs to fetch `url` with busybox wget, giving up after
 * `seconds`: a connection tried before kube-proxy has a Service's rules keeps its first, unrouted
 * conntrack entry for as long as the kernel retries the SYN (about two minutes), so each attempt
 * of a probe must be a new connection.
 */
export function wgetInPod(url: string, seconds = 5): string[] {
  return ['/bin/busybox', 'timeout', String(seconds), '/bin/busybox', 'wget', '-qO-', url];
}

/** A web pod answering `greeting` on one node, a Service in front, and a client pod on another. */
export function webAndClientPods(image: string, webNode: string, clientNode: string, greeting: string): string {
  return `
apiVersion: v1
kind: Pod
metadata: { name: web, labels: { app: web } }
spec:
  nodeName: ${webNode}
  containers:
    - { name: web, image: ${image}, imagePullPolicy: Never, command: [/bin/busybox, sh, -c, "mkdir -p /www && echo ${greeting} > /www/index.html && exec /bin/busybox httpd -f -p 8080 -h /www"] }
---
apiVersion: v1
kind: Service
metadata: { name: web }
spec: { selector: { app: web }, ports: [{ port: 80, targetPort: 8080 }] }
---
apiVersion: v1
kind: Pod
metadata: { name: client }
spec:
  nodeName: ${clientNode}
  containers:
    - { name: client, image: ${image}, imagePullPolicy: Never, command: [/bin/busybox, sleep, "3600"] }
`;
}

/**
 * Whether `url` answers with a body holding "hello" (the web Deployment's page), over a new
 * connection each time. fetch and the default agent keep the connection alive between calls,
 * and a kept connection stays with the pod kube-proxy sent it to: after an etcd restore that
 * can be another pod that now has an old web pod's address (CoreDNS answers 404 on its health
 * port 8080), and every later try would ask it again.
 */
export function answersHello(url: string, timeoutMs = 2000): Promise<true | undefined> {
  return new Promise((resolve) => {
    const req = get(url, { agent: false, headers: { connection: 'close' }, timeout: timeoutMs }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve(res.statusCode === 200 && body.includes('hello') ? true : undefined));
      res.on('error', () => resolve(undefined));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', () => resolve(undefined));
  });
}

/** Polls the NodePort every 200 ms, counting answers and failures. */
export function poller(url: string) {
  const counts = { ok: 0, failed: 0, streak: 0, failures: [] as string[] };
  let stopped = false;
  const once = () =>
    new Promise<void>((resolve) => {
      const req = get(url, { timeout: 2000 }, (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => {
          if (res.statusCode === 200 && body.includes('hello')) {
            counts.ok++;
            counts.streak++;
          } else {
            counts.failed++;
            counts.streak = 0;
            counts.failures.push(`HTTP ${res.statusCode}`);
          }
          resolve();
        });
      });
      req.on('timeout', () => req.destroy(new Error('timeout')));
      req.on('error', (e) => (counts.failed++, (counts.streak = 0), counts.failures.push(`${new Date().toISOString()} ${e.message}`), resolve()));
    });
  const loop = (async () => {
    while (!stopped) {
      await once();
      await new Promise((r) => setTimeout(r, 200));
    }
  })();
  return { counts, stop: async () => ((stopped = true), await loop) };
}

/**
 * A 2-replica web Deployment answering "hello" (PDB minAvailable 1) behind NodePort 30080;
 * `tolerations` (YAML flow text) lets its pods run on tainted nodes.
 */
export const webDeploymentBehindNodePort = (image: string, tolerations?: string): string => `
apiVersion: apps/v1
kind: Deployment
metadata: { name: web }
spec:
  replicas: 2
  selector: { matchLabels: { app: web } }
  template:
    metadata: { labels: { app: web } }
    spec:
      terminationGracePeriodSeconds: 30${tolerations !== undefined ? `\n      tolerations: ${tolerations}` : ''}
      containers:
        - name: web
          image: ${image}
          imagePullPolicy: Never
          command: [/bin/busybox, sh, -c, "mkdir -p /www && echo hello > /www/index.html && exec /bin/busybox httpd -f -p 8080 -h /www"]
          readinessProbe: { tcpSocket: { port: 8080 }, periodSeconds: 1 }
          lifecycle: { preStop: { exec: { command: [/bin/busybox, sleep, "5"] } } }
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: { name: web }
spec: { minAvailable: 1, selector: { matchLabels: { app: web } } }
---
apiVersion: v1
kind: Service
metadata: { name: web }
spec: { type: NodePort, selector: { app: web }, ports: [{ port: 80, targetPort: 8080, nodePort: 30080 }] }
`;

/**
 * Polls /version on every API server at `addresses` (port 6443) every 250 ms with the lab's
 * admin certificate: how often some, or none, answered. An address whose API server does not
 * exist yet counts as down.
 */
export function apiServersPoller(labDir: string, addresses: readonly string[]) {
  const answers = { samples: 0, noneAnswered: 0, someDown: 0 };
  let polling = true;
  const loop = (async () => {
    const pki = join(labDir, 'state', 'pki');
    const credentials = {
      caCert: readFileSync(join(pki, 'ca.crt'), 'utf8'),
      clientCert: readFileSync(join(pki, 'admin.crt'), 'utf8'),
      clientKey: readFileSync(join(pki, 'admin.key'), 'utf8'),
    };
    const apis = addresses.map((address) => apiClient({ server: `https://${address}:6443`, ...credentials }, 2_000));
    while (polling) {
      const results = await Promise.allSettled(apis.map((api) => api.get('/version')));
      const up = results.filter((r) => r.status === 'fulfilled').length;
      answers.samples++;
      if (up === 0) answers.noneAnswered++;
      if (up < apis.length) answers.someDown++;
      await new Promise((r) => setTimeout(r, 250));
    }
  })();
  return { answers, stop: async () => ((polling = false), await loop) };
}

/**
 * The file's own lab hosts, from the test bundle: taken down and brought up before the file's
 * tests (`lab up --name NAME --privileged --bundle BUNDLE` plus `upArgs`), taken down after
 * unless KCLUSTER_KEEP_E2E_LAB is set.
 */
export function useE2eLab(name: string, upArgs: readonly string[]): void {
  beforeAll(async () => {
    bundleDir();
    await kcluster(['lab', 'down', '--name', name]);
    const up = await kcluster(['lab', 'up', '--name', name, ...upArgs, '--privileged', '--bundle', bundleDir()]);
    if (up.code !== 0) throw new Error(`lab up failed: ${up.stderr}`);
  });
  afterAll(async () => {
    if (!process.env['KCLUSTER_KEEP_E2E_LAB']) await kcluster(['lab', 'down', '--name', name]);
  });
}
