// Each play's duration in a run's NDJSON events (`kcluster ... -o json`), from its play-start to
// its play-end, in the order the run had them: what the install and restart benchmarks report.
import { readFileSync } from 'node:fs';

/** [play, milliseconds] pairs, in the run's order. */
export function playDurations(file) {
  const started = new Map();
  const plays = [];
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line.startsWith('{')) continue;
    const event = JSON.parse(line);
    if (event.type === 'play-start') started.set(event.play, event.time);
    if (event.type === 'play-end' && started.has(event.play)) plays.push([event.play, event.time - started.get(event.play)]);
  }
  return plays;
}
