// The figures of bench/size/run.sh: per size (1 control plane + N workers), the install (apply's
// wall time, all Nodes Ready, controller CPU and peak RSS, bytes sent), the converged reruns
// (min / median / max, changes, round trips per host), memory per lab host, each play's
// duration, each size's phases (`kcluster report timeline`), and the issue's targets checked.
// Usage: node bench/size/summarize.mjs WORK_DIR OUT_PREFIX REVISION "SIZES" RERUNS
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { playDurations } from '../play-durations.mjs';

const [work, prefix, revision, sizesArg, reruns] = process.argv.slice(2);
const tsvRows = (file) =>
  existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .filter((l) => l.trim())
        .map((l) => l.split('\t'))
    : [];
const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const s1 = (ms) => (ms / 1000).toFixed(1);
const s2 = (ms) => (ms / 1000).toFixed(2);
const mb = (bytes) => (bytes / 1e6).toFixed(1);

/** The run-end event's per-host summary (changed, roundTrips, bytesSent) of an apply's events. */
function runEnd(name) {
  const file = join(work, `${name}.ndjson`);
  const line = readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('{"type":"run-end"'))
    .pop();
  if (!line) throw new Error(`${file}: no run-end event (did apply crash? see ${name}.stderr)`);
  return JSON.parse(line).summary;
}
const applies = new Map(
  tsvRows(join(work, 'applies.tsv')).map(([name, rc, wallMs, user, sys, rssKb, bridgeBytes, hostsUs, busyMs, allMs]) => {
    const cpuS = Number(user) + Number(sys);
    // The machine's CPU during the apply, when measured: the lab hosts', and the rest (other
    // processes on this shared machine, and kernel work such as the bridge's, charged to no host).
    const machine =
      hostsUs === undefined
        ? undefined
        : { hostsS: Number(hostsUs) / 1e6, busyPct: (100 * Number(busyMs)) / Number(allMs), othersS: Number(busyMs) / 1000 - Number(hostsUs) / 1e6 - cpuS };
    return [name, { name, rc: Number(rc), wallMs: Number(wallMs), cpuS, rssMb: Number(rssKb) / 1024, bridgeBytes: Number(bridgeBytes), machine }];
  }),
);
/** The hosts of the install's "control plane" play (its play-start event). */
function controlPlanes(name) {
  const line = readFileSync(join(work, `${name}.ndjson`), 'utf8')
    .split('\n')
    .find((l) => l.startsWith('{"type":"play-start"') && JSON.parse(l).play === 'control plane');
  return new Set(line ? JSON.parse(line).hosts : []);
}
/** Round trips per host of a run: the control plane's, the workers' (one figure or a range). */
const roundTrips = (summary, cps) => {
  const range = (v) => (v.length === 0 ? '-' : Math.min(...v) === Math.max(...v) ? `${v[0]}` : `${Math.min(...v)}-${Math.max(...v)}`);
  const cp = range(summary.hosts.filter((h) => cps.has(h.host)).map((h) => h.roundTrips));
  const workers = range(summary.hosts.filter((h) => !cps.has(h.host)).map((h) => h.roundTrips));
  return { cp, workers, text: `${cp} / ${workers}` };
};

const sizes = tsvRows(join(work, 'sizes.tsv')).map(([hosts, labUpMs, readyMs, before, afterUp, afterInstall]) => {
  const n = Number(hosts);
  const cps = controlPlanes(`install-${n}`);
  const install = applies.get(`install-${n}`);
  const installSummary = runEnd(`install-${n}`);
  const reruns = [...applies.values()].filter((a) => a.name.startsWith(`rerun-${n}-`) && a.rc === 0);
  const rerunSummaries = reruns.map((r) => runEnd(r.name));
  const medianRerun = [...reruns].sort((a, b) => a.wallMs - b.wallMs)[Math.floor((reruns.length - 1) / 2)];
  return {
    n,
    labUpMs: Number(labUpMs),
    readyMs: Number(readyMs),
    install,
    installSent: installSummary.hosts.reduce((sum, h) => sum + h.bytesSent, 0),
    installRoundTrips: roundTrips(installSummary, cps),
    reruns,
    medianRerun,
    rerunChanged: Math.max(...rerunSummaries.map((x) => x.hosts.reduce((sum, h) => sum + h.changed, 0))),
    rerunRoundTrips: roundTrips(runEnd(medianRerun.name), cps),
    memUpMb: (Number(before) - Number(afterUp)) / 1024 / n,
    memInstalledMb: (Number(before) - Number(afterInstall)) / 1024 / n,
    plays: playDurations(join(work, `install-${n}.ndjson`)),
  };
});
const stopped = existsSync(join(work, 'stopped')) ? readFileSync(join(work, 'stopped'), 'utf8').trim() : '';

const machineCells = (apply) =>
  apply.machine ? [apply.machine.hostsS.toFixed(1), apply.machine.busyPct.toFixed(0), apply.machine.othersS.toFixed(1)] : ['-', '-', '-'];
const machineHeader = ['lab hosts CPU s', 'machine busy %', 'others CPU s'];
const table = (header, rows) => [header, header.map(() => '---'), ...rows].map((r) => `| ${r.join(' | ')} |`).join('\n');
const installTable = table(
  [
    'nodes',
    'lab up s',
    'apply s',
    'all Ready s',
    'controller CPU s',
    ...machineHeader,
    'peak RSS MB',
    'bridge MB',
    'kcluster sent MB',
    'round trips / host (cp / workers)',
    'MB / host (lab up)',
    'MB / host (installed)',
  ],
  sizes.map((x) => [
    x.n,
    s1(x.labUpMs),
    s1(x.install.wallMs),
    s1(x.readyMs),
    x.install.cpuS.toFixed(1),
    ...machineCells(x.install),
    x.install.rssMb.toFixed(0),
    mb(x.install.bridgeBytes),
    mb(x.installSent),
    x.installRoundTrips.text,
    x.memUpMb.toFixed(0),
    x.memInstalledMb.toFixed(0),
  ]),
);
const rerunTable = table(
  [
    'nodes',
    'rerun min / median / max s',
    'changed (max)',
    'round trips / host (cp / workers)',
    'controller CPU s',
    ...machineHeader,
    'peak RSS MB',
    'bridge KB',
  ],
  sizes.map((x) => {
    const walls = x.reruns.map((r) => r.wallMs);
    return [
      x.n,
      `${s2(Math.min(...walls))} / ${s2(median(walls))} / ${s2(Math.max(...walls))}`,
      x.rerunChanged,
      x.rerunRoundTrips.text,
      x.medianRerun.cpuS.toFixed(2),
      ...machineCells(x.medianRerun),
      x.medianRerun.rssMb.toFixed(0),
      (x.medianRerun.bridgeBytes / 1e3).toFixed(0),
    ];
  }),
);
const playNames = [...new Set(sizes.flatMap((x) => x.plays.map(([p]) => p)))];
const playTable = table(
  ['play', ...sizes.map((x) => `${x.n} nodes s`)],
  playNames.map((p) => [p, ...sizes.map((x) => s1(x.plays.find(([name]) => name === p)?.[1] ?? NaN))]),
);

// Growth: seconds added per added node between consecutive sizes.
const growth = sizes.slice(1).map((x, i) => {
  const prev = sizes[i];
  const per = (a, b) => (a - b) / (x.n - prev.n);
  return [
    `${prev.n} → ${x.n}`,
    s2(per(x.readyMs, prev.readyMs)),
    s2(per(median(x.reruns.map((r) => r.wallMs)), median(prev.reruns.map((r) => r.wallMs)))),
    per(x.install.cpuS * 1000, prev.install.cpuS * 1000).toFixed(0) / 1000,
  ];
});
const growthTable = table(['nodes', 'all Ready s per added node', 'rerun median s per added node', 'install CPU s per added node'], growth);

const at = (n) => sizes.find((x) => x.n === n);
const targets = [];
const ten = at(10),
  three = at(3);
if (ten) {
  targets.push(`- 10-node fresh install (all Nodes and addons Ready) in 120 s or less: ${s1(ten.readyMs)} s, ${ten.readyMs <= 120000 ? 'met' : 'missed'}.`);
  const rerun = median(ten.reruns.map((r) => r.wallMs));
  targets.push(
    `- 10-node converged rerun in 4 s or less: median ${s2(rerun)} s (${ten.rerunChanged} changed), ${rerun <= 4000 && ten.rerunChanged === 0 ? 'met' : 'missed'}.`,
  );
  if (three)
    targets.push(
      `- the same round trips per host as at 3 nodes: ${ten.rerunRoundTrips.text} at 10, ${three.rerunRoundTrips.text} at 3 (control plane / workers), ${ten.rerunRoundTrips.text === three.rerunRoundTrips.text ? 'met' : 'missed'}.`,
    );
} else targets.push('- 10 nodes were not installed: the 10-node targets are not measured.');
for (const x of sizes.filter((x) => x.rerunChanged > 0))
  targets.push(
    `- **not converged at ${x.n} nodes**: a rerun changed ${x.rerunChanged} task(s) (0 expected); its rerun times are not those of a converged cluster.`,
  );
if (growth.length >= 2) {
  const slopes = growth.map((g) => Number(g[1]));
  const linear = slopes.every((v, i) => i === 0 || v <= slopes[i - 1] * 1.1);
  targets.push(
    `- growth linear or better: seconds per added node ${slopes.join(', then ')} (all Ready), ${linear ? 'met (the added cost per node does not rise by more than 10 %)' : 'missed (each added node costs more than the one before)'}.`,
  );
}

const phases = sizes.map((x) => {
  const text = execFileSync('node', ['bin/kcluster.js', 'report', 'timeline', join(work, `install-${x.n}.ndjson`)], { encoding: 'utf8' });
  const start = text.indexOf('phases');
  const end = text.indexOf('per host, role and task');
  return `${x.n} nodes:\n\n\`\`\`\n${text.slice(0, text.indexOf('\n')).trim()}\n${text.slice(start, end).trimEnd()}\n\`\`\``;
});
const largest = sizes[sizes.length - 1];
if (largest)
  execFileSync('node', [
    'bin/kcluster.js',
    'report',
    'timeline',
    join(work, `install-${largest.n}.ndjson`),
    '--svg',
    `${prefix}-timeline.svg`,
    '--min-task',
    '1',
  ]);

const tsvHeader = [
  '# nodes',
  'all Ready s',
  'rerun median s',
  'apply s',
  'install CPU s',
  'install peak RSS MB',
  'install bridge MB',
  'rerun round trips cp',
  'MB per host installed',
];
const tsv = [
  tsvHeader.join('\t'),
  ...sizes.map((x) =>
    [
      x.n,
      s1(x.readyMs),
      s2(median(x.reruns.map((r) => r.wallMs))),
      s1(x.install.wallMs),
      x.install.cpuS.toFixed(1),
      x.install.rssMb.toFixed(0),
      mb(x.install.bridgeBytes),
      x.rerunRoundTrips.cp,
      x.memInstalledMb.toFixed(0),
    ].join('\t'),
  ),
].join('\n');
writeFileSync(`${prefix}.tsv`, tsv + '\n');
if (sizes.length >= 2) writeFileSync(`${prefix}.svg`, execFileSync('node', ['bench/plot.mjs', 'size', `${prefix}.tsv`], { encoding: 'utf8' }));

const name = basename(prefix);
const md = `# Cluster size: 1 control plane + ${sizesArg.trim().split(/\s+/).join(', ')} workers, kcluster ${revision}

${new Date().toISOString()}, \`bash bench/size/run.sh "${sizesArg}" ${reruns}\`, this machine's lab hosts (privileged systemd-nspawn containers, every host sharing the controller's ${execFileSync('nproc', { encoding: 'utf8' }).trim()} cores), from the bundle.
${stopped ? `\n**Stopped: ${stopped}.**\n` : `\nEvery size was installed.\n`}
Install: "apply s" is \`kcluster apply\` from empty hosts until it exits (once the addons are Ready); "all Ready s" from its start until every Node is Ready. "controller CPU s" is user + sys of the kcluster process and "peak RSS MB" its maximum RSS (GNU time); "bridge MB" what the machine sent into the lab bridge during the run (its tx_bytes: everything the controller sent the hosts, SSH framing included), "kcluster sent MB" what kcluster counted itself (run-end bytesSent, summed over hosts). Memory per host: MemAvailable before lab up minus after lab up (idle host) and after the install (a node of the cluster), divided by the hosts. Round trips per host: the run-end event's roundTrips (control plane / workers). "lab hosts CPU s": the hosts' cgroups during the apply; "machine busy %": the whole machine (/proc/stat); "others CPU s": the machine's busy time minus the hosts' and the controller's (other processes on this shared machine, and kernel work charged to no host, such as the bridge's); "-" where not measured.

${installTable}

Converged reruns (${reruns} per size; "changed" must be 0; CPU, RSS and bytes of the median run):

${rerunTable}

${sizes.length >= 2 ? `Growth:\n\n${growthTable}\n\n![install and rerun time against nodes](${name}.svg)\n` : ''}
## Targets (issue 32)

${targets.join('\n')}

## Each play of the install

${playTable}

## Phases of each install (\`kcluster report timeline\`; the largest: [chart](${name}-timeline.svg))

${phases.join('\n\n')}
`;
writeFileSync(`${prefix}.md`, md);
console.log([installTable, rerunTable, ...(sizes.length >= 2 ? [growthTable] : []), targets.join('\n')].join('\n\n'));
if (stopped) console.log(`\nstopped: ${stopped}`);
console.log(`\nwritten: ${prefix}.md, ${prefix}.tsv${sizes.length >= 2 ? `, ${prefix}.svg` : ''}${sizes.length ? `, ${prefix}-timeline.svg` : ''}`);
