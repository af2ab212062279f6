// Architectures as kcluster names them: Go's (and Debian's, and the OCI platform's) names,
// amd64 and arm64, whatever a machine calls itself (Node's x64, uname's x86_64 and aarch64).

import { ARCHES, type Arch } from '../inventory/host-arch.js';

export { ARCHES, DEFAULT_ARCH, hostArch, type Arch } from '../inventory/host-arch.js';

const BY_OTHER_NAME: Readonly<Record<string, Arch>> = { x64: 'amd64', x86_64: 'amd64', amd64: 'amd64', arm64: 'arm64', aarch64: 'arm64' };

/** Node's os.arch() or `uname -m` to Go's name; undefined for an architecture kcluster does not know. */
export function archOf(name: string): Arch | undefined {
  return BY_OTHER_NAME[name];
}

export const isArch = (value: string): value is Arch => (ARCHES as readonly string[]).includes(value);

/**
 * Components of a bundle that run on the machine that builds it (mkimage) or on the controller
 * (helm), never on a node: built for this machine's architecture whatever the bundle's is.
 */
export const HOST_TOOL_COMPONENTS: ReadonlySet<string> = new Set(['mkimage', 'helm']);
