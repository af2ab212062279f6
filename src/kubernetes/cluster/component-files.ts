// Files the control-plane components' flags reference (cluster.<component>.extraFiles, and
// the OIDC issuer's CA of cluster.apiServer.oidc): read and checked on the controller before
// any host is touched, written to /etc/kubernetes/extra/<component>/ on every control plane and
// mounted read-only at the same path in the component's pod. Also the --oidc-* flags.
import { X509Certificate } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import type { ClusterSettings, OidcSettings } from '../inventory/cluster-settings.js';
import type { ControlPlaneComponent } from './component-args.js';

export type FileComponent = Exclude<ControlPlaneComponent, 'etcd'>;
export const FILE_COMPONENTS: Readonly<Record<FileComponent, 'apiServer' | 'controllerManager' | 'scheduler'>> = {
  'kube-apiserver': 'apiServer',
  'kube-controller-manager': 'controllerManager',
  'kube-scheduler': 'scheduler',
};

export const extraFilesDir = (component: FileComponent): string => `/etc/kubernetes/extra/${component}`;
export const OIDC_CA_NAME = 'oidc-ca.crt';
const MAX_FILE_BYTES = 1024 * 1024;

export interface ComponentFile {
  readonly name: string;
  readonly content: Buffer;
}
export type ComponentFiles = Readonly<Record<FileComponent, readonly ComponentFile[]>>;

export class ComponentFileError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(problems.join('\n'));
    this.name = 'ComponentFileError';
  }
}

/** The --oidc-* flags for cluster.apiServer.oidc, sorted by flag. */
export function oidcArgs(oidc: OidcSettings | undefined): string[] {
  if (oidc === undefined) return [];
  const flags: Record<string, string | undefined> = {
    'oidc-issuer-url': oidc.issuerUrl,
    'oidc-client-id': oidc.clientId,
    'oidc-username-claim': oidc.usernameClaim,
    'oidc-username-prefix': oidc.usernamePrefix,
    'oidc-groups-claim': oidc.groupsClaim,
    'oidc-groups-prefix': oidc.groupsPrefix,
    'oidc-ca-file': oidc.caFile !== undefined ? `${extraFilesDir('kube-apiserver')}/${OIDC_CA_NAME}` : undefined,
  };
  return Object.keys(flags)
    .sort()
    .flatMap((flag) => (flags[flag] !== undefined ? [`--${flag}=${flags[flag]}`] : []));
}

async function readChecked(path: string, setting: string, problems: string[]): Promise<Buffer | undefined> {
  const info = await stat(path).catch(() => undefined);
  if (info === undefined || !info.isFile()) {
    problems.push(`${setting}: ${path}: no such file on the controller`);
    return undefined;
  }
  if (info.size > MAX_FILE_BYTES) {
    problems.push(`${setting}: ${path}: ${info.size} bytes, more than ${MAX_FILE_BYTES}: a flag's file should be small`);
    return undefined;
  }
  return readFile(path);
}

export async function loadComponentFiles(cluster: Pick<ClusterSettings, 'extraFiles' | 'apiServerOidc'>): Promise<ComponentFiles> {
  const problems: string[] = [];
  const out: Record<FileComponent, ComponentFile[]> = { 'kube-apiserver': [], 'kube-controller-manager': [], 'kube-scheduler': [] };
  for (const [component, key] of Object.entries(FILE_COMPONENTS) as [FileComponent, (typeof FILE_COMPONENTS)[FileComponent]][]) {
    for (const path of cluster.extraFiles[key]) {
      const setting = `cluster.${key}.extraFiles`;
      const name = basename(path);
      if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(name))
        problems.push(`${setting}: ${path}: the file name must be letters, digits, '.', '_' and '-' (it becomes ${extraFilesDir(component)}/NAME)`);
      else if (
        out[component].some((f) => f.name === name) ||
        (component === 'kube-apiserver' && name === OIDC_CA_NAME && cluster.apiServerOidc?.caFile !== undefined)
      )
        problems.push(`${setting}: ${path}: another file is already named ${name} in ${extraFilesDir(component)}: rename one`);
      const content = await readChecked(path, setting, problems);
      if (content !== undefined) out[component].push({ name, content });
    }
  }
  const ca = cluster.apiServerOidc?.caFile;
  if (ca !== undefined) {
    const content = await readChecked(ca, 'cluster.apiServer.oidc.caFile', problems);
    if (content !== undefined) {
      try {
        new X509Certificate(content);
        out['kube-apiserver'].push({ name: OIDC_CA_NAME, content });
      } catch {
        problems.push(`cluster.apiServer.oidc.caFile: ${ca}: not a PEM certificate: give the issuer's CA certificate`);
      }
    }
  }
  if (problems.length > 0) throw new ComponentFileError(problems);
  return out;
}
