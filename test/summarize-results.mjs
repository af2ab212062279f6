// Sum vitest JSON reports into the one closing line CI reads: "tests: N passed, N failed, N skipped".
// Exits non-zero when a report is missing or counts a failure.
import { readFileSync } from 'node:fs';

let passed = 0;
let failed = 0;
let skipped = 0;
let broken = 0;
for (const file of process.argv.slice(2)) {
  try {
    const report = JSON.parse(readFileSync(file, 'utf8'));
    passed += report.numPassedTests ?? 0;
    failed += (report.numFailedTests ?? 0) + (report.numRuntimeErrorTestSuites ?? 0);
    skipped += (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
    if (report.success === false && (report.numFailedTests ?? 0) === 0) broken += 1;
  } catch (error) {
    console.error(`summarize: cannot read ${file}: ${error.message}`);
    broken += 1;
  }
}
if (broken > 0) console.error(`summarize: ${broken} test run(s) failed outside of a test (see above)`);
console.log(`tests: ${passed} passed, ${failed + broken} failed, ${skipped} skipped`);
process.exit(failed + broken > 0 ? 1 : 0);
