// Whether the cluster publishes a CA rotation's trust bundles where pods read them: the
// controller-manager's kube-root-ca.crt in every namespace (from its --root-ca-file), and the
// API server's extension-apiserver-authentication (the front proxy's CA, read by aggregated
// API servers such as metrics-server). Pods restarted before that would read the old CA alone.
import { waitProgressReporter } from '../../orchestrator/engine/wait-progress.js';
import type { ApiClient } from '../kube/api-client.js';
import type { Rotated } from '../pki/ca-rotation.js';
import type { TrustBundles } from '../pki/cluster-pki.js';

interface ConfigMap {
  readonly metadata?: { readonly namespace?: string; readonly name?: string };
  readonly data?: Readonly<Record<string, string>>;
}

const pemBlocks = (text: string): string[] =>
  [...text.matchAll(/-----BEGIN CERTIFICATE-----([\s\S]*?)-----END CERTIFICATE-----/g)].map((m) => m[1]!.replace(/\s+/g, ''));

/** Whether `published` holds every certificate of `bundle`. */
export function holdsEvery(published: string | undefined, bundle: string): boolean {
  const have = new Set(pemBlocks(published ?? ''));
  return pemBlocks(bundle).every((b) => have.has(b));
}

/** What is not published yet, or undefined when everything is. */
export async function publishedTrustProblem(api: ApiClient, trust: TrustBundles, cas: readonly Rotated[]): Promise<string | undefined> {
  if (cas.includes('ca')) {
    const list = await api.get<{ items?: ConfigMap[] }>('/api/v1/configmaps?fieldSelector=metadata.name%3Dkube-root-ca.crt');
    const behind = (list.items ?? []).filter((c) => !holdsEvery(c.data?.['ca.crt'], trust.ca)).map((c) => c.metadata?.namespace ?? '?');
    if (behind.length > 0) return `kube-root-ca.crt lacks the new cluster CA in namespace ${behind.sort().join(', ')}`;
  }
  if (cas.includes('front-proxy-ca')) {
    const auth = await api.get<ConfigMap>('/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication');
    if (!holdsEvery(auth.data?.['requestheader-client-ca-file'], trust.frontProxyCa))
      return 'kube-system/extension-apiserver-authentication lacks the new front-proxy CA (requestheader-client-ca-file)';
  }
  return undefined;
}

/** Polls until everything is published; returns what is still missing after `timeoutMs`, telling `progress` every 20 s. */
export async function waitForPublishedTrust(
  api: ApiClient,
  trust: TrustBundles,
  cas: readonly Rotated[],
  timeoutMs: number,
  progress: (line: string) => void = () => {},
): Promise<string | undefined> {
  const startedAt = Date.now();
  const deadline = startedAt + timeoutMs;
  const tell = waitProgressReporter<string>(
    { describe: (problem) => `the new trust published (${problem ?? 'no answer yet'})`, report: progress },
    startedAt,
    timeoutMs,
  );
  for (;;) {
    const problem = await publishedTrustProblem(api, trust, cas).catch((error: Error) => `the API server does not answer: ${error.message}`);
    if (problem === undefined || Date.now() > deadline) return problem;
    tell(Date.now(), problem);
    await new Promise((r) => setTimeout(r, 2000));
  }
}
