// The invariants read on the hosts and in the state folder: every certificate on every host
// chains to a current CA; no temporary file of kcluster's is left on a host or in the state
// folder.
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { inventoryHosts, type ClusterModel } from './cluster-model.js';
import { certificateChainProblems, parseCertificateSections } from './certificate-chains.js';
import { hostName, sshOnSoakHost, stateDir } from './soak-lab.js';
import { filesUnder } from './state-digest.js';

/** Every certificate file kcluster or the kubelet keeps on a host, as "==> PATH" sections. */
const READ_CERTIFICATES = `{ find /etc/kubernetes/pki -type f -name '*.crt'; find /var/lib/kubelet/pki /etc/kubernetes/etcd -maxdepth 1 -type f -name '*.crt'; [ ! -e /var/lib/kubelet/pki/kubelet-client-current.pem ] || echo /var/lib/kubelet/pki/kubelet-client-current.pem; } 2>/dev/null | sort | while IFS= read -r f; do echo "==> $f"; cat "$f"; done`;

/** kcluster's temporary files on a host: atomic writes (.kcluster-write.*), downloads, the last-good manifests' copies. */
const FIND_TEMP_FILES = `find /etc/kubernetes /var/lib/kubelet /etc/systemd/system /etc/containerd /usr/local/bin /opt/cni /var/lib/kcluster /var/tmp -xdev \\( -name '.kcluster-write.*' -o -name 'kcluster-download.*' -o -name '.*.tmp' \\) -print 2>/dev/null || true`;

const CURRENT_CA_FILES = ['ca.crt', 'front-proxy-ca.crt', join('etcd', 'ca.crt')];

export async function certificateProblems(model: ClusterModel): Promise<string[]> {
  const cas = CURRENT_CA_FILES.map((f) => readFileSync(join(stateDir, 'pki', f), 'utf8'));
  const problems: string[] = [];
  for (const host of inventoryHosts(model)) {
    const sections = parseCertificateSections(await sshOnSoakHost(hostName(host), READ_CERTIFICATES));
    if (sections.length === 0) problems.push(`${hostName(host)}: no certificate found`);
    problems.push(...certificateChainProblems(hostName(host), sections, cas));
  }
  return problems;
}

export async function hostTempFiles(model: ClusterModel): Promise<string[]> {
  const found: string[] = [];
  for (const host of inventoryHosts(model)) {
    const out = (await sshOnSoakHost(hostName(host), FIND_TEMP_FILES)).trim();
    if (out !== '') found.push(...out.split('\n').map((f) => `${hostName(host)}:${f}`));
  }
  return found;
}

/** Temporary files of kcluster's in the state folder (PID-named .tmp of atomic writes). */
export const stateTempFiles = (): string[] =>
  filesUnder(stateDir)
    .filter((f) => f.endsWith('.tmp'))
    .map((f) => relative(stateDir, f));
