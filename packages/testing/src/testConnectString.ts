/** Name of the variable the integration global setup sets to the server it started. */
export const TEST_CONNECT_ENV = 'ZK_TEST_CONNECT';

/**
 * The connect string integration tests use: `ZK_CONNECT` when set (a user's ensemble), else the
 * server the global setup started (`ZK_TEST_CONNECT`, inherited by the test workers).
 * @throws when neither is set (the test was run outside the `integration` project).
 */
export function testConnectString(): string {
  const explicit = process.env['ZK_CONNECT'];
  if (explicit !== undefined && explicit !== '') return explicit;
  const started = process.env[TEST_CONNECT_ENV];
  if (started !== undefined && started !== '') return started;
  throw new Error(
    'testConnectString: no ZooKeeper for tests. Run integration tests through the vitest `integration` project ' +
      '(its globalSetup starts a server) or set ZK_CONNECT=host:port[,host:port...]',
  );
}
