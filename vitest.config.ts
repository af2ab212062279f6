import { defineConfig } from 'vitest/config';

// Two projects: fast tests with no network and no root (pure + engine with fakes), and
// integration tests over real SSH to lab hosts (need root and a lab; see test/run-all.sh).
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts', 'test/engine/**/*.test.ts'],
          testTimeout: 20_000,
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          testTimeout: 300_000,
          hookTimeout: 600_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
