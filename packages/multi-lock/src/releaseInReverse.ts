import type { LockHandle } from '@zk-recipes/core';

/**
 * Releases `handles` one after another, last acquired first, attempting every one even when an
 * earlier one fails. Resolves to the failures (empty when all were released). Handles released
 * already are skipped: a release retried after some members failed releases only those.
 */
export async function releaseInReverse(handles: ReadonlyArray<Pick<LockHandle, 'release'> & Partial<Pick<LockHandle, 'held'>>>): Promise<unknown[]> {
  const failures: unknown[] = [];
  for (let i = handles.length - 1; i >= 0; i--) {
    if (handles[i]!.held === false) continue;
    try {
      await handles[i]!.release();
    } catch (err) {
      failures.push(err);
    }
  }
  return failures;
}
