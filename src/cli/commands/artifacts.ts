// `kcluster artifacts verify --bundle PATH`: check every piece of a bundle against its lock.
// `kcluster artifacts list -i FILE [--fetch]`: what this inventory needs, on which hosts, and
// where each piece comes from (with --fetch: downloaded and verified into the cache now).
import { Option, type Command } from 'commander';
import type { CliContext } from '../context.js';
import { ExitCode } from '../exit-codes.js';
import { loadInventoryOrReport } from '../load-inventory-or-report.js';
import { ArtifactError, type PreparedArtifact, type RequiredArtifact } from '../../kubernetes/artifacts/artifact.js';
import { openBundle, verifyBundle } from '../../kubernetes/artifacts/bundle-source.js';
import { prepareArtifacts } from '../../kubernetes/artifacts/prepare-artifacts.js';
import { releaseLocation } from '../../kubernetes/artifacts/release-catalog.js';
import { requiredArtifacts } from '../../kubernetes/artifacts/required-artifacts.js';
import { VerifiedFiles } from '../../kubernetes/artifacts/verified-files.js';
import { defaultArtifactCacheDir } from '../../kubernetes/artifacts/cache-dir.js';
import { apiproxySourceDir } from '../../kubernetes/artifacts/apiproxy-build.js';
import { upstreamImageReference } from '../../kubernetes/artifacts/component-versions.js';
import type { Inventory } from '../../orchestrator/inventory/model.js';
import { textTable } from '../../orchestrator/util/text-table.js';

const table = (rows: readonly (readonly string[])[]): string => `${textTable(rows)}\n`;

function hostsOf(a: RequiredArtifact, inventory: Inventory): string {
  return a.hosts.length === inventory.hosts.length ? 'all' : a.hosts.join(',');
}

function plannedSource(a: RequiredArtifact, inventory: Inventory): string {
  const { artifacts } = inventory.cluster;
  if (artifacts.kind === 'bundle') return `bundle ${artifacts.bundle ?? '?'}`;
  if (a.type === 'image') return `pulled: ${upstreamImageReference(a.name, a.version, artifacts.imageRepository)}`;
  if (a.component === 'kcluster-apiproxy') return `built on this controller from ${apiproxySourceDir()} (Go)`;
  const location = releaseLocation(a, artifacts.mirrors);
  return location ? `${location.url}${location.member ? ` [${location.member}]` : ''}` : 'no release location (bundle only)';
}

function preparedSource(a: PreparedArtifact): string {
  const o = a.origin;
  if (o.kind === 'bundle') return `bundle:${o.path} sha256:${a.sha256 ?? '?'}`;
  if (o.kind === 'registry') return `pulled: ${o.reference}`;
  if (o.kind === 'built') return `built from ${o.source} sha256:${a.sha256 ?? '?'}`;
  return `${o.url}${o.member ? ` [${o.member}]` : ''} sha256:${a.sha256 ?? '?'}`;
}

export function registerArtifactsCommand(program: Command, cli: CliContext): void {
  const artifacts = program.command('artifacts').description('the binaries and images kcluster installs: list, fetch, verify');

  artifacts
    .command('list')
    .description('what an inventory needs, on which hosts, and where each piece comes from')
    .requiredOption('-i, --inventory <file>', 'inventory file (YAML)')
    .option('--fetch', 'download (or read from the bundle) and verify every piece now, into the controller cache')
    .addOption(new Option('-o, --output <format>', 'text or json').choices(['text', 'json']).default('text'))
    .action(async (options: { inventory: string; fetch?: boolean; output: string }) => {
      const inventory = await loadInventoryOrReport(cli, options.inventory);
      if (!inventory) return;
      try {
        const list: readonly (RequiredArtifact | PreparedArtifact)[] = options.fetch
          ? await prepareArtifacts(inventory, { signal: cli.signal, log: (line) => cli.stderr.write(`${line}\n`) })
          : requiredArtifacts(inventory);
        if (options.output === 'json') {
          cli.stdout.write(`${JSON.stringify(list, null, 2)}\n`);
          return;
        }
        const rows = [['COMPONENT', 'NAME', 'VERSION', 'TYPE', 'ARCH', 'HOSTS', 'SOURCE']];
        for (const a of list) {
          rows.push([a.component, a.name, a.version, a.type, a.arch, hostsOf(a, inventory), 'origin' in a ? preparedSource(a) : plannedSource(a, inventory)]);
        }
        cli.stdout.write(table(rows));
      } catch (error) {
        if (!(error instanceof ArtifactError)) throw error;
        cli.stderr.write(`kcluster: ${options.inventory}: ${error.message}\n`);
        cli.setExitCode(ExitCode.InvalidInput);
      }
    });

  artifacts
    .command('verify')
    .description('check every binary and image of a bundle against its lock file (sizes and sha256)')
    .requiredOption('--bundle <path>', 'bundle directory or tarball')
    .action(async (options: { bundle: string }) => {
      const cacheDir = defaultArtifactCacheDir(cli.env);
      try {
        const started = Date.now();
        const bundle = await openBundle(options.bundle, cacheDir);
        const problems = await verifyBundle(bundle, new VerifiedFiles(cacheDir));
        const count = bundle.lock.artifacts.length;
        if (problems.length === 0) {
          const bytes = bundle.lock.artifacts.reduce((sum, a) => sum + a.size, 0);
          cli.stdout.write(
            `${options.bundle}: ${count} artifacts verified (${(bytes / 1e6).toFixed(0)} MB, arch ${bundle.lock.arch}) in ${((Date.now() - started) / 1000).toFixed(1)} s\n`,
          );
          const versions = new Map<string, Set<string>>();
          for (const a of bundle.lock.artifacts) versions.set(a.component, (versions.get(a.component) ?? new Set()).add(a.version));
          for (const [component, set] of [...versions].sort()) cli.stdout.write(`  ${component}: ${[...set].join(', ')}\n`);
          return;
        }
        for (const p of problems) cli.stderr.write(`kcluster: ${options.bundle}: ${p.problem}\n`);
        cli.stderr.write(`kcluster: ${options.bundle}: ${problems.length} of ${count} artifacts failed verification: rebuild or re-copy the bundle\n`);
        cli.setExitCode(ExitCode.HostsFailed);
      } catch (error) {
        if (!(error instanceof ArtifactError)) throw error;
        cli.stderr.write(`kcluster: ${error.message}\n`);
        cli.setExitCode(ExitCode.InvalidInput);
      }
    });
}
