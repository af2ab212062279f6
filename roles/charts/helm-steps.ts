// What the charts role does on the controller: Helm's own install/upgrade (`helm upgrade
// --install`, values reset to the chart's defaults plus the inventory's, the inputs label set,
// waiting until the chart's objects are ready) and uninstall, against the API server the
// controller reaches (topology.adminServerUrl) with the admin credentials in a kubeconfig of
// mode 0600 in a private folder of the state folder, removed after. Values only in files.
import type { ClusterInputs } from '../../src/kubernetes/cluster/cluster-inputs.js';
import { renderKubeconfig, certificateSubjectCn } from '../../src/kubernetes/pki/cluster-pki.js';
import { valuesArgs } from '../../src/kubernetes/charts/chart-values.js';
import { helmError, localHelm, type HelmRunner } from '../../src/kubernetes/charts/helm-runner.js';
import { INPUTS_LABEL } from '../../src/kubernetes/charts/prepared-chart.js';
import { withWorkFolder, type WorkFolder } from '../../src/kubernetes/charts/work-folder.js';
import type { ChartPayload } from './plan.js';

/** How long Helm waits for the objects of one release (helm's --timeout). */
export const HELM_TIMEOUT = '5m0s';

/** Runs Helm with a kubeconfig; tests give a fake one. */
export type HelmWithKubeconfig = (use: (helm: HelmRunner, kubeconfig: string, work: WorkFolder) => Promise<void>) => Promise<void>;

/** The bundle's helm, with the admin kubeconfig in a work folder of the state folder. */
export function adminHelm(inputs: ClusterInputs, signal?: AbortSignal): HelmWithKubeconfig {
  return async (use) => {
    const helm = inputs.charts?.helm ?? { missing: 'no helm was prepared for this run' };
    if ('missing' in helm) throw new Error(`cannot run helm: ${helm.missing}`);
    await withWorkFolder(inputs.inventory.stateDir, async (work) => {
      const kubeconfig = await work.secretFile(
        'kubeconfig',
        renderKubeconfig({
          clusterName: inputs.inventory.cluster.name,
          server: inputs.topology.adminServerUrl,
          caCert: inputs.pki.trust.ca,
          user: certificateSubjectCn(inputs.pki.admin.cert),
          cert: inputs.pki.admin.cert,
          key: inputs.pki.admin.key,
        }),
      );
      await use(localHelm(helm.path, work.dir, signal), kubeconfig, work);
    });
  };
}

async function checked(helm: HelmRunner, args: readonly string[], what: string): Promise<string> {
  const result = await helm(args);
  if (result.code !== 0) throw new Error(`${what}: ${helmError(result)}`);
  return result.stdout;
}

/** Carries out a planned change of the charts role; returns one line per release for the log. */
export async function carryOut(payload: ChartPayload, withHelm: HelmWithKubeconfig): Promise<string[]> {
  const done: string[] = [];
  await withHelm(async (helm, kubeconfig, work) => {
    if (payload.install !== undefined) {
      const { settings, inputs } = payload.install;
      const { release, namespace, chart } = settings;
      await checked(
        helm,
        [
          'upgrade',
          release,
          chart,
          '--install',
          '--namespace',
          namespace,
          '--create-namespace',
          '--kubeconfig',
          kubeconfig,
          '--reset-values',
          ...(await valuesArgs(settings, work, 'chart')),
          '--labels',
          `${INPUTS_LABEL}=${inputs}`,
          '--wait=watcher',
          '--timeout',
          HELM_TIMEOUT,
        ],
        `helm upgrade --install ${namespace}/${release}`,
      );
      done.push(`${namespace}/${release}: installed or upgraded`);
    }
    for (const { namespace, release } of payload.uninstall ?? []) {
      await checked(
        helm,
        ['uninstall', release, '--namespace', namespace, '--kubeconfig', kubeconfig, '--wait=watcher', '--timeout', HELM_TIMEOUT],
        `helm uninstall ${namespace}/${release}`,
      );
      done.push(`${namespace}/${release}: uninstalled`);
    }
  });
  return done;
}
