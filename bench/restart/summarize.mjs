// The figures of bench/restart/run.sh: per run and kcluster (before/after), a flag change of the
// API server and a certs renew, whole and their control-plane play; the median of each per kcluster.
// Usage: node bench/restart/summarize.mjs RUNS_TSV OUT_PREFIX REVISION [BEFORE_REVISION]
import { readFileSync, writeFileSync } from 'node:fs';

const [tsv, prefix, revision, beforeRevision] = process.argv.slice(2);
const [header, ...lines] = readFileSync(tsv, 'utf8').trim().split('\n');
const columns = header.split('\t');
const rows = lines.map((line) => line.split('\t'));
const median = (values) => {
  const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (sorted.length === 0) return '-';
  const mid = Math.floor(sorted.length / 2);
  return (sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2).toFixed(1);
};
const sides = [...new Set(rows.map((r) => r[1]))];
const medians = sides.map((side) => [
  'median',
  side,
  ...columns.slice(2).map((_, i) => median(rows.filter((r) => r[1] === side).map((r) => Number(r[i + 2])))),
]);
const table = (all) => [`| ${columns.join(' | ')} |`, `| ${columns.map(() => '---').join(' | ')} |`, ...all.map((r) => `| ${r.join(' | ')} |`)].join('\n');
const who = beforeRevision ? `after: kcluster ${revision}; before: kcluster ${beforeRevision}, run in turn on the same cluster` : `kcluster ${revision}`;
const md = `# Control-plane restarts on a running cluster (1 control plane + 1 worker), ${who}

${new Date().toISOString()}, \`bash bench/restart/run.sh ${rows.length / sides.length}\`${beforeRevision ? ' with KCLUSTER_BEFORE' : ''}, this machine's lab hosts (systemd-nspawn, every host sharing the controller's cores).
"flag change": \`kcluster apply\` after an API server flag changed (kube-apiserver restarts); "certs renew": \`kcluster certs renew --yes\` (every leaf reissued, the four static pods restarted). "control plane s": that run's control-plane play, from its events.

${table([...rows, ...medians])}
`;
writeFileSync(`${prefix}.md`, md);
writeFileSync(`${prefix}.tsv`, readFileSync(tsv, 'utf8'));
process.stdout.write(md);
