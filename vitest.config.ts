import { defineConfig } from 'vitest/config';

// Three projects: `unit` needs no server; `integration` runs against real ZooKeeper servers
// started by @zk-recipes/testing (or the ensemble named by ZK_CONNECT); `long`, the seeded nemesis
// runs (`*.long.test.ts`), a minute or more each, runs in `npm run test:long`, not in `npm test`.
export default defineConfig({
  resolve: { conditions: ['@zk-recipes/source'] },
  ssr: { resolve: { conditions: ['@zk-recipes/source'] } },
  test: {
    reporters: ['default', './scripts/summary-reporter.ts'],
    // expect.poll waits for a server's answer or a watch's event: vitest's 1 s default is a few
    // round trips on a busy 2-core machine, where one scheduling stall can take that long.
    expect: { poll: { timeout: 10_000 } },
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          // Projects with different worker limits must run in separate groups (vitest 4).
          sequence: { groupOrder: 0 },
          include: ['packages/*/test/**/*.test.ts'],
          exclude: ['**/*.int.test.ts', '**/*.long.test.ts', '**/node_modules/**'],
          // Two at a time whatever the cores (vitest's default is one fewer than the cores): on
          // two cores one worker leaves a core idle while the other imports.
          maxWorkers: 2,
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
          // Four files at a time, on two cores too: an integration test mostly waits (for session
          // timeouts, faults, servers), using a fifth of a core on average (7 CPU-minutes in 26
          // minutes of test files, measured), so two at a time left the cores idle and doubled the
          // run. Time bounds are judged against the machine's measured load (MachineLoad).
          maxWorkers: 4,
        },
      },
      {
        extends: true,
        test: {
          name: 'long',
          sequence: { groupOrder: 2 },
          include: ['packages/*/test/**/*.long.test.ts'],
          globalSetup: ['packages/testing/src/globalSetup.ts'],
          testTimeout: 60_000,
          hookTimeout: 60_000,
          // Each runs a 3-server ensemble and five worker processes: one at a time.
          maxWorkers: 1,
        },
      },
    ],
  },
});
