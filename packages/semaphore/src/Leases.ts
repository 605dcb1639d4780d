import { disposeHandle } from '@zk-recipes/core/recipe-kit';
import { isUnreleased, type Lease } from './Lease.js';

/**
 * The leases of one `acquireMany`: an array of {@link Lease} that `await using` can dispose.
 * `release()` gives back every lease of it not released yet (each attempted, the last acquired
 * first); `Symbol.asyncDispose` does the same if any is left (an explicit release before is no
 * error). A release the server refuses leaves that lease's node: it rejects with the first error
 * (`RELEASE_FAILED`), and `await using` with a ReleaseFailedError carrying these leases; releasing
 * again tries the refused ones again.
 */
export type Leases = Lease[] & AsyncDisposable & {
  /** Releases every lease not released yet; see {@link Leases}. */
  release(): Promise<void>;
};

/** `leases` as {@link Leases} (the same array, given the two methods). */
export function asLeases(leases: Lease[], what: string): Leases {
  const unreleased = (): boolean => leases.some(isUnreleased);
  const release = async (): Promise<void> => {
    let first: { error: unknown } | undefined;
    for (let i = leases.length - 1; i >= 0; i--) {
      const lease = leases[i]!;
      if (!isUnreleased(lease)) continue;
      try {
        await lease.release();
      } catch (error) {
        first ??= { error };
      }
    }
    if (first !== undefined) throw first.error;
  };
  const result = leases as Leases;
  Object.defineProperty(result, 'release', { value: release });
  Object.defineProperty(result, Symbol.asyncDispose, { value: () => disposeHandle(result, `${what}: await using`, unreleased) });
  return result;
}
