/**
 * Turns a recipe's "something outside the queue changed" subscription into promises the
 * engine can race against its watches. `fired` tells whether a change came since `arm()`.
 */
export class Recheck {
  private unsubscribe: (() => void) | undefined;
  private waiters: Array<() => void> = [];
  fired = false;

  constructor(subscribe: ((listener: () => void) => () => void) | undefined) {
    this.unsubscribe = subscribe?.(() => {
      this.fired = true;
      for (const wake of this.waiters.splice(0)) wake();
    });
  }

  /** False when the recipe has nothing outside the queue to watch: then never race on it. */
  get active(): boolean {
    return this.unsubscribe !== undefined;
  }

  /** Called before each decision: changes seen so far are already in it. */
  arm(): void {
    this.fired = false;
  }

  /** Resolves at the next change (at once if one came since `arm()`); never, without a subscription. */
  next(): Promise<void> {
    if (this.fired) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  dispose(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    for (const wake of this.waiters.splice(0)) wake();
  }
}
