// Architectures as kcluster names them: Go's (and Debian's, and the OCI platform's) names,
// amd64 and arm64, whatever a machine calls itself (Node's x64, uname's x86_64 and aarch64).

/** The architectures kcluster builds bundles for and installs on. */
export const ARCHES = ['amd64', 'arm64'] as const;
export type Arch = (typeof ARCHES)[number];

const BY_OTHER_NAME: Readonly<Record<string, Arch>> = { x64: 'amd64', x86_64: 'amd64', amd64: 'amd64', arm64: 'arm64', aarch64: 'arm64' };

/** Node's os.arch() or `uname -m` to Go's name; undefined for an architecture kcluster does not know. */
export function archOf(name: string): Arch | undefined {
  return BY_OTHER_NAME[name];
}

export const isArch = (value: string): value is Arch => (ARCHES as readonly string[]).includes(value);

/** A host's artifacts' architecture when its inventory entry names none (`arch`). */
export const DEFAULT_ARCH: Arch = 'amd64';

/** The architecture of the artifacts a host gets: its `arch` in the inventory, or DEFAULT_ARCH. */
export const hostArch = (host: { readonly arch?: Arch }): Arch => host.arch ?? DEFAULT_ARCH;

/**
 * Components of a bundle that run on the machine that builds it (mkimage) or on the controller
 * (helm), never on a node: built for this machine's architecture whatever the bundle's is.
 */
export const HOST_TOOL_COMPONENTS: ReadonlySet<string> = new Set(['mkimage', 'helm']);
