import { defineConfig } from 'vitest/config';

// Two projects: `unit` needs no server; `integration` runs against real ZooKeeper servers
// started by @zk-recipes/testing (or the ensemble named by ZK_CONNECT).
export default defineConfig({
  resolve: { conditions: ['@zk-recipes/source'] },
  ssr: { resolve: { conditions: ['@zk-recipes/source'] } },
  test: {
    reporters: ['default', './scripts/summary-reporter.ts'],
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          // Projects with different worker limits must run in separate groups (vitest 4).
          sequence: { groupOrder: 0 },
          include: ['packages/*/test/**/*.test.ts'],
          exclude: ['**/*.int.test.ts', '**/node_modules/**'],
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          sequence: { groupOrder: 1 },
          include: ['packages/*/test/**/*.int.test.ts'],
          globalSetup: ['packages/testing/src/globalSetup.ts'],
          testTimeout: 60_000,
          hookTimeout: 60_000,
          // Two cores: the servers, the workers and the JVMs all share them.
          maxWorkers: 2,
        },
      },
    ],
  },
});
