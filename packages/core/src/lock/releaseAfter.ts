import { ReleaseFailedError } from '../errors.js';

/** What `withLock` and `await using` need of a handle. */
export interface Releasable {
  release(): Promise<void>;
}

/**
 * Runs `fn` with `handle`, then releases it: `withLock`'s body. A release the server refused
 * leaves the node, so its error must carry the handle (nobody else has it) and must not hide what
 * `fn` threw: it rejects with {@link ReleaseFailedError}, `fn`'s error as `suppressed`.
 * `unreleased` says whether the handle still has something to release after the failed release
 * (a release that failed over nothing, e.g. `NOT_OWNER` after `fn` released it, is rethrown as it
 * is); a handle whose own release rejects with `RELEASE_FAILED` needs no asking.
 */
export async function runThenRelease<H extends Releasable, T>(handle: H, fn: (handle: H) => T | Promise<T>, what: string, unreleased: () => boolean): Promise<T> {
  let result: T;
  try {
    result = await fn(handle);
  } catch (thrown) {
    await release(handle, what, unreleased, { thrown });
    throw thrown;
  }
  await release(handle, what, unreleased);
  return result;
}

/**
 * `Symbol.asyncDispose` of a handle: releases it unless that was done (`await using` after an
 * explicit release is no error); a refused release rejects with the handle in the error, since
 * `await using` hid it from the caller.
 */
export async function disposeHandle<H extends Releasable>(handle: H, what: string, unreleased: () => boolean): Promise<void> {
  if (unreleased()) await release(handle, what, unreleased);
}

async function release<H extends Releasable>(handle: H, what: string, unreleased: () => boolean, fn?: { thrown: unknown }): Promise<void> {
  try {
    await handle.release();
  } catch (failure) {
    const refused = failure instanceof ReleaseFailedError;
    if (!refused && !unreleased()) throw failure;
    const error: unknown = refused ? failure.error : failure;
    const after = fn === undefined ? '' : ' after fn threw (its error is err.suppressed)';
    throw new ReleaseFailedError(`${what}: the release failed${after} and the node is still ours: release it again with err.handle.release() once the cause is fixed (${String(error)})`, handle, error, fn);
  }
}
