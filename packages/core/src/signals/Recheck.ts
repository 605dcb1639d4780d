/**
 * Turns a recipe's "something outside the queue changed" subscription into promises the
 * engine can race against its watches. `fired` tells whether a change came since `arm()`.
 */
export class Recheck {
  private unsubscribe: (() => void) | undefined;
  private waiters: Array<() => void> | undefined;
  fired = false;

  constructor(subscribe: (listener: () => void) => () => void) {
    this.unsubscribe = subscribe(() => {
      this.fired = true;
      this.wakeAll();
    });
  }

  /** Called before each decision: changes seen so far are already in it. */
  arm(): void {
    this.fired = false;
  }

  /** Resolves at the next change (at once if one came since `arm()`), or when disposed. */
  next(): Promise<void> {
    if (this.fired) return Promise.resolve();
    return new Promise((resolve) => (this.waiters ??= []).push(resolve));
  }

  dispose(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    this.wakeAll();
  }

  private wakeAll(): void {
    const waiters = this.waiters;
    this.waiters = undefined;
    if (waiters !== undefined) for (const wake of waiters) wake();
  }
}
