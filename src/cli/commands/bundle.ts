// `kcluster bundle build [-i INVENTORY | --kubernetes-version V ... [--every-component]] [--test-tools]
// [--from-releases]`: builds the offline bundle from source, through the Go module proxy and
// Debian's packages, with only what the inventory needs (or, for the given Kubernetes versions,
// what an inventory keeping every default needs, or every component); with --from-releases, what
// the official releases publish with checksums is downloaded instead (through the inventory's
// cluster.artifacts.mirrors, for a file server that mirrors them), the rest built as always.
// Prints the bundle's folder as the last line on stdout; progress goes to stderr (a live tree on
// a terminal).
import type { Command } from 'commander';
import { buildBundle, BundleBuildError } from '../../kubernetes/artifacts/build/build-bundle.js';
import { ARCHES, hostArch, isArch, type Arch } from '../../kubernetes/artifacts/arch.js';
import {
  defaultComponentsFor,
  everyComponentFor,
  FROM_RELEASES,
  inventoryComponents,
  type WantedComponent,
} from '../../kubernetes/artifacts/build/build-plan.js';
import { StageFailedError } from '../../kubernetes/artifacts/build/run-stage.js';
import { componentVersionsFor, KUBERNETES_RELEASES, UnknownReleaseError } from '../../kubernetes/artifacts/component-versions.js';
import { packageRoot } from '../../orchestrator/util/package-root.js';
import { plainBuildView, treeBuildView } from '../bundle-build-view.js';
import type { CliContext } from '../context.js';
import { ExitCode } from '../exit-codes.js';
import { loadInventoryOrReport } from '../load-inventory-or-report.js';

export function defaultBuildCacheDir(env: NodeJS.ProcessEnv): string {
  if (env['KCLUSTER_BUILD_CACHE']) return env['KCLUSTER_BUILD_CACHE'];
  return process.getuid?.() === 0 ? '/var/cache/kcluster/build' : `${env['HOME'] ?? '.'}/.kcluster/cache/build`;
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

interface BuildOptions {
  inventory?: string;
  kubernetesVersion: string[];
  allReleases?: boolean;
  upgradePair?: boolean;
  everyComponent?: boolean;
  testTools?: boolean;
  cacheDir?: string;
  fromReleases?: boolean;
  arch?: string;
}

async function wantedFrom(
  cli: CliContext,
  options: BuildOptions,
  /** --arch, checked. */
  askedArch: Arch | undefined,
): Promise<{ wanted: WantedComponent[]; mirrors: Readonly<Record<string, string>>; arch?: Arch } | undefined> {
  const choices = [options.inventory !== undefined, options.kubernetesVersion.length > 0, options.allReleases === true, options.upgradePair === true].filter(
    Boolean,
  ).length;
  if (choices > 1) {
    cli.stderr.write(
      'kcluster: bundle build takes one of -i INVENTORY, --kubernetes-version, --all-releases or --upgrade-pair: the inventory names its own version (cluster.kubernetesVersion)\n',
    );
    cli.setExitCode(ExitCode.InvalidInput);
    return undefined;
  }
  if (options.inventory !== undefined) {
    if (options.everyComponent) {
      cli.stderr.write('kcluster: bundle build -i builds what the inventory installs: --every-component goes with the version options instead\n');
      cli.setExitCode(ExitCode.InvalidInput);
      return undefined;
    }
    const inventory = await loadInventoryOrReport(cli, options.inventory);
    if (!inventory) return undefined;
    // The hosts' architecture (their arch, amd64 when unnamed): a bundle holds one.
    const arch = askedArch ?? hostArch(inventory.hosts[0]!);
    const others = inventory.hosts.filter((h) => hostArch(h) !== arch);
    if (others.length > 0) {
      cli.stderr.write(
        `kcluster: ${options.inventory}: ${others.map((h) => `${h.name} (${h.source})`).join(', ')} ${others.length === 1 ? 'is' : 'are'} ${hostArch(others[0]!)}, the bundle would be ${arch}: a bundle holds one architecture, so one cluster's hosts share one (give them the same arch, or build with --kubernetes-version and --arch)\n`,
      );
      cli.setExitCode(ExitCode.InvalidInput);
      return undefined;
    }
    return { wanted: inventoryComponents(inventory), mirrors: inventory.cluster.artifacts.mirrors, arch };
  }
  const versions = options.allReleases
    ? [...KUBERNETES_RELEASES]
    : options.upgradePair
      ? KUBERNETES_RELEASES.slice(0, 2)
      : options.kubernetesVersion.length > 0
        ? options.kubernetesVersion
        : [KUBERNETES_RELEASES[0]!];
  for (const version of versions) {
    try {
      componentVersionsFor(version);
    } catch (error) {
      if (!(error instanceof UnknownReleaseError)) throw error;
      cli.stderr.write(
        `kcluster: --kubernetes-version ${version}: ${error.message.replace('set cluster.kubernetesVersion to', 'use')} (known releases: ${KUBERNETES_RELEASES.join(', ')})\n`,
      );
      cli.setExitCode(ExitCode.InvalidInput);
      return undefined;
    }
  }
  return { wanted: options.everyComponent ? everyComponentFor(versions) : defaultComponentsFor(versions), mirrors: {} };
}

export function registerBundleCommand(program: Command, cli: CliContext): void {
  const bundle = program.command('bundle').description('the offline bundle: every binary and image a cluster needs, with its lock file');
  bundle
    .command('build')
    .description('build the bundle from source (Go module proxy, Debian packages), cached per component')
    .option('-i, --inventory <file>', 'build what this inventory needs (its version, runtime, CNI, HA)')
    .option(
      '--kubernetes-version <version>',
      `a Kubernetes release to include, repeatable (default ${KUBERNETES_RELEASES[0]}); what an inventory keeping every default needs, unless --every-component`,
      collect,
      [],
    )
    .option('--all-releases', `every Kubernetes release kcluster knows (${KUBERNETES_RELEASES.join(', ')}): what upgrades between them need`)
    .option(
      '--upgrade-pair',
      `the newest release and the one before it (${KUBERNETES_RELEASES.slice(0, 2).join(', ')}): what an upgrade to the newest minor needs`,
    )
    .option(
      '--every-component',
      'with the version options: every component kcluster can install (both container runtimes, Helm, local-path), not only what the defaults need',
    )
    .option('--test-tools', "add the busybox image kcluster's own end-to-end tests use")
    .option(
      '--from-releases',
      `download ${[...FROM_RELEASES].join(', ')} from their official releases (through -i's cluster.artifacts.mirrors), checked against the published checksums, instead of building them`,
    )
    .option('--arch <arch>', `the nodes' architecture, ${ARCHES.join(' or ')} (default: -i's hosts' arch, else this machine's); another one is cross-built`)
    .option('--cache-dir <dir>', 'build cache (default $KCLUSTER_BUILD_CACHE, /var/cache/kcluster/build as root, else ~/.kcluster/cache/build)')
    .action(async (options: BuildOptions) => {
      const arch = options.arch;
      if (arch !== undefined && !isArch(arch)) {
        cli.stderr.write(`kcluster: --arch must be ${ARCHES.join(' or ')} (got "${arch}")\n`);
        cli.setExitCode(ExitCode.InvalidInput);
        return;
      }
      const asked = await wantedFrom(cli, options, arch);
      if (!asked) return;
      const { wanted, mirrors } = asked;
      const archToBuild = asked.arch ?? arch;
      const tree = Boolean(cli.stderr.isTTY) && !cli.env['CI'];
      const view = tree ? treeBuildView(cli.stderr, cli.stderr) : plainBuildView(cli.stderr);
      try {
        const built = await buildBundle({
          wanted,
          testTools: options.testTools === true,
          cacheDir: options.cacheDir ?? defaultBuildCacheDir(cli.env),
          root: packageRoot(),
          signal: cli.signal,
          onEvent: (event) => view.emit(event),
          fromReleases: options.fromReleases ? { mirrors } : undefined,
          arch: archToBuild,
        });
        await view.close();
        cli.stdout.write(`${built.dir}\n`);
      } catch (error) {
        await view.close();
        if (cli.signal.aborted) {
          cli.stderr.write('kcluster: bundle build stopped; finished stages stay cached, the unfinished one was removed\n');
          cli.setExitCode(ExitCode.Interrupted);
          return;
        }
        if (error instanceof StageFailedError || error instanceof BundleBuildError) {
          cli.stderr.write(`kcluster: bundle build: ${error.message}\n`);
          cli.setExitCode(ExitCode.BuildFailed);
          return;
        }
        throw error;
      }
    });
}
