import { AbortedError } from '@zk-recipes/core';
import { LeadershipTimeoutError } from './errors.js';
import type { Leadership } from './Leadership.js';
import type { LeadershipOptions } from './options.js';

interface Waiter {
  resolve(leadership: Leadership): void;
  reject(error: Error): void;
}

/** The `leadership()` calls of a latch waiting for its next term. */
export class LeadershipWaiters {
  private readonly waiting = new Set<Waiter>();

  /** Waits for {@link resolveAll} or {@link rejectAll}, or the options' deadline or signal. */
  wait(options: LeadershipOptions, what: string): Promise<Leadership> {
    return new Promise((resolve, reject) => {
      const { signal, timeoutMs } = options;
      if (signal?.aborted === true) {
        reject(new AbortedError(`${what}: aborted`, { cause: signal.reason }));
        return;
      }
      const done = (): void => {
        this.waiting.delete(waiter);
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      };
      const waiter: Waiter = {
        resolve: (leadership) => {
          done();
          resolve(leadership);
        },
        reject: (error) => {
          done();
          reject(error);
        },
      };
      const onAbort = (): void => waiter.reject(new AbortedError(`${what}: aborted`, { cause: signal?.reason }));
      const timer = timeoutMs === undefined ? undefined : setTimeout(() => waiter.reject(new LeadershipTimeoutError(`${what}: not elected within ${timeoutMs} ms (still in the election)`)), timeoutMs);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.add(waiter);
    });
  }

  resolveAll(leadership: Leadership): void {
    for (const waiter of [...this.waiting]) waiter.resolve(leadership);
  }

  rejectAll(error: Error): void {
    for (const waiter of [...this.waiting]) waiter.reject(error);
  }
}
