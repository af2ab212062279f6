// What each component puts into a bundle: its binaries (files of its stage's output, installed
// on hosts as they are) and its images (assembled from layers: a shared base, Debian's
// iptables/conntrack root file system, and files of the stage's output at a path in the image).

export type Layer =
  | { readonly kind: 'base' }
  | { readonly kind: 'netbase' }
  | { readonly kind: 'files'; readonly files: readonly { readonly from: string; readonly to: string }[] };

export interface ImageSpec {
  readonly name: string;
  readonly entrypoint: string;
  readonly user?: string;
  readonly layers: readonly Layer[];
}

export interface ComponentContents {
  readonly binaries: readonly string[];
  readonly images: readonly ImageSpec[];
  /** The image version, when it is not the stage's (test-tools: the Debian package's). */
  readonly versionFile?: string;
}

const base: Layer = { kind: 'base' };
const netbase: Layer = { kind: 'netbase' };
const at = (dir: string, ...names: string[]): Layer => ({ kind: 'files', files: names.map((n) => ({ from: n, to: `${dir}/${n}` })) });

const CONTROL_PLANE = ['kube-apiserver', 'kube-controller-manager', 'kube-scheduler'];

export const COMPONENT_CONTENTS: Readonly<Record<string, ComponentContents>> = {
  kubernetes: {
    binaries: [...CONTROL_PLANE, 'kube-proxy', 'kubelet', 'kubectl'],
    images: [
      ...CONTROL_PLANE.map((name) => ({ name, entrypoint: `/usr/local/bin/${name}`, layers: [base, at('usr/local/bin', name)] })),
      { name: 'kube-proxy', entrypoint: '/usr/local/bin/kube-proxy', layers: [base, netbase, at('usr/local/bin', 'kube-proxy')] },
    ],
  },
  etcd: {
    binaries: ['etcd', 'etcdctl', 'etcdutl'],
    images: [{ name: 'etcd', entrypoint: '/usr/local/bin/etcd', layers: [base, at('usr/local/bin', 'etcd', 'etcdctl', 'etcdutl')] }],
  },
  containerd: { binaries: ['containerd', 'ctr', 'containerd-shim-runc-v2'], images: [] },
  runc: { binaries: ['runc'], images: [] },
  crictl: { binaries: ['crictl'], images: [] },
  'cni-plugins': { binaries: ['bridge', 'loopback', 'host-local', 'portmap'], images: [] },
  'cri-dockerd': { binaries: ['cri-dockerd'], images: [] },
  'kcluster-apiproxy': { binaries: ['kcluster-apiproxy'], images: [] },
  'kcluster-relay': { binaries: ['kcluster-relay'], images: [] },
  'kcluster-snapshot-upload': { binaries: ['kcluster-snapshot-upload'], images: [] },
  keepalived: { binaries: ['keepalived'], images: [] },
  // Run on the controller (cluster.charts), never copied to hosts: built for the bundle's machine.
  helm: { binaries: ['helm'], images: [] },
  coredns: {
    binaries: [],
    images: [{ name: 'coredns', entrypoint: '/coredns', user: '65532:65532', layers: [base, { kind: 'files', files: [{ from: 'coredns', to: 'coredns' }] }] }],
  },
  'metrics-server': {
    binaries: [],
    images: [
      {
        name: 'metrics-server',
        entrypoint: '/metrics-server',
        user: '65534:65534',
        layers: [base, { kind: 'files', files: [{ from: 'metrics-server', to: 'metrics-server' }] }],
      },
    ],
  },
  // Its helper pod runs the same image with kcluster-local-path-helper (no shell in the image).
  'local-path-provisioner': {
    binaries: [],
    images: [
      {
        name: 'local-path-provisioner',
        entrypoint: '/local-path-provisioner',
        user: '65534:65534',
        layers: [
          base,
          {
            kind: 'files',
            files: [
              { from: 'local-path-provisioner', to: 'local-path-provisioner' },
              { from: 'kcluster-local-path-helper', to: 'kcluster-local-path-helper' },
            ],
          },
        ],
      },
    ],
  },
  // Root without a user: its capability NET_ADMIN (nftables, the netfilter queue) is given to uid 0 only.
  'kube-network-policies': {
    binaries: [],
    images: [
      {
        name: 'kube-network-policies',
        entrypoint: '/bin/netpol',
        layers: [base, { kind: 'files', files: [{ from: 'kube-network-policies', to: 'bin/netpol' }] }],
      },
    ],
  },
  flannel: {
    binaries: [],
    images: [
      { name: 'flannel', entrypoint: '/opt/bin/flanneld', layers: [base, netbase, { kind: 'files', files: [{ from: 'flanneld', to: 'opt/bin/flanneld' }] }] },
    ],
  },
  pause: {
    binaries: [],
    images: [{ name: 'pause', entrypoint: '/pause', user: '65535:65535', layers: [{ kind: 'files', files: [{ from: 'pause', to: 'pause' }] }] }],
  },
  'test-tools': {
    binaries: [],
    images: [{ name: 'busybox', entrypoint: '/bin/busybox', layers: [base, { kind: 'files', files: [{ from: 'rootfs/bin/busybox', to: 'bin/busybox' }] }] }],
    versionFile: 'version',
  },
};
