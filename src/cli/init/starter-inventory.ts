// The inventory `kcluster init` writes: the hosts given on the command line, the SSH login,
// where the artifacts come from, kcluster's defaults written out, every line commented. Pure:
// the command checks the arguments and writes the text.
import { stringify } from 'yaml';
import { DEFAULT_KUBERNETES_VERSION } from '../../kubernetes/inventory/defaults.js';
import type { InitHost } from './init-hosts.js';

export interface StarterSettings {
  readonly name: string;
  readonly hosts: readonly InitHost[];
  readonly user: string;
  /** One login method, or none: then kcluster's default (the agent, else ~/.ssh/id_ed25519 or id_rsa). */
  readonly login: { readonly keyFile: string } | { readonly agent: true } | undefined;
  /** The bundle's path; undefined writes a placeholder marked CHANGE. */
  readonly bundle: string | undefined;
  readonly apiEndpoint: string | undefined;
  readonly containerRuntime: 'containerd' | 'docker';
  /** The schema file editors check the inventory against (this installation's). */
  readonly schemaPath: string;
  /** The inventory reference page of this installation (shipped in the package). */
  readonly referencePage: string;
}

/** A YAML scalar for any string (quoted when it must be). */
const scalar = (value: string): string => stringify(value).trim();

/** Where the placeholder bundle path points: nowhere, so that apply says so. */
export const BUNDLE_PLACEHOLDER = '/path/printed/by/bundle/build';

function apiEndpointLines(settings: StarterSettings, controlPlanes: number): string[] {
  if (settings.apiEndpoint !== undefined) {
    return [
      '  apiEndpoint:',
      `    host: ${scalar(settings.apiEndpoint)}        # the load balancer in front of port 6443 of every control plane`,
      '    port: 6443',
    ];
  }
  if (controlPlanes > 1) {
    return [
      '  # No apiEndpoint.host: every node runs kcluster-apiproxy to the API servers (docs/users/ha.md).',
      '  # With a load balancer: apiEndpoint: { host: ADDRESS, port: 6443 }',
    ];
  }
  return [
    '  # One control plane: its address is the API endpoint. For HA, add two more control-plane',
    '  # hosts later and run kcluster apply (docs/users/ha.md#adding-control-planes).',
  ];
}

function loginLines(settings: StarterSettings): string[] {
  const others = [
    '  # agent: true                  # the keys of the running ssh-agent',
    '  # passwordEnv: KCLUSTER_SSH_PASSWORD   # a password, read from this environment variable',
  ];
  if (settings.login === undefined) {
    return [
      '  # No key given: kcluster uses the ssh-agent when SSH_AUTH_SOCK is set, else ~/.ssh/id_ed25519 or',
      '  # ~/.ssh/id_rsa. To name one: keyFile: ~/.ssh/id_ed25519',
      ...others,
    ];
  }
  if ('agent' in settings.login)
    return ['  agent: true                    # the keys of the running ssh-agent (SSH_AUTH_SOCK)', '  # keyFile: ~/.ssh/id_ed25519   # a key file instead'];
  return [`  keyFile: ${scalar(settings.login.keyFile)}`, ...others];
}

export function starterInventory(settings: StarterSettings): string {
  const controlPlanes = settings.hosts.filter((h) => h.role === 'control-plane').length;
  const become = settings.user === 'root' ? [] : ['  # become: { passwordEnv: KCLUSTER_SUDO_PASSWORD }   # if sudo asks this user for a password'];
  const lines = [
    `# yaml-language-server: $schema=${settings.schemaPath}`,
    '#',
    '# Written by `kcluster init`. Check it with `kcluster validate -i FILE`; every key and its default:',
    `# ${settings.referencePage}`,
    "# Values without a comment are kcluster's defaults, written out.",
    '',
    'cluster:',
    `  name: ${scalar(settings.name)}                 # its state folder: ~/.kcluster/${settings.name}/ (CAs and keys: back it up)`,
    `  kubernetesVersion: ${DEFAULT_KUBERNETES_VERSION}      # the newest release kcluster knows; \`kcluster upgrade\` moves it`,
    `  containerRuntime: ${settings.containerRuntime}${settings.containerRuntime === 'docker' ? '      # Docker Engine with cri-dockerd' : '    # or docker: Docker Engine with cri-dockerd'}`,
    '  cni: flannel',
    '  podCIDR: 10.244.0.0/16          # must not overlap serviceCIDR or any host address',
    '  serviceCIDR: 10.96.0.0/12',
    ...apiEndpointLines(settings, controlPlanes),
    '  artifacts:                      # every binary and image from a bundle: `kcluster bundle build -i FILE`',
    '    source: bundle',
    settings.bundle !== undefined
      ? `    bundle: ${scalar(settings.bundle)}`
      : `    bundle: ${BUNDLE_PLACEHOLDER}   # CHANGE: the folder \`kcluster bundle build\` printed last`,
    '',
    'ssh:',
    `  user: ${scalar(settings.user)}${settings.user === 'root' ? '' : '                    # not root: commands run through sudo'}`,
    ...loginLines(settings),
    ...become,
    '',
    'hosts:',
    ...settings.hosts.map((h) => `  - { name: ${h.name}, address: ${scalar(h.address)}, roles: [${h.role}] }`),
    '',
  ];
  return lines.join('\n');
}
