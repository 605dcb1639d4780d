import { ReleaseFailedError } from '../errors.js';

/** What `withLock` and `await using` need of a handle. */
export interface Releasable {
  release(): Promise<void>;
}

/**
 * Runs `fn` with `handle`, then releases it: `withLock`'s body. A release the server refused
 * leaves the lock held, so its error must carry the handle (nobody else has it) and must not hide
 * what `fn` threw: it rejects with {@link ReleaseFailedError}, `fn`'s error as `suppressed`.
 * `holdsAny` says whether the handle still holds something after the failed release (a release
 * that failed over nothing, e.g. `NOT_OWNER` after `fn` released it, is rethrown as it is).
 */
export async function runThenRelease<H extends Releasable, T>(handle: H, fn: (handle: H) => T | Promise<T>, what: string, holdsAny: () => boolean): Promise<T> {
  let result: T;
  try {
    result = await fn(handle);
  } catch (thrown) {
    await release(handle, what, holdsAny, { thrown });
    throw thrown;
  }
  await release(handle, what, holdsAny);
  return result;
}

/**
 * `Symbol.asyncDispose` of a handle: releases it if it still holds anything (`await using` after
 * an explicit release is no error); a refused release rejects with the handle in the error, since
 * `await using` hid it from the caller.
 */
export async function disposeHandle<H extends Releasable>(handle: H, what: string, holdsAny: () => boolean): Promise<void> {
  if (holdsAny()) await release(handle, what, holdsAny);
}

async function release<H extends Releasable>(handle: H, what: string, holdsAny: () => boolean, fn?: { thrown: unknown }): Promise<void> {
  try {
    await handle.release();
  } catch (error) {
    if (!holdsAny()) throw error;
    const after = fn === undefined ? '' : ' after fn threw (its error is err.suppressed)';
    throw new ReleaseFailedError(`${what}: the release failed${after} and the lock is still held: release it again with err.handle.release() once the cause is fixed (${String(error)})`, handle, error, fn);
  }
}
