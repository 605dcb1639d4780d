// One acquisition traced on `zk-recipes:acquire` (docs/observability.md, "Diagnostics channels"):
// the acquire front-end takes this path only while someone subscribes. Not Node's
// `tracePromise`: it would hand the caller a promise of its own, chained after the one tagged with
// the holder's owner frame, and the code after `await acquire()` would no longer be the holder
// (docs/architecture.md, "Ownership by async context"). The grant is observed before the tag.
import { isZkError } from '../errors.js';
import type { AcquireOptions, AcquireSource, AcquireStep, Started } from './acquireTypes.js';
import { acquireChannel, kindOfRecipe, type AcquireContext } from '../diagnostics/channels.js';

/**
 * Starts `step` inside an acquire trace and hands its grant out with `handOut`. `isTry`: a
 * `LOCK_TIMEOUT` is the `timeout` outcome of a `tryAcquire` (resolved with `null`), not an error.
 */
export function tracedAcquire<H, R>(
  step: AcquireStep<H>,
  options: AcquireOptions,
  source: AcquireSource,
  leases: number | undefined,
  isTry: boolean,
  handOut: (started: Started<H>) => Promise<R>,
): Promise<R> {
  const context: AcquireContext = { recipe: source.recipe, path: source.path, kind: kindOfRecipe(source.recipe), sessionId: source.sessionId() };
  if (options.timeoutMs !== undefined) context.timeoutMs = options.timeoutMs;
  if (leases !== undefined) context.leases = leases;
  const reentry = source.reenters?.() === true;
  const startedAt = performance.now();
  return acquireChannel.start.runStores(context, () => {
    let started: Started<H>;
    try {
      started = step(options);
    } catch (err) {
      failed(context, err, startedAt, false);
      acquireChannel.end.publish(context);
      throw err;
    }
    const granted = started.granted.then(
      (handle) => {
        context.outcome = reentry ? 'reentered' : 'granted';
        context.waitMs = performance.now() - startedAt;
        describeGrant(context, handle);
        acquireChannel.asyncStart.publish(context);
        acquireChannel.asyncEnd.publish(context);
        return handle;
      },
      (err: unknown) => {
        failed(context, err, startedAt, true);
        throw err;
      },
    );
    acquireChannel.end.publish(context);
    return handOut({ frame: started.frame, granted });
  });

  function failed(ctx: AcquireContext, err: unknown, since: number, async: boolean): void {
    ctx.waitMs = performance.now() - since;
    const timedOut = isZkError(err, 'LOCK_TIMEOUT');
    ctx.outcome = timedOut ? 'timeout' : isZkError(err, 'ABORTED') ? 'aborted' : 'failed';
    // A tryAcquire that found no room resolves with null: an outcome, not an error.
    if (!(isTry && timedOut)) {
      ctx.error = err;
      acquireChannel.error.publish(ctx);
    }
    if (async) {
      acquireChannel.asyncStart.publish(ctx);
      acquireChannel.asyncEnd.publish(ctx);
    }
  }
}

/** The node and fencing token of a grant: a lock handle's, or the first lease's of several. */
function describeGrant(context: AcquireContext, handle: unknown): void {
  const held = (Array.isArray(handle) ? handle[0] : handle) as { path?: unknown; fencingToken?: unknown } | null | undefined;
  if (held === null || held === undefined) return;
  if (typeof held.path === 'string') context.node = held.path;
  if (typeof held.fencingToken === 'bigint') context.fencingToken = held.fencingToken;
}
