/**
 * The few parts of node-zookeeper-client 1.1.3 (untyped) the testing helpers drive directly.
 * Kept here, not in @zk-recipes/core, because these helpers must work on the raw wire protocol
 * independently of the code under test.
 */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** A raw node-zookeeper-client Client (only what we call). */
export interface RawClient {
  connect(): void;
  close(): void;
  on(event: 'connected' | 'disconnected' | 'expired' | 'authenticationFailed', listener: () => void): RawClient;
  removeAllListeners(): RawClient;
  getSessionId(): Buffer;
  getSessionPassword(): Buffer;
  create(path: string, data: Buffer | null, mode: number, callback: (error: Error | null, path?: string) => void): void;
  exists(path: string, callback: (error: Error | null, stat?: unknown) => void): void;
}

/** node-zookeeper-client CreateMode values. */
export const RAW_CREATE_MODE = { PERSISTENT: 0, EPHEMERAL: 1 } as const;

interface RawModule {
  createClient(connectString: string, options?: { sessionTimeout?: number; spinDelay?: number; retries?: number; sessionId?: Buffer; sessionPassword?: Buffer }): RawClient;
}

/** node-zookeeper-client's createClient. */
export const createRawClient: RawModule['createClient'] = (connectString, options) =>
  (require('node-zookeeper-client') as RawModule).createClient(connectString, options);
