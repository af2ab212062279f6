// bench/fanout/run.sh's results: the TSV copied beside a Markdown table (one row per install).
//   node bench/fanout/summarize.mjs WORK/fanout.tsv bench/results/DATE-fanout-REV REV "SIZES" "MODES"
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';

const [tsv, out, revision, sizes, modes] = process.argv.slice(2);
if (!tsv || !out) {
  process.stderr.write('usage: node bench/fanout/summarize.mjs FANOUT.tsv OUT_PREFIX REVISION SIZES MODES\n');
  process.exit(2);
}
const [, ...rows] = readFileSync(tsv, 'utf8')
  .trim()
  .split('\n')
  .map((l) => l.split('\t'));
const mb = (bytes) => (Number(bytes) / 1e6).toFixed(1);
const table = [
  '| hosts | fanOut | exit | apply s | kcluster sent MB | bridge MB | relayed copies | controller copies | failed relays |',
  '| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ...rows.map(
    ([hosts, fanOut, exit, ms, sent, tx, relayed, controller, failed]) =>
      `| ${hosts} | ${fanOut} | ${exit} | ${(Number(ms) / 1000).toFixed(1)} | ${mb(sent)} | ${mb(tx)} | ${relayed} | ${controller} | ${failed} |`,
  ),
].join('\n');
copyFileSync(tsv, `${out}.tsv`);
writeFileSync(
  `${out}.md`,
  `# Artifact fan-out at ${revision}

${new Date().toISOString()}, \`bash bench/fanout/run.sh "${sizes}" "${modes}"\`, this machine's lab hosts (privileged systemd-nspawn containers sharing the controller's ${execFileSync('nproc', { encoding: 'utf8' }).trim()} cores), 1 control plane and the rest workers, from the bundle; **one install per row** (no repeats: read differences in seconds as indicative only).

"apply s": \`kcluster apply\` from empty hosts until it exits (addons Ready). "kcluster sent MB": what kcluster sent the hosts over SSH (run-end bytesSent, summed). "bridge MB": what the machine sent into the lab bridge (tx_bytes; relays between hosts are forwarded by the bridge, not sent by it). "relayed / controller copies / failed relays": the run's debug log lines for binaries and image archives that changed (kcluster-relay itself always comes from the controller and is not counted; with fan-out off nothing is logged). With 1 or 2 hosts fan-out does not apply.

${table}
`,
);
process.stdout.write(`${table}\n\nwrote ${out}.md and ${out}.tsv\n`);
