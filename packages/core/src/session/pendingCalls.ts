/**
 * Every call in flight, per ZooKeeper session generation. node-zookeeper-client 1.1.3 forgets
 * callbacks (requests queued while disconnected are never called back once the session expires),
 * so we keep our own list and settle everything on `lost` or `close()`: nothing ever hangs.
 */
export interface PendingCall {
  readonly op: string;
  readonly path: string | undefined;
  /** Settles the call with an error; a no-op if it already settled. */
  fail(error: Error): void;
}

export class PendingCalls {
  private readonly calls = new Set<PendingCall>();

  /**
   * Tracks a call. Returns `settle`, which the reply path calls exactly once (later calls are
   * ignored); it removes the call from the set.
   */
  track<T>(
    op: string,
    path: string | undefined,
    resolve: (value: T) => void,
    reject: (error: Error) => void,
  ): { resolve(value: T): void; reject(error: Error): void } {
    let done = false;
    const call: PendingCall = {
      op,
      path,
      fail: (error) => {
        if (done) return;
        done = true;
        this.calls.delete(call);
        reject(error);
      },
    };
    this.calls.add(call);
    return {
      resolve: (value) => {
        if (done) return;
        done = true;
        this.calls.delete(call);
        resolve(value);
      },
      reject: (error) => call.fail(error),
    };
  }

  get size(): number {
    return this.calls.size;
  }

  /** Fails every call still pending with the error `make` builds for it. */
  failAll(make: (call: PendingCall) => Error): void {
    for (const call of [...this.calls]) call.fail(make(call));
  }
}
