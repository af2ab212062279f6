// The figures of bench/install/run.sh: per run, apply's wall time, when every Node was Ready,
// and each play's duration (from the run's -o json events); the median of each; the median
// run's timeline (text and SVG) from `kcluster report timeline`.
// Usage: node bench/install/summarize.mjs WORK_DIR OUT_PREFIX TOPOLOGY HOSTS CONTROL_PLANES REVISION
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { playDurations } from '../play-durations.mjs';

const [work, prefix, topology, hosts, controlPlanes, revision] = process.argv.slice(2);
const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const s = (ms) => (ms < 0 ? 'never' : (ms / 1000).toFixed(1));

const runs = readFileSync(join(work, 'runs.tsv'), 'utf8')
  .trim()
  .split('\n')
  .map((line) => {
    const [run, rc, applyMs, readyMs] = line.split('\t').map(Number);
    return { run, rc, applyMs, readyMs, plays: playDurations(join(work, `run-${run}.ndjson`)) };
  });
const ok = runs.filter((r) => r.rc === 0 && r.readyMs >= 0);
const playNames = [...new Set(runs.flatMap((r) => r.plays.map(([name]) => name)))];
const rows = runs.map((r) => [r.run, r.rc, s(r.applyMs), s(r.readyMs), ...playNames.map((p) => s(r.plays.find(([n]) => n === p)?.[1] ?? -1))]);
const medianRow =
  ok.length === 0
    ? []
    : [
        'median',
        '',
        s(median(ok.map((r) => r.applyMs))),
        s(median(ok.map((r) => r.readyMs))),
        ...playNames.map((p) => s(median(ok.map((r) => r.plays.find(([n]) => n === p)?.[1] ?? 0)))),
      ];
const header = ['run', 'exit', 'apply s', 'all Ready s', ...playNames.map((p) => `${p} s`)];
const table = [header, header.map(() => '---'), ...rows, ...(medianRow.length ? [medianRow] : [])].map((r) => `| ${r.join(' | ')} |`).join('\n');

// The median run (by time to all Ready): its timeline and chart.
const byReady = [...ok].sort((a, b) => a.readyMs - b.readyMs);
const typical = byReady[Math.floor((byReady.length - 1) / 2)];
let timeline = '';
if (typical) {
  const events = join(work, `run-${typical.run}.ndjson`);
  timeline = execFileSync('node', ['bin/kcluster.js', 'report', 'timeline', events, '--svg', `${prefix}-median-run.svg`, '--min-task', '1'], {
    encoding: 'utf8',
  });
}
const text = [
  `# Fresh install on empty lab hosts, ${topology}: ${hosts} hosts, ${controlPlanes} control plane(s), kcluster ${revision}`,
  '',
  `${new Date().toISOString()}, \`bash bench/install/run.sh ${runs.length} ${topology}\`, this machine's lab hosts (systemd-nspawn, every host sharing the controller's cores).`,
  '"apply s": `kcluster apply` from empty hosts until it exits (it ends once kube-proxy, flannel and CoreDNS are Ready); "all Ready s": from apply\'s start until every Node is Ready.',
  '',
  table,
  '',
  ...(typical
    ? [
        `The median run (${typical.run}), \`kcluster report timeline\` ([chart](${prefix.split('/').pop()}-median-run.svg)):`,
        '',
        '```',
        timeline.trimEnd(),
        '```',
        '',
      ]
    : ['No run succeeded.', '']),
].join('\n');
writeFileSync(`${prefix}.md`, text);
writeFileSync(`${prefix}.tsv`, [header.join('\t'), ...rows.map((r) => r.join('\t'))].join('\n') + '\n');
console.log(table);
console.log(`\nwritten: ${prefix}.md, ${prefix}.tsv${typical ? `, ${prefix}-median-run.svg` : ''}`);
