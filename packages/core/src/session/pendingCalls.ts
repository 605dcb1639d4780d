/**
 * Every call in flight, per ZooKeeper session generation. node-zookeeper-client 1.1.3 forgets
 * callbacks (requests queued while disconnected are never called back once the session expires),
 * so we keep our own list and settle everything on `lost` or `close()`: nothing ever hangs.
 */
import { toZkError } from './errorMapping.js';

/** Told when a call that sets a watch settles (see `WatchRegistry.arming`). */
export interface Disarm {
  disarm(watchClass: 'data' | 'child', path: string): void;
}

/**
 * One call in flight: settles once (later attempts are ignored), leaving the set as it does. One
 * object per call, its wire callback the only closure.
 */
export class PendingCall<T = unknown> {
  private done = false;
  /** The registry of the watch this call's request sets, if any: told when the call settles. */
  private armed: Disarm | undefined;
  private armedClass: 'data' | 'child' = 'data';

  constructor(
    readonly op: string,
    readonly path: string | undefined,
    private readonly onResolve: (value: T) => void,
    private readonly onReject: (error: Error) => void,
    private readonly calls: Set<PendingCall<never>>,
  ) {}

  /** What the wire client calls back with: its error (or our reply code), or the decoded reply. */
  readonly callback: (error: unknown, response?: unknown) => void = wireCallbackOf(this);

  /** While this call is out, it sets a watch of `watchClass` on its path in `registry` (see `WatchRegistry.arming`). */
  arm(registry: Disarm, watchClass: 'data' | 'child'): void {
    this.armed = registry;
    this.armedClass = watchClass;
  }

  resolve(value: T): void {
    if (!this.end()) return;
    this.onResolve(value);
  }

  reject(error: Error): void {
    if (!this.end()) return;
    this.onReject(error);
  }

  /** Settles the call with an error; a no-op if it already settled. */
  fail(error: Error): void {
    this.reject(error);
  }

  private end(): boolean {
    if (this.done) return false;
    this.done = true;
    this.calls.delete(this as PendingCall<never>);
    const armed = this.armed;
    if (armed !== undefined) {
      this.armed = undefined;
      armed.disarm(this.armedClass, this.path!);
    }
    return true;
  }
}

/** The one closure of a call (made apart so that nothing else of the call's is captured). */
function wireCallbackOf<T>(call: PendingCall<T>): (error: unknown, response?: unknown) => void {
  return (error, response) => {
    if (error) call.reject(toZkError(error, call.op, call.path));
    else call.resolve(response as T);
  };
}

export class PendingCalls {
  private readonly calls = new Set<PendingCall<never>>();

  /** Tracks a call: the returned object settles it, once (see {@link PendingCall}). */
  track<T>(op: string, path: string | undefined, resolve: (value: T) => void, reject: (error: Error) => void): PendingCall<T> {
    const call = new PendingCall<T>(op, path, resolve, reject, this.calls);
    this.calls.add(call as PendingCall<never>);
    return call;
  }

  get size(): number {
    return this.calls.size;
  }

  /** Fails every call still pending with the error `make` builds for it. */
  failAll(make: (call: PendingCall) => Error): void {
    for (const call of [...this.calls]) call.fail(make(call as PendingCall));
  }
}
