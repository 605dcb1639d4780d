import { createHook, executionAsyncResource } from 'node:async_hooks';

/**
 * Ownership by async context: which asynchronous "call chain" holds a lock.
 *
 * A plain `AsyncLocalStorage.enterWith()` inside `acquire()` would mark the *caller's* whole
 * synchronous run, so sibling tasks started by the same code (`Promise.all([task(), task()])`) or
 * code that merely continues after firing a task would look like the holder: a false re-entry,
 * i.e. two tasks inside one critical section. Instead we mark precisely the continuations of the
 * promise that `acquire()` returns: code after `await mutex.acquire()`, `.then` callbacks on it,
 * and every async resource they create in turn. Siblings keep the context they had.
 *
 * Mechanism: an async_hooks `init` hook copies the current frame to each new async resource (what
 * AsyncLocalStorage does), except for promises chained on a promise we handed out, which get that
 * promise's frame. Frames nest, so a holder of lock A that acquires lock B still owns A.
 */
export class OwnerFrame {
  private static nextId = 1;
  /** A small number for diagnostics. */
  readonly id = OwnerFrame.nextId++;
  /** How many acquisitions this frame holds now (locks count it up on hold, down on release). */
  holds = 0;
  /** The nearest enclosing frame that still holds something, if any. */
  readonly parent: OwnerFrame | undefined;

  /**
   * @param parent the current frame. Ancestors that hold nothing any more are skipped: they cannot
   *   own anything, and keeping them would chain every acquisition of a loop
   *   (`for (;;) { await lock.acquire(); ... }`) to all the previous ones — unbounded memory and
   *   ever longer ownership checks.
   */
  constructor(parent: OwnerFrame | undefined) {
    propagateFrames();
    this.parent = OwnerFrame.nearestHolding(parent);
  }

  /** `frame` or its nearest ancestor that holds something (see the constructor). */
  protected static nearestHolding(frame: OwnerFrame | undefined): OwnerFrame | undefined {
    let live = frame;
    while (live !== undefined && live.holds === 0) live = live.parent;
    return live;
  }

  /** This frame and its ancestors, innermost first. */
  *chain(): Generator<OwnerFrame> {
    for (let f: OwnerFrame | undefined = this; f !== undefined; f = f.parent) yield f;
  }
}

const FRAME = Symbol('zk-recipes.ownerFrame');
type Carrier = { [FRAME]?: OwnerFrame };

/** asyncId of a promise we returned → the frame its continuations run in. */
const continuationFrames = new Map<number, OwnerFrame>();
/** Collects entries once the returned promise is garbage collected. */
const forget = new FinalizationRegistry<number>((asyncId) => continuationFrames.delete(asyncId));
let frameForNextPromise: OwnerFrame | undefined;
let lastTaggedAsyncId = -1;

const propagation = createHook({
  init(asyncId, type, triggerAsyncId, resource) {
    if (frameForNextPromise !== undefined && type === 'PROMISE') {
      continuationFrames.set(asyncId, frameForNextPromise);
      lastTaggedAsyncId = asyncId;
      frameForNextPromise = undefined;
    }
    const inherited = continuationFrames.get(triggerAsyncId) ?? (executionAsyncResource() as Carrier)[FRAME];
    if (inherited !== undefined) (resource as Carrier)[FRAME] = inherited;
  },
});
let propagating = false;

/**
 * Starts propagating frames, on first use of this module (a frame made, or the current one asked
 * for): until then no frame exists, so there is nothing to propagate, and a process that never
 * uses a lock owned by async context (a semaphore's leases, a non-reentrant mutex) pays nothing for
 * the hook: an init hook is called for every promise, and reading the current resource makes Node
 * call every native callback through its JavaScript trampoline.
 */
function propagateFrames(): void {
  if (propagating) return;
  propagating = true;
  propagation.enable();
}

/** The owner frame of the running code, if any acquire marked it. */
export function currentFrame(): OwnerFrame | undefined {
  if (!propagating) return undefined; // no frame was ever made
  return (executionAsyncResource() as Carrier)[FRAME];
}

/**
 * Returns `promise.then(onFulfilled, onRejected)` (by default: a promise that settles like
 * `promise`) whose continuations run in `frame`. Call it as the last step before handing the
 * promise to the caller; mapping here saves a promise per acquisition.
 */
export function continueInFrame<T, R = T>(
  frame: OwnerFrame,
  promise: Promise<T>,
  onFulfilled?: (value: T) => R | PromiseLike<R>,
  onRejected?: (reason: unknown) => R | PromiseLike<R>,
): Promise<R> {
  frameForNextPromise = frame;
  const tagged = promise.then(onFulfilled ?? (identity as (value: T) => R), onRejected);
  frameForNextPromise = undefined;
  forget.register(tagged, lastTaggedAsyncId);
  return tagged;
}

function identity<T>(value: T): T {
  return value;
}

/** Runs `fn` with `frame` as the owner context of everything it does. */
export function runInFrame<T>(frame: OwnerFrame, fn: () => T): T {
  propagateFrames();
  const resource = executionAsyncResource() as Carrier;
  const previous = resource[FRAME];
  resource[FRAME] = frame;
  try {
    return fn();
  } finally {
    resource[FRAME] = previous;
  }
}

/**
 * The acquisitions one lock object holds in this process, each owned by an async context
 * (docs/architecture.md, "Ownership by async context"). Through it a lock re-enters, releases
 * without a handle and answers `isOwnedByCurrentContext()`; it keeps each frame's `holds` count,
 * which lets frames that hold nothing drop out of later chains.
 */
export class OwnerHoldings<
  T extends {
    /** The owner frame that holds it. */
    readonly frame: OwnerFrame;
  },
> {
  private readonly holdings = new Set<T>();

  /** How many acquisitions are held. */
  get size(): number {
    return this.holdings.size;
  }

  /** Records `holding`; true when it is the first (the lock starts relaying connection news). */
  add(holding: T): boolean {
    holding.frame.holds++;
    this.holdings.add(holding);
    return this.holdings.size === 1;
  }

  /** Forgets `holding`; true when it was the last one (the lock stops relaying). */
  delete(holding: T): boolean {
    if (!this.holdings.delete(holding)) return false;
    holding.frame.holds--;
    return this.holdings.size === 0;
  }

  /** True if some holding satisfies `predicate`. */
  some(predicate: (holding: T) => boolean): boolean {
    for (const holding of this.holdings) if (predicate(holding)) return true;
    return false;
  }

  /**
   * The holding of the calling async context that `usable` accepts: one of its own frame first,
   * then of its ancestors' (a holder's callees own what it holds).
   */
  ofCurrentContext(usable: (holding: T) => boolean): T | undefined {
    const frame = currentFrame();
    if (frame === undefined) return undefined;
    for (const ancestor of frame.chain()) {
      for (const holding of this.holdings) if (holding.frame === ancestor && usable(holding)) return holding;
    }
    return undefined;
  }
}
