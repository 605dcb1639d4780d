import { isZkError, ReleaseFailedError, type LockHandle } from '@zk-recipes/core';

/**
 * Releases `handles` one after another, last acquired first, attempting every one even when an
 * earlier one fails. Resolves to the failures (empty when all were released). `given` marks the
 * handles given back, by index: those marked already are skipped (a release retried after some
 * members failed releases only those), and each released now is marked. A handle that says it was
 * released already (`NOT_OWNER`: released directly) counts as given back, not as a failure; a
 * refused one (`RELEASE_FAILED`) is reported by its refusal (`NO_AUTH`...), the member's handle
 * staying in `handles` to be released again.
 */
export async function releaseInReverse(handles: ReadonlyArray<Pick<LockHandle, 'release'>>, given: boolean[] = handles.map(() => false)): Promise<unknown[]> {
  const failures: unknown[] = [];
  for (let i = handles.length - 1; i >= 0; i--) {
    if (given[i] === true) continue;
    try {
      await handles[i]!.release();
      given[i] = true;
    } catch (err) {
      if (isZkError(err, 'NOT_OWNER')) given[i] = true;
      else failures.push(err instanceof ReleaseFailedError ? err.error : err);
    }
  }
  return failures;
}
