// Sum vitest JSON reports into the one closing line CI reads: "tests: N passed, N failed, N skipped",
// after a table of where the time went: each stage of the suite (wall clock, from the stages file
// run-all.sh writes) and each test file of the slow depths (from vitest's own start and end times),
// so a suite creeping towards its CI budget shows which file grew; then each failed test with the
// first lines of its error, last, where a log cut to its tail still shows them.
// Usage: node test/summarize-results.mjs [--stages FILE] REPORT.json...
// Exits non-zero when a report is missing or counts a failure.
import { existsSync, readFileSync } from 'node:fs';
import { basename, relative } from 'node:path';
import { stripVTControlCharacters } from 'node:util';

const args = process.argv.slice(2);
let stagesFile;
const reports = [];
for (let i = 0; i < args.length; i += 1) {
  if (args[i] === '--stages') stagesFile = args[(i += 1)];
  else reports.push(args[i]);
}

const seconds = (ms) => `${(ms / 1000).toFixed(0).padStart(6)} s`;

/** Files of these depths are listed one by one; unit files are many and quick. */
const PER_FILE = new Set(['lab', 'integration', 'e2e']);

let passed = 0;
let failed = 0;
let skipped = 0;
let broken = 0;
const fileLines = [];
const failures = [];
/** A failure's first lines, colours stripped: enough to tell which assertion and why. */
const firstLines = (message, count) =>
  stripVTControlCharacters(String(message))
    .split('\n')
    .filter((l) => l.trim() !== '')
    .slice(0, count)
    .map((l) => `      ${l.slice(0, 200)}`)
    .join('\n');
for (const file of reports) {
  try {
    const report = JSON.parse(readFileSync(file, 'utf8'));
    passed += report.numPassedTests ?? 0;
    failed += (report.numFailedTests ?? 0) + (report.numRuntimeErrorTestSuites ?? 0);
    skipped += (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
    if (report.success === false && (report.numFailedTests ?? 0) === 0) broken += 1;
    const depth = basename(file, '.json');
    for (const result of report.testResults ?? []) {
      const name = relative(process.cwd(), result.name);
      for (const test of result.assertionResults ?? []) {
        if (test.status !== 'failed') continue;
        failures.push(`  ${depth}  ${name} > ${test.fullName ?? test.title}\n${firstLines((test.failureMessages ?? []).join('\n'), 4)}`);
      }
      if (result.status === 'failed' && (result.assertionResults ?? []).every((t) => t.status !== 'failed'))
        failures.push(`  ${depth}  ${name} (outside of a test)\n${firstLines(result.message ?? '', 4)}`);
      if (PER_FILE.has(depth) && typeof result.startTime === 'number' && typeof result.endTime === 'number') {
        const mark = result.status === 'passed' ? '' : `  (${result.status})`;
        fileLines.push(`${seconds(result.endTime - result.startTime)}  ${depth}  ${name}${mark}`);
      }
    }
  } catch (error) {
    console.error(`summarize: cannot read ${file}: ${error.message}`);
    broken += 1;
  }
}

if (stagesFile !== undefined && existsSync(stagesFile)) {
  console.log('== durations: each stage of the suite (wall clock)');
  for (const line of readFileSync(stagesFile, 'utf8').split('\n')) {
    const [name, ms] = line.split('\t');
    if (name && ms) console.log(`${seconds(Number(ms))}  ${name}`);
  }
}
if (fileLines.length > 0) {
  console.log('== durations: each test file of the lab, integration and e2e depths');
  for (const line of fileLines) console.log(line);
}
if (failures.length > 0) {
  console.log('== failures: each failed test and the first lines of its error (the full output is above)');
  for (const line of failures) console.log(line);
}
if (broken > 0) console.error(`summarize: ${broken} test run(s) failed outside of a test (see above)`);
console.log(`tests: ${passed} passed, ${failed + broken} failed, ${skipped} skipped`);
process.exit(failed + broken > 0 ? 1 : 0);
