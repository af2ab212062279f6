// Draws the benchmark figures as SVG images, with no dependency (the scripts' TSV in, SVG out).
//   node bench/plot.mjs scale   bench/results/scale.tsv   > bench/results/scale.svg
//     (columns: hosts, kcluster no-op median s, floor median s, peak RSS MB): wall time against
//     hosts, kcluster and the ssh2 floor, with the peak RSS written at each point;
//   node bench/plot.mjs generic bench/results/generic-20.tsv > bench/results/generic-20.svg
//     (columns: tool, no-op median s): one bar per tool on a logarithmic axis;
//   node bench/plot.mjs size    bench/results/DATE-size-REV.tsv > bench/results/DATE-size-REV.svg
//     (columns: nodes, install s, converged rerun s, ...): both against nodes, the install on the
//     left axis, the rerun on the right one, with the install's straight line through the first
//     two sizes drawn dashed (points above it grow faster than linearly);
//   node bench/plot.mjs fanout  bench/results/DATE-fanout-REV.tsv > bench/results/DATE-fanout-REV.svg
//     (columns: hosts, fanOut true|false, exit, apply ms, kcluster sent bytes, ...): the
//     controller's bytes against hosts with and without fan-out, each point labelled with its
//     install time.
import { readFileSync } from 'node:fs';

const [mode, file] = process.argv.slice(2);
if (!['scale', 'generic', 'size', 'fanout'].includes(mode ?? '') || !file) {
  process.stderr.write('usage: node bench/plot.mjs scale|generic|size|fanout FILE.tsv > FILE.svg\n');
  process.exit(2);
}
const rows = readFileSync(file, 'utf8')
  .trim()
  .split('\n')
  .filter((l) => l && !l.startsWith('#') && !l.startsWith('hosts\t'))
  .map((l) => l.split('\t'));
if (rows.length === 0) {
  process.stderr.write(`${file}: no rows to plot\n`);
  process.exit(2);
}

const W = 640,
  H = 400,
  L = 70,
  R = 30,
  T = 40,
  B = 60;
const esc = (s) => String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;');
const text = (x, y, s, extra = '') =>
  `<text x="${x.toFixed(1)}" y="${y.toFixed(1)}" font-family="sans-serif"${extra.includes('font-size') ? '' : ' font-size="12"'} ${extra}>${esc(s)}</text>`;
const svg = (title, body) =>
  `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}">\n<rect width="100%" height="100%" fill="white"/>\n` +
  `${text(W / 2, 22, title, 'text-anchor="middle" font-size="14" font-weight="bold"')}\n${body.join('\n')}\n</svg>\n`;
const niceMax = (v) => {
  const p = 10 ** Math.floor(Math.log10(v));
  return [1, 2, 2.5, 5, 10].map((m) => m * p).find((m) => m >= v);
};

/** Both axes and five horizontal grid lines, labelled on the left with `digits` decimals (plots with one vertical axis). */
function axesWithGrid(y, yMax, digits) {
  const body = [
    `<line x1="${L}" y1="${H - B}" x2="${W - R}" y2="${H - B}" stroke="black"/>`,
    `<line x1="${L}" y1="${T}" x2="${L}" y2="${H - B}" stroke="black"/>`,
  ];
  for (let i = 0; i <= 5; i++) {
    const v = (yMax * i) / 5;
    body.push(`<line x1="${L}" y1="${y(v)}" x2="${W - R}" y2="${y(v)}" stroke="#ddd"/>`, text(L - 8, y(v) + 4, v.toFixed(digits), 'text-anchor="end"'));
  }
  return body;
}

function scalePlot() {
  const pts = rows.map(([h, kc, floor, rss]) => ({ hosts: Number(h), kc: Number(kc), floor: Number(floor), rss: Number(rss) }));
  const xMax = Math.max(...pts.map((p) => p.hosts)),
    yMax = niceMax(Math.max(...pts.map((p) => Math.max(p.kc, p.floor))));
  const x = (v) => L + (v / xMax) * (W - L - R),
    y = (v) => H - B - (v / yMax) * (H - T - B);
  const body = axesWithGrid(y, yMax, 1);
  for (const p of pts) body.push(text(x(p.hosts), H - B + 18, p.hosts, 'text-anchor="middle"'));
  body.push(
    text(W / 2, H - 18, 'hosts', 'text-anchor="middle"'),
    text(18, H / 2, 'no-op wall time, median (s)', `transform="rotate(-90 18 ${H / 2})" text-anchor="middle"`),
  );
  for (const [key, color] of [
    ['kc', '#1f77b4', 'kcluster no-op run'],
    ['floor', '#999', 'ssh2 floor (connect + true)'],
  ]) {
    body.push(
      `<polyline fill="none" stroke="${color}" stroke-width="2" points="${pts.map((p) => `${x(p.hosts).toFixed(1)},${y(p[key]).toFixed(1)}`).join(' ')}"/>`,
    );
    for (const p of pts) body.push(`<circle cx="${x(p.hosts).toFixed(1)}" cy="${y(p[key]).toFixed(1)}" r="3" fill="${color}"/>`);
  }
  for (const p of pts)
    body.push(
      text(
        x(p.hosts),
        y(p.kc) - 10,
        `${p.kc.toFixed(2)} s, ${p.rss.toFixed(0)} MB`,
        `text-anchor="${x(p.hosts) < L + 50 ? 'start' : 'middle'}" font-size="10"`,
      ),
    );
  body.push(
    `<rect x="${L + 10}" y="${T + 2}" width="12" height="3" fill="#1f77b4"/>`,
    text(L + 28, T + 8, 'kcluster no-op run (label: median, controller peak RSS)'),
  );
  body.push(`<rect x="${L + 10}" y="${T + 18}" width="12" height="3" fill="#999"/>`, text(L + 28, T + 24, 'ssh2 floor: connect to every host, run true'));
  return svg('kcluster at scale: no-op run against the physical floor', body);
}

function genericPlot() {
  const bars = rows.map(([tool, s]) => ({ tool, s: Number(s) }));
  const lo = 10 ** Math.floor(Math.log10(Math.min(...bars.map((b) => b.s)))),
    hi = 10 ** Math.ceil(Math.log10(Math.max(...bars.map((b) => b.s))));
  const y = (v) => H - B - ((Math.log10(v) - Math.log10(lo)) / (Math.log10(hi) - Math.log10(lo))) * (H - T - B);
  const slot = (W - L - R) / bars.length;
  const body = [
    `<line x1="${L}" y1="${H - B}" x2="${W - R}" y2="${H - B}" stroke="black"/>`,
    `<line x1="${L}" y1="${T}" x2="${L}" y2="${H - B}" stroke="black"/>`,
  ];
  for (let v = lo; v <= hi; v *= 10)
    body.push(
      `<line x1="${L}" y1="${y(v)}" x2="${W - R}" y2="${y(v)}" stroke="#ddd"/>`,
      text(L - 8, y(v) + 4, v >= 1 ? v.toFixed(0) : v.toString(), 'text-anchor="end"'),
    );
  bars.forEach((b, i) => {
    const x0 = L + i * slot + slot * 0.2,
      w = slot * 0.6;
    body.push(
      `<rect x="${x0.toFixed(1)}" y="${y(b.s).toFixed(1)}" width="${w.toFixed(1)}" height="${(H - B - y(b.s)).toFixed(1)}" fill="${i === 0 ? '#1f77b4' : '#aaa'}"/>`,
    );
    body.push(text(x0 + w / 2, y(b.s) - 6, `${b.s.toFixed(2)} s`, 'text-anchor="middle"'), text(x0 + w / 2, H - B + 18, b.tool, 'text-anchor="middle"'));
  });
  body.push(text(18, H / 2, 'no-op wall time, median (s, log scale)', `transform="rotate(-90 18 ${H / 2})" text-anchor="middle"`));
  return svg(`Generic converge workload, no-op rerun (${file.replace(/.*generic-(\d+).*/, '$1')} hosts)`, body);
}

function sizePlot() {
  const pts = rows.map(([n, install, rerun]) => ({ n: Number(n), install: Number(install), rerun: Number(rerun) }));
  const xMax = niceMax(Math.max(...pts.map((p) => p.n))),
    yMax = niceMax(1.1 * Math.max(...pts.map((p) => p.install))),
    rMax = niceMax(1.1 * Math.max(...pts.map((p) => p.rerun)));
  const x = (v) => L + (v / xMax) * (W - L - R - 30),
    y = (v) => H - B - (v / yMax) * (H - T - B),
    yr = (v) => H - B - (v / rMax) * (H - T - B);
  const right = W - R - 30;
  const body = [
    `<line x1="${L}" y1="${H - B}" x2="${right}" y2="${H - B}" stroke="black"/>`,
    `<line x1="${L}" y1="${T}" x2="${L}" y2="${H - B}" stroke="black"/>`,
    `<line x1="${right}" y1="${T}" x2="${right}" y2="${H - B}" stroke="#d62728"/>`,
  ];
  for (let i = 0; i <= 5; i++) {
    const v = (yMax * i) / 5,
      r = (rMax * i) / 5;
    body.push(
      `<line x1="${L}" y1="${y(v)}" x2="${right}" y2="${y(v)}" stroke="#ddd"/>`,
      text(L - 8, y(v) + 4, v.toFixed(0), 'text-anchor="end"'),
      text(right + 6, yr(r) + 4, r.toFixed(1), 'fill="#d62728"'),
    );
  }
  for (const p of pts) body.push(text(x(p.n), H - B + 18, p.n, 'text-anchor="middle"'));
  body.push(
    text((L + right) / 2, H - 18, 'nodes (1 control plane + workers)', 'text-anchor="middle"'),
    text(18, H / 2, 'fresh install, all Ready (s)', `transform="rotate(-90 18 ${H / 2})" text-anchor="middle"`),
    text(W - 8, H / 2, 'converged rerun, median (s)', `transform="rotate(-90 ${W - 8} ${H / 2})" text-anchor="middle" fill="#d62728"`),
  );
  if (pts.length >= 2) {
    const [a, b] = pts,
      last = pts[pts.length - 1];
    const at = (n) => a.install + ((b.install - a.install) * (n - a.n)) / (b.n - a.n);
    body.push(`<line x1="${x(a.n)}" y1="${y(at(a.n))}" x2="${x(last.n)}" y2="${y(Math.max(0, at(last.n)))}" stroke="#1f77b4" stroke-dasharray="5,4"/>`);
  }
  for (const [key, color, scale] of [
    ['install', '#1f77b4', y],
    ['rerun', '#d62728', yr],
  ]) {
    body.push(
      `<polyline fill="none" stroke="${color}" stroke-width="2" points="${pts.map((p) => `${x(p.n).toFixed(1)},${scale(p[key]).toFixed(1)}`).join(' ')}"/>`,
    );
    for (const p of pts) {
      body.push(`<circle cx="${x(p.n).toFixed(1)}" cy="${scale(p[key]).toFixed(1)}" r="3" fill="${color}"/>`);
      body.push(text(x(p.n), scale(p[key]) - 8, `${p[key].toFixed(key === 'install' ? 1 : 2)} s`, `text-anchor="middle" font-size="10" fill="${color}"`));
    }
  }
  body.push(
    `<rect x="${L + 10}" y="${T + 2}" width="12" height="3" fill="#1f77b4"/>`,
    text(L + 28, T + 8, 'fresh install (left axis; dashed: linear from the first two sizes)'),
    `<rect x="${L + 10}" y="${T + 18}" width="12" height="3" fill="#d62728"/>`,
    text(L + 28, T + 24, 'converged rerun (right axis)'),
  );
  return svg('kcluster cluster size: install and converged rerun against nodes', body);
}

function fanOutPlot() {
  const pts = rows.map(([h, on, , applyMs, sent]) => ({ hosts: Number(h), on: on === 'true', s: Number(applyMs) / 1000, mb: Number(sent) / 1e6 }));
  const xMax = niceMax(Math.max(...pts.map((p) => p.hosts))),
    yMax = niceMax(1.1 * Math.max(...pts.map((p) => p.mb)));
  const x = (v) => L + (v / xMax) * (W - L - R),
    y = (v) => H - B - (v / yMax) * (H - T - B);
  const body = axesWithGrid(y, yMax, 0);
  for (const h of [...new Set(pts.map((p) => p.hosts))]) body.push(text(x(h), H - B + 18, h, 'text-anchor="middle"'));
  body.push(
    text(W / 2, H - 18, 'hosts', 'text-anchor="middle"'),
    text(18, H / 2, "controller's bytes sent (MB)", `transform="rotate(-90 18 ${H / 2})" text-anchor="middle"`),
  );
  const series = [
    [true, '#1f77b4', 'fan-out on (each artifact from the controller to at most 2 hosts)'],
    [false, '#999', 'fan-out off (one copy per host)'],
  ];
  series.forEach(([on, color, label], i) => {
    const line = pts.filter((p) => p.on === on).sort((a, b) => a.hosts - b.hosts);
    body.push(
      `<polyline fill="none" stroke="${color}" stroke-width="2" points="${line.map((p) => `${x(p.hosts).toFixed(1)},${y(p.mb).toFixed(1)}`).join(' ')}"/>`,
    );
    for (const p of line)
      body.push(
        `<circle cx="${x(p.hosts).toFixed(1)}" cy="${y(p.mb).toFixed(1)}" r="3" fill="${color}"/>`,
        text(
          x(p.hosts),
          y(p.mb) + (on ? 16 : -8),
          `${p.mb.toFixed(0)} MB, ${p.s.toFixed(1)} s`,
          `text-anchor="${x(p.hosts) > W - R - 60 ? 'end' : 'middle'}" font-size="10" fill="${color}"`,
        ),
      );
    body.push(`<rect x="${L + 10}" y="${T + 2 + 16 * i}" width="12" height="3" fill="${color}"/>`, text(L + 28, T + 8 + 16 * i, label));
  });
  return svg("Artifact fan-out: the controller's bytes against hosts (label: MB, install s)", body);
}

const plots = { scale: scalePlot, size: sizePlot, generic: genericPlot, fanout: fanOutPlot };
process.stdout.write(plots[mode]());
