// The architectures a host's artifacts can be built for, as the inventory names them (Go's, and
// Debian's, and the OCI platform's names), and which one a host gets. The artifacts layer
// builds on these (src/kubernetes/artifacts/arch.ts).

/** The architectures kcluster builds bundles for and installs on. */
export const ARCHES = ['amd64', 'arm64'] as const;
export type Arch = (typeof ARCHES)[number];

/** A host's artifacts' architecture when its inventory entry names none (`arch`). */
export const DEFAULT_ARCH: Arch = 'amd64';

/** The architecture of the artifacts a host gets: its `arch` in the inventory, or DEFAULT_ARCH. */
export const hostArch = (host: { readonly arch?: Arch }): Arch => host.arch ?? DEFAULT_ARCH;
