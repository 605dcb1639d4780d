/**
 * node-zookeeper-client 1.1.3 used directly (no lock library): the floors our figures are compared
 * with. Only the calls the benchmarks make, promisified; `watch` callbacks fire once.
 */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

interface RawEvent {
  getType(): number;
}
interface RawClientApi {
  connect(): void;
  close(): void;
  once(event: 'connected', listener: () => void): void;
  create(path: string, data: Buffer | null, mode: number, cb: (err: Error | null, path: string) => void): void;
  getChildren(path: string, cb: (err: Error | null, children: string[]) => void): void;
  remove(path: string, version: number, cb: (err: Error | null) => void): void;
  exists(path: string, watcher: ((event: RawEvent) => void) | undefined, cb: (err: Error | null, stat: unknown) => void): void;
  mkdirp(path: string, cb: (err: Error | null) => void): void;
}
interface RawModule {
  createClient(connectString: string, options: { sessionTimeout: number; spinDelay: number; retries: number }): RawClientApi;
}

/** node-zookeeper-client's CreateMode.EPHEMERAL_SEQUENTIAL. */
const EPHEMERAL_SEQUENTIAL = 3;

/** One raw session. */
export class RawZk {
  private constructor(readonly client: RawClientApi) {}

  static connect(connectString: string, sessionTimeoutMs = 10_000): Promise<RawZk> {
    const client = (require('node-zookeeper-client') as RawModule).createClient(connectString, {
      sessionTimeout: sessionTimeoutMs,
      spinDelay: 100,
      retries: 0,
    });
    return new Promise((resolve) => {
      client.once('connected', () => resolve(new RawZk(client)));
      client.connect();
    });
  }

  /** Creates an EPHEMERAL_SEQUENTIAL node; resolves with its path. */
  createSequential(prefix: string): Promise<string> {
    return new Promise((resolve, reject) =>
      this.client.create(prefix, null, EPHEMERAL_SEQUENTIAL, (err, path) => (err ? reject(err) : resolve(path))),
    );
  }

  getChildren(path: string): Promise<string[]> {
    return new Promise((resolve, reject) => this.client.getChildren(path, (err, children) => (err ? reject(err) : resolve(children))));
  }

  delete(path: string): Promise<void> {
    return new Promise((resolve, reject) => this.client.remove(path, -1, (err) => (err ? reject(err) : resolve())));
  }

  /** exists() with a one-shot watch; resolves with whether the node exists. */
  existsWatch(path: string, watcher: () => void): Promise<boolean> {
    return new Promise((resolve, reject) =>
      this.client.exists(path, () => watcher(), (err, stat) => (err ? reject(err) : resolve(stat !== null && stat !== undefined))),
    );
  }

  mkdirp(path: string): Promise<void> {
    return new Promise((resolve, reject) => this.client.mkdirp(path, (err) => (err ? reject(err) : resolve())));
  }

  close(): void {
    this.client.close();
  }
}
