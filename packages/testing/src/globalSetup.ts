/**
 * vitest globalSetup of the `integration` project: one ZooKeeper server for all test files
 * (each works under its own `uniqueRoot`), unless ZK_CONNECT names an ensemble to use instead.
 * Test workers are spawned after this runs and inherit ZK_TEST_CONNECT from our environment.
 */
import type { TestProject } from 'vitest/node';
import { TEST_CONNECT_ENV } from './testConnectString.js';
import { TestingServer } from './TestingServer.js';

export default async function setup(_project: TestProject): Promise<() => Promise<void>> {
  const explicit = process.env['ZK_CONNECT'];
  if (explicit !== undefined && explicit !== '') {
    process.env[TEST_CONNECT_ENV] = explicit;
    return async () => undefined;
  }
  // Short ticks and no fsync: fast tests; a 400 ms minimum lets tests use short session timeouts.
  const server = await TestingServer.start({ forceSync: false, tickTimeMs: 200, minSessionTimeoutMs: 400 });
  process.env[TEST_CONNECT_ENV] = server.connectString;
  return async () => {
    await server.stop();
  };
}
