// The e2e suite reads test/conformance/run.sh's summary line back: its parser, on lines run.sh wrote.
import { describe, expect, it } from 'vitest';
import { parseConformanceSummary } from '../../e2e/support/conformance.js';

describe('parseConformanceSummary', () => {
  it('reads the counts and seconds of a run.sh summary line', () => {
    const line = 'conformance v1.37.2 (lab): 115 passed, 6 failed, 0 skipped, 731 s (JUnit /tmp/kc/conf-run1/report/junit_01.xml; 3085 specs not selected)';
    expect(parseConformanceSummary(line)).toEqual({ passed: 115, failed: 6, skipped: 0, seconds: 731 });
  });

  it('refuses a line that is not a summary, so a changed format cannot pass as zero failures', () => {
    expect(() => parseConformanceSummary('conformance v1.37.2 (lab): e2e.test exited 1')).toThrow(/not a conformance summary line/);
  });
});
