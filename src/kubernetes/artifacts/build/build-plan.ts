// What `kcluster bundle build` builds: from the components an inventory (or a list of Kubernetes
// versions) needs, the stages in the order they run. Pure: versions in, stages out. A stage is
// one recipe (bundle/recipes/NAME.sh) at one version; its output is cached on its own.
import { formatDiagnostic, parseInventory } from '../../inventory/load-inventory.js';
import type { Inventory } from '../../../orchestrator/inventory/model.js';
import { componentVersionsFor } from '../component-versions.js';
import { requiredArtifacts } from '../required-artifacts.js';
import { COMPONENT_CONTENTS } from './bundle-contents.js';

/** A component of the bundle at one version: what the inventory needs. */
export interface WantedComponent {
  readonly component: string;
  readonly version: string;
}

export interface BuildStage {
  /** `name@version`: the stage's identity in progress lines and dependencies. */
  readonly id: string;
  /** The recipe's name: bundle/recipes/NAME.sh, and the cache folder. */
  readonly name: string;
  readonly version: string;
  /** Stages whose outputs this one reads (their cache keys are part of its key). */
  readonly after: readonly string[];
  /** Repository folders whose files are part of the key (sources kcluster itself carries). */
  readonly sources: readonly string[];
  /** Whether it compiles Go (and so needs the toolchain). */
  readonly go: boolean;
  /**
   * source: its recipe builds it (bundle/recipes/NAME.sh); release: its binaries are downloaded
   * from the official release locations, through cluster.artifacts.mirrors, and checked
   * against the published checksums (`--from-releases`).
   */
  readonly origin: 'source' | 'release';
  /** Given to the recipe, and part of the key. */
  readonly env?: Readonly<Record<string, string>>;
}

/** An inventory keeping every default and installing from a bundle: three control planes without a load balancer, and a worker. */
const defaultInventoryText = (kubernetesVersion: string): string =>
  [
    'cluster:',
    `  kubernetesVersion: ${kubernetesVersion}`,
    '  artifacts: { source: bundle, bundle: /bundle }',
    'ssh: { agent: true }',
    'hosts:',
    '  - { name: cp1, address: 10.0.0.1, roles: [control-plane] }',
    '  - { name: cp2, address: 10.0.0.2, roles: [control-plane] }',
    '  - { name: cp3, address: 10.0.0.3, roles: [control-plane] }',
    '  - { name: w1, address: 10.0.0.4 }',
    '',
  ].join('\n');

/**
 * What an inventory that keeps every default needs, at these Kubernetes versions: what
 * inventoryComponents gives for such an inventory (the defaults and requiredArtifacts decide, as
 * for any inventory), in everyComponentFor's order. No cri-dockerd, Helm or local-path unless an
 * inventory asks for them (`bundle build -i`) or `--every-component` does.
 */
export function defaultComponentsFor(kubernetesVersions: readonly string[]): WantedComponent[] {
  const wanted = new Set(
    kubernetesVersions.flatMap((version) => {
      const parsed = parseInventory(defaultInventoryText(version), '/default-inventory.yaml', { env: {}, homeDir: '/' });
      if (!parsed.ok) throw new Error(`the default inventory for ${version} does not load: ${parsed.errors.map(formatDiagnostic).join('; ')}`);
      return inventoryComponents(parsed.inventory).map((w) => `${w.component}@${w.version}`);
    }),
  );
  return everyComponentFor(kubernetesVersions).filter((w) => wanted.has(`${w.component}@${w.version}`));
}

/** What an inventory installs: every host's artifacts, and Helm (run on the controller) when cluster.charts lists a chart. */
export function inventoryComponents(inventory: Inventory): WantedComponent[] {
  const onHosts = requiredArtifacts(inventory).map((a) => ({ component: a.component, version: a.version }));
  const helm = componentVersionsFor(inventory.cluster.kubernetesVersion).helm;
  return uniqueComponents([...onHosts, ...(inventory.cluster.charts.length > 0 ? [{ component: 'helm', version: helm }] : [])]);
}

/** Every component of a bundle for these Kubernetes versions, for both container runtimes. */
export function everyComponentFor(kubernetesVersions: readonly string[]): WantedComponent[] {
  const out: WantedComponent[] = [];
  for (const k8s of kubernetesVersions) {
    const v = componentVersionsFor(k8s);
    out.push(
      { component: 'kubernetes', version: k8s },
      { component: 'etcd', version: v.etcd },
      { component: 'containerd', version: v.containerd },
      { component: 'runc', version: v.runc },
      { component: 'cri-dockerd', version: v.criDockerd },
      { component: 'crictl', version: v.crictl },
      { component: 'cni-plugins', version: v.cniPlugins },
      { component: 'coredns', version: v.coredns },
      { component: 'flannel', version: v.flannel },
      { component: 'metrics-server', version: v.metricsServer },
      { component: 'local-path-provisioner', version: v.localPathProvisioner },
      { component: 'kube-network-policies', version: v.kubeNetworkPolicies },
      { component: 'helm', version: v.helm },
      { component: 'pause', version: v.pause },
      { component: 'kcluster-apiproxy', version: v.apiproxy },
      { component: 'kcluster-relay', version: v.relay },
      { component: 'kcluster-snapshot-upload', version: v.snapshotUpload },
      { component: 'keepalived', version: v.keepalived },
    );
  }
  return out;
}

/** Images to assemble (so the mkimage tool), read from what the component puts in a bundle. */
const hasImages = (component: string): boolean => (COMPONENT_CONTENTS[component]?.images.length ?? 0) > 0;
/** An image layer of Debian's iptables and conntrack (so the netbase-rootfs stage). */
const needsNetbase = (component: string): boolean => COMPONENT_CONTENTS[component]?.images.some((i) => i.layers.some((l) => l.kind === 'netbase')) ?? false;
/** Recipes that do not compile Go. */
const NO_GO = new Set(['pause', 'netbase-rootfs', 'test-tools', 'keepalived']);
/** Recipes built from sources in this repository. */
const SOURCES: Readonly<Record<string, readonly string[]>> = {
  'kcluster-apiproxy': ['src/kubernetes/apiproxy'],
  'kcluster-relay': ['src/kubernetes/relay'],
  'kcluster-snapshot-upload': ['src/kubernetes/snapshot-upload'],
  'local-path-provisioner': ['src/kubernetes/local-path-helper'],
  mkimage: ['bundle/mkimage'],
};
/** The tools' own stages: their version is the recipe's, not a component's. */
export const TOOL_VERSION = '1';
export const MKIMAGE_STAGE = `mkimage@${TOOL_VERSION}`;
export const NETBASE_STAGE = `netbase-rootfs@${TOOL_VERSION}`;

const stage = (name: string, version: string, after: readonly string[] = []): BuildStage => ({
  id: `${name}@${version}`,
  name,
  version,
  after,
  sources: SOURCES[name] ?? [],
  go: !NO_GO.has(name),
  origin: 'source',
});

/** Components whose releases publish every binary kcluster needs, with checksums (release-catalog.ts). */
export const FROM_RELEASES = new Set(['kubernetes', 'etcd', 'containerd', 'runc', 'crictl', 'cni-plugins']);

const released = (name: string, version: string): BuildStage => ({
  id: `${name}@${version}`,
  name,
  version,
  after: [],
  sources: [],
  go: false,
  origin: 'release',
});

/** Each component at each version once, in the order first asked for. */
export function uniqueComponents(wanted: readonly WantedComponent[]): WantedComponent[] {
  const seen = new Set<string>();
  return wanted.filter((w) => {
    const id = `${w.component}@${w.version}`;
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
}

/**
 * The stages, deduplicated, in a fixed order: the image tool, Kubernetes (newest first), then
 * the companions, then the Debian root file systems. `testTools` adds the busybox image kcluster's
 * own end-to-end tests run their pods with. `fromReleases` downloads what the official releases
 * publish with checksums (FROM_RELEASES) instead of building it; the rest is built as always.
 */
export function planBundleBuild(
  wanted: readonly WantedComponent[],
  options: { testTools?: boolean | undefined; fromReleases?: boolean | undefined } = {},
): BuildStage[] {
  const unique = uniqueComponents(wanted);
  const kubernetes = unique.filter((w) => w.component === 'kubernetes').map((w) => w.version);
  const stages: BuildStage[] = [];
  const needsImages = options.testTools === true || unique.some((w) => hasImages(w.component));
  if (needsImages) stages.push(stage('mkimage', TOOL_VERSION));
  const fromReleases = (component: string): boolean => options.fromReleases === true && FROM_RELEASES.has(component);
  for (const version of kubernetes) stages.push(fromReleases('kubernetes') ? released('kubernetes', version) : stage('kubernetes', version));
  for (const w of unique) {
    if (w.component === 'kubernetes') continue;
    if (w.component === 'pause') {
      // Its C source ships in the kubernetes module: any release's copy will do, the newest is used,
      // from the kubernetes stage's output, or (when Kubernetes is downloaded) from the module itself.
      const source = kubernetes[0];
      if (source === undefined) throw new Error(`the pause image is built from the C source in the kubernetes module: add a Kubernetes version to the bundle`);
      if (fromReleases('kubernetes')) stages.push({ ...stage('pause', w.version), go: true, env: { KCLUSTER_PAUSE_MODULE: `k8s.io/kubernetes@${source}` } });
      else stages.push(stage('pause', w.version, [`kubernetes@${source}`]));
      continue;
    }
    stages.push(fromReleases(w.component) ? released(w.component, w.version) : stage(w.component, w.version));
  }
  if (unique.some((w) => needsNetbase(w.component))) stages.push(stage('netbase-rootfs', TOOL_VERSION));
  if (options.testTools) stages.push(stage('test-tools', TOOL_VERSION));
  return stages;
}
