import type { LockHandle } from '@zk-recipes/core';

/**
 * Releases `handles` one after another, last acquired first, attempting every one even when an
 * earlier one fails. Resolves to the failures (empty when all were released).
 */
export async function releaseInReverse(handles: readonly Pick<LockHandle, 'release'>[]): Promise<unknown[]> {
  const failures: unknown[] = [];
  for (let i = handles.length - 1; i >= 0; i--) {
    try {
      await handles[i]!.release();
    } catch (err) {
      failures.push(err);
    }
  }
  return failures;
}
