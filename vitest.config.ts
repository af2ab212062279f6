import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { LongestE2eFirstSequencer } from './test/support/e2e-longest-first.js';

// Four projects run in this order by test/run-all.sh; two more have their own command:
// - unit: pure and engine tests (fakes named as such); no network, no root;
// - lab: the lab itself (each test brings up and tears down its own lab hosts);
// - integration: real SSH to the shared test lab that run-all.sh brings up (KCLUSTER_TEST_LAB);
// - e2e: a Kubernetes cluster installed from the offline bundle run-all.sh builds;
// - migration: an older kcluster's cluster hardened by the current one (npm run test:migration);
// - vm: a cluster on a real kernel (a QEMU VM), too slow for CI's budget;
// - vagrant: the same through `vagrant up` (vagrant-libvirt), test/vagrant/run.sh;
// - soak: seeded day-2 operations and faults on a lab cluster, invariants after each (npm run soak);
// - record-facts: not tests, the recorder of test/fixtures/facts/ (npm run record:facts).
const slow = { testTimeout: 300_000, hookTimeout: 600_000, fileParallelism: false } as const;
const e2eLanes = lanes(process.env['KCLUSTER_E2E_LANES'] ?? '3');

function lanes(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 8) throw new Error(`KCLUSTER_E2E_LANES must be a whole number from 1 to 8 (got "${value}")`);
  return n;
}

export default defineConfig({
  test: {
    sequence: { sequencer: LongestE2eFirstSequencer },
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts', 'test/engine/**/*.test.ts'],
          testTimeout: 20_000,
          // One file per core: vitest's default leaves one core free, which on 2 cores ran the
          // unit files one at a time (most of their time is importing and transforming).
          maxWorkers: availableParallelism(),
        },
      },
      { test: { name: 'lab', include: ['test/integration/lab/**/*.test.ts'], ...slow } },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          exclude: ['test/integration/lab/**'],
          ...slow,
        },
      },
      // A real cluster on privileged lab hosts from the bundle (KCLUSTER_TEST_BUNDLE). Three files
      // at a time (KCLUSTER_E2E_LANES): each has its own lab and subnet, and most of a cluster test
      // is waiting (pods, restarts, the Conformance specs), so lanes overlap the waits even on 2
      // cores (the figures per lane count are in docs/developers/measurements.md); KCLUSTER_E2E_LANES=1 runs them one by one.
      {
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          ...slow,
          testTimeout: 900_000,
          fileParallelism: e2eLanes > 1,
          maxWorkers: e2eLanes,
        },
      },
      // Hardening a cluster that kcluster installed before (npm run test:migration; two installs, not part of npm test).
      { test: { name: 'migration', include: ['test/migration/**/*.test.ts'], ...slow, testTimeout: 1_800_000 } },
      // A cluster on a real kernel in a QEMU VM (test/vm/run.sh; slow, not part of npm test).
      { test: { name: 'vm', include: ['test/vm/**/*.test.ts'], ...slow, testTimeout: 1_800_000 } },
      // Two Vagrant VMs (vagrant-libvirt, a box built offline) made into a cluster (test/vagrant/run.sh).
      { test: { name: 'vagrant', include: ['test/vagrant/**/*.test.ts'], ...slow, testTimeout: 1_800_000 } },
      // The seeded lifecycle soak (npm run soak -- --seed N --steps M, test/soak/run.sh): hours, never part of npm test.
      { test: { name: 'soak', include: ['test/soak/**/*.soak.ts'], ...slow, hookTimeout: 1_800_000, testTimeout: 48 * 3_600_000 } },
      // Not a test: records the fact sections the role plan tests replay, from lab hosts (npm run record:facts).
      { test: { name: 'record-facts', include: ['test/support/recorded-facts/*.record.ts'], ...slow } },
    ],
  },
});
