// Container registries (cluster.registries): the credentials read from the controller's
// environment, and what each runtime is given: containerd a hosts.toml per registry (mirrors
// first, then the server; credentials as an HTTP Basic Authorization header on each), Docker
// Engine its registry-mirrors (docker.io only) and insecure-registries, and the kubelet's
// credential file for the registries themselves.
import type { ClusterSettings, RegistrySettings } from '../inventory/cluster-settings.js';

/** Registry name -> "Basic base64(user:password)": built on the controller, never in argv or logs. */
export type RegistryAuth = Readonly<Record<string, string>>;

export class MissingRegistryCredential extends Error {
  constructor(
    readonly registry: string,
    readonly field: 'usernameEnv' | 'passwordEnv',
    readonly variable: string,
  ) {
    super(`${field}: the environment variable ${variable} is not set (or empty) on the controller: export it before running kcluster`);
    this.name = 'MissingRegistryCredential';
  }
}

export function registryAuthFrom(registries: ClusterSettings['registries'], env: Readonly<Record<string, string | undefined>>): RegistryAuth {
  const out: Record<string, string> = {};
  for (const [name, registry] of Object.entries(registries)) {
    if (registry.usernameEnv === undefined || registry.passwordEnv === undefined) continue;
    const user = env[registry.usernameEnv];
    const password = env[registry.passwordEnv];
    if (!user) throw new MissingRegistryCredential(name, 'usernameEnv', registry.usernameEnv);
    if (!password) throw new MissingRegistryCredential(name, 'passwordEnv', registry.passwordEnv);
    out[name] = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
  }
  return out;
}

/** The folder containerd reads a registry's hosts.toml from. */
export const CONTAINERD_CERTS_DIR = '/etc/containerd/certs.d';

const quoted = (value: string): string => JSON.stringify(value);

/** containerd's hosts.toml for one registry: the mirrors in order, then the server. */
export function containerdHostsToml(registry: RegistrySettings, authorization: string | undefined, header: string): string {
  const lines = [header, `server = ${quoted(registry.server)}`];
  if (authorization !== undefined) lines.push('', '[header]', `  Authorization = ${quoted(authorization)}`);
  for (const mirror of registry.mirrors) {
    lines.push('', `[host.${quoted(mirror)}]`, '  capabilities = ["pull", "resolve"]');
    if (authorization !== undefined) lines.push(`  [host.${quoted(mirror)}.header]`, `    Authorization = ${quoted(authorization)}`);
  }
  return `${lines.join('\n')}\n`;
}

/** host[:port] of an http:// or https:// URL. */
const hostOf = (url: string): string => new URL(url).host;

/** Docker Engine's part of daemon.json: mirrors of docker.io, and every plain-HTTP endpoint. */
export function dockerRegistrySettings(registries: ClusterSettings['registries']): { mirrors: string[]; insecure: string[] } {
  const mirrors = [...(registries['docker.io']?.mirrors ?? [])];
  const insecure = new Set<string>();
  for (const registry of Object.values(registries)) {
    for (const url of [registry.server, ...registry.mirrors]) if (url.startsWith('http://')) insecure.add(hostOf(url));
  }
  return { mirrors, insecure: [...insecure].sort() };
}

/** The kubelet's credential file (/var/lib/kubelet/config.json, the Docker config format): the registries' own credentials. */
export function kubeletRegistryCredentials(auth: RegistryAuth): string {
  const auths = Object.fromEntries(
    Object.keys(auth)
      .sort()
      .map((name) => [name === 'docker.io' ? 'https://index.docker.io/v1/' : name, { auth: auth[name]!.slice('Basic '.length) }]),
  );
  return `${JSON.stringify({ auths }, null, 2)}\n`;
}
