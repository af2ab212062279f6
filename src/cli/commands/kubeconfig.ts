// `kcluster kubeconfig -i FILE [--file PATH]`: the cluster admin's kubeconfig, from the PKI in the
// state folder, pointing at the API endpoint. Written with mode 0600 (it is a credential).
// Several control planes and no load balancer: no single address serves the API whichever
// control plane is down, so the kubeconfig holds a context per control plane, and its current
// context is the first control plane whose API port answers now (not simply the first in the
// inventory, which may be the one that is down); `kubectl --context` switches.
import { existsSync } from 'node:fs';
import { writeFile, rename } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import type { CliContext } from '../context.js';
import { ExitCode } from '../exit-codes.js';
import { loadInventoryOrReport } from '../load-inventory-or-report.js';
import { fileOption } from '../deprecated-path-option.js';
import { pkiSpecOf } from '../../kubernetes/cluster/pki-spec.js';
import { nodeAddress, topologyOf } from '../../kubernetes/cluster/topology.js';
import { firstAnswering, portAnswers } from '../../orchestrator/ssh/first-answering.js';
import type { HostSettings } from '../../orchestrator/inventory/model.js';
import { ensureClusterPki, renderKubeconfig } from '../../kubernetes/pki/cluster-pki.js';

export function registerKubeconfigCommand(program: Command, cli: CliContext): void {
  program
    .command('kubeconfig')
    .description("write the cluster admin's kubeconfig (mode 0600)")
    .requiredOption('-i, --inventory <file>', 'inventory file (YAML)')
    .option('--file <path>', 'where to write it (default: standard output)')
    .option('-o, --output <path>', 'deprecated: use --file')
    .action(async (options: { inventory: string; file?: string; output?: string }) => {
      const file = fileOption(cli, options.file, { flag: '-o', value: options.output });
      const inventory = await loadInventoryOrReport(cli, options.inventory);
      if (!inventory) return;
      if (!existsSync(join(inventory.stateDir, 'pki', 'ca.crt'))) {
        cli.stderr.write(`kcluster: ${options.inventory}: no cluster PKI in ${inventory.stateDir}: run kcluster apply -i ${options.inventory} first\n`);
        cli.setExitCode(ExitCode.InvalidInput);
        return;
      }
      const topology = topologyOf(inventory);
      // Read, never written: a command without the state lock makes no file (a missing leaf is made in memory).
      const pki = await ensureClusterPki(inventory.stateDir, pkiSpecOf(inventory, topology), { inMemory: true });
      const perControlPlane = topology.localProxy
        ? topology.controlPlanes.map((h) => ({ name: h.name, server: `https://${nodeAddress(h)}:${topology.apiPort}` }))
        : [];
      const apiAnswers = (host: HostSettings, timeoutMs: number) => portAnswers(nodeAddress(host), topology.apiPort, timeoutMs);
      const answering = perControlPlane.length > 0 ? await firstAnswering(topology.controlPlanes, 3_000, apiAnswers) : undefined;
      const server = answering !== undefined ? `https://${nodeAddress(answering)}:${topology.apiPort}` : topology.adminServerUrl;
      const text = renderKubeconfig({
        clusterName: inventory.cluster.name,
        server,
        caCert: pki.trust.ca,
        user: 'kubernetes-admin',
        cert: pki.admin.cert,
        key: pki.admin.key,
        alternatives: perControlPlane,
      });
      const contexts =
        perControlPlane.length > 0
          ? `; a context per control plane: ${perControlPlane.map((c) => `kubernetes-admin@${inventory.cluster.name}-${c.name}`).join(', ')} (kubectl --context NAME when ${answering?.name ?? 'the first'} is down)`
          : '';
      if (file === undefined) {
        cli.stdout.write(text);
        if (contexts) cli.stderr.write(`kcluster: server ${server}${contexts}\n`);
        return;
      }
      const path = resolve(cli.cwd, file);
      await writeFile(`${path}.tmp`, text, { mode: 0o600 });
      await rename(`${path}.tmp`, path);
      cli.stderr.write(`kcluster: wrote ${path} (server ${server}${contexts})\n`);
    });
}
