// The order in which the e2e files start: vitest runs KCLUSTER_E2E_LANES of them at a time and
// gives the next file to the first lane that frees up, so starting the longest first keeps one
// long file from starting last and running alone at the end (longest processing time first).
// Vitest's own order, without results from an earlier run (a fresh clone), is the largest file
// first, which is not the longest. Keep this list in the order of the per-file durations the
// suite prints at its end; a file not listed starts first.
import { basename } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

export const E2E_LONGEST_FIRST: readonly string[] = [
  'cluster.test.ts',
  'control-plane-lifecycle.test.ts',
  'ha.test.ts',
  'help-examples.test.ts',
  'day2.test.ts',
  'soak-slice.test.ts',
  'virtual-ip.test.ts',
  'state-store.test.ts',
  'upgrade.test.ts',
  'docker.test.ts',
  'trixie.test.ts',
  'release-upstream-images.test.ts',
  'release-stages.test.ts',
  // npm run test:extended only (skipped in npm test):
  'ca-rotation.test.ts',
  'quick-start.test.ts',
  'nftables.test.ts',
  'dual-stack.test.ts',
];

/** The e2e project's files in E2E_LONGEST_FIRST order (unlisted ones first); other projects as vitest sorts them. */
export function longestE2eFirst(files: readonly TestSpecification[]): TestSpecification[] {
  const rank = (f: TestSpecification): number => E2E_LONGEST_FIRST.indexOf(basename(f.moduleId));
  const e2e = files.filter((f) => f.project.name === 'e2e').sort((a, b) => rank(a) - rank(b));
  let next = 0;
  return files.map((f) => (f.project.name === 'e2e' ? e2e[next++]! : f));
}

export class LongestE2eFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    return longestE2eFirst(await super.sort(files));
  }
}
