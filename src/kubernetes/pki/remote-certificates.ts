// The certificates on one host, read by ONE remote command (as root): every *.crt under
// /etc/kubernetes/pki, etcd's own /etc/kubernetes/etcd/*.crt, /var/lib/kubelet/pki/*.crt, the client certificate the kubelet rotated
// (kubelet-client-current.pem, a link to the newest), and the client certificates of the
// kubeconfigs /etc/kubernetes/*.conf (client-certificate-data, or the file client-certificate
// names). Only CERTIFICATE blocks and certificate data leave the host, never a key. Parsed on
// the controller into the rows `kcluster certs check` prints.
import { ETCD_OWN_PKI_DIR } from './etcd-key-folder.js';
import { type CertificateProblem, type CertificateRow, describeCertificates } from './certificate-inventory.js';
import { execChecked, type Connection } from '../../orchestrator/ssh/connection.js';
import { sh, type ShellCommand } from '../../orchestrator/ssh/quote.js';

export interface CertificateDirs {
  /** Every *.crt under it, at any depth. */
  readonly pki: string;
  /** Every *.crt directly in it. */
  readonly kubeletPki: string;
  /** Every *.crt directly in it: etcd's own server and peer certificates. */
  readonly etcdPki: string;
  /** Every *.conf directly in it, as a kubeconfig. */
  readonly kubeconfigs: string;
}

export const HOST_CERTIFICATE_DIRS: CertificateDirs = {
  pki: '/etc/kubernetes/pki',
  kubeletPki: '/var/lib/kubelet/pki',
  etcdPki: ETCD_OWN_PKI_DIR,
  kubeconfigs: '/etc/kubernetes',
};
const READ_TIMEOUT_MS = 60_000;

/**
 * Prints sections: "==> file PATH", "==> kubeconfig PATH" (one base64 line per
 * client-certificate-data), "==> ref CONF<TAB>FILE" (a client-certificate file a kubeconfig
 * names), each followed by its content ("!! ..." when unreadable), and "==> end" last.
 */
export function remoteCertificatesScript(dirs: CertificateDirs = HOST_CERTIFICATE_DIRS): ShellCommand {
  return sh`pem() { sed -n '/-----BEGIN CERTIFICATE-----/,/-----END CERTIFICATE-----/p' "$1" 2>/dev/null || echo '!! cannot read'; }
{ find ${dirs.pki} -type f -name '*.crt' 2>/dev/null; find ${dirs.kubeletPki} ${dirs.etcdPki} -maxdepth 1 -type f -name '*.crt' 2>/dev/null; if [ -e ${dirs.kubeletPki}/kubelet-client-current.pem ]; then echo ${dirs.kubeletPki}/kubelet-client-current.pem; fi; } | sort | while IFS= read -r f; do printf '==> file %s\\n' "$f"; pem "$f"; done
for f in ${dirs.kubeconfigs}/*.conf; do
  [ -f "$f" ] || continue
  printf '==> kubeconfig %s\\n' "$f"
  grep -E '^[[:space:]]*client-certificate-data:' "$f" | sed 's/^[^:]*:[[:space:]]*//'
  grep -E '^[[:space:]]*client-certificate:' "$f" | sed -e 's/^[^:]*:[[:space:]]*//' -e 's/^"\\(.*\\)"$/\\1/' -e "s/^'\\(.*\\)'\\$/\\1/" | while IFS= read -r ref; do
    case $ref in /*) ;; *) ref="\${f%/*}/$ref" ;; esac
    printf '==> ref %s\\t%s\\n' "$f" "$ref"; pem "$ref"
  done
done
echo '==> end'`;
}

export interface HostCertificates {
  readonly rows: CertificateRow[];
  readonly problems: CertificateProblem[];
}

/** Pure: the script's output on `host` in, one row per certificate and one problem per unreadable file out. */
export function parseRemoteCertificates(host: string, stdout: string, now: number): HostCertificates {
  const rows: CertificateRow[] = [];
  const problems: CertificateProblem[] = [];
  const sections: { header: string; body: string[] }[] = [];
  let ended = false;
  for (const line of stdout.split('\n')) {
    if (line.startsWith('==> ')) {
      if (line === '==> end') {
        ended = true;
        break;
      }
      sections.push({ header: line.slice(4), body: [] });
    } else if (sections.length > 0) {
      sections.at(-1)!.body.push(line);
    } else if (line.trim() !== '') {
      throw new Error(`unexpected output before the first certificate: "${line.slice(0, 80)}"`);
    }
  }
  const add = (found: HostCertificates): void => {
    rows.push(...found.rows);
    problems.push(...found.problems);
  };
  for (const { header, body } of sections) {
    const space = header.indexOf(' ');
    const kind = header.slice(0, space);
    const rest = header.slice(space + 1);
    const text = body.join('\n');
    const unreadable = body.find((l) => l.startsWith('!! '));
    if (kind === 'file' || kind === 'ref') {
      const [conf = '', file = ''] = kind === 'ref' ? rest.split('\t') : ['', rest];
      const path = kind === 'ref' ? `${conf} -> ${file}` : file;
      if (unreadable)
        problems.push({ location: host, path, problem: kind === 'ref' ? `cannot read ${file} (client-certificate of ${conf})` : 'cannot read it' });
      else add(describeCertificates(host, path, text, now));
    } else if (kind === 'kubeconfig') {
      const data = body.map((l) => l.trim()).filter((l) => l !== '');
      data.forEach((b64, i) => {
        const path = data.length === 1 ? rest : `${rest}#${i + 1}`;
        if (!/^[A-Za-z0-9+/=]+$/.test(b64)) problems.push({ location: host, path, problem: 'client-certificate-data is not base64' });
        else add(describeCertificates(host, path, Buffer.from(b64, 'base64'), now));
      });
    } else {
      throw new Error(`unexpected section "${header.slice(0, 80)}" in the certificate listing`);
    }
  }
  if (!ended)
    problems.push({ location: host, path: '-', problem: 'the listing ended early (the remote command was cut short): some certificates may be missing' });
  return { rows, problems };
}

/** One round trip: every certificate on the host (as root, like the roles that install them). */
export async function readHostCertificates(connection: Connection, now: number, signal?: AbortSignal): Promise<HostCertificates> {
  const result = await execChecked(connection, remoteCertificatesScript(), {
    become: true,
    timeoutMs: READ_TIMEOUT_MS,
    label: 'certs check',
    ...(signal ? { signal } : {}),
  });
  return parseRemoteCertificates(connection.host, result.stdout, now);
}
