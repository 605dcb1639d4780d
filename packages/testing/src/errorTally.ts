/**
 * Counts the error objects a process builds, for tests that hold the success path to "no error
 * object built": what only a failure needs (a stack trace is captured at construction, whether
 * anyone reads it or not) should cost nothing when nothing fails.
 *
 * Install it BEFORE the code under test is loaded: classes that extend `Error` capture the global
 * `Error` when their module runs, and only those defined after installation are counted. So import
 * this module on its own (`@zk-recipes/testing/errorTally`, which imports nothing of the library),
 * install, then `await import(...)` the library; {@link ErrorTally.covers} tells whether a class is
 * counted. It counts, by constructor name:
 * - every construction of `Error` or of a class extending it (ours, `new Error`, a dependency's),
 *   through a Proxy put in place of the global `Error` (its `construct` and `apply` traps);
 * - `Error.captureStackTrace(obj)` calls, which is how node-zookeeper-client builds its
 *   `Exception` without calling `Error` (counted under `captureStackTrace:<constructor>`);
 * - `AbortController#abort()` and `AbortSignal.abort()` without a reason, which make Node build a
 *   `DOMException` (`AbortError`) inside, where no trap reaches (counted under `AbortError`), and
 *   `new DOMException(...)`.
 * Node's own internal errors (e.g. from `timers/promises` on an abort) use the primordial `Error`
 * and are not seen; they follow an abort, which is.
 *
 * @module @zk-recipes/testing/errorTally
 */

/** Counts by constructor name, and their sum. */
export interface ErrorCounts {
  /** Errors counted, of every kind. */
  total: number;
  /** Errors counted per constructor name (e.g. `NodeDeletedError`, `AbortError`). */
  byName: Record<string, number>;
}

/** Where one counted error was built (with `recordStacks`). */
export interface ErrorSite {
  /** The constructor name it was counted under. */
  name: string;
  /** The error's message (empty for `captureStackTrace` and aborts). */
  message: string;
  /** The stack at construction, from the caller of the constructor on. */
  stack: string;
}

/** The counters of one process, from {@link installErrorTally}. */
export interface ErrorTally {
  /** Everything counted since installation. */
  counts(): ErrorCounts;
  /** Everything counted since `mark` (an earlier {@link counts}). */
  since(mark: ErrorCounts): ErrorCounts;
  /** Whether constructions of `errorClass` are counted (it was defined after installation). */
  covers(errorClass: abstract new (...args: never[]) => Error): boolean;
  /** With true, keeps the stack of every error counted from now on (see {@link sites}). */
  recordStacks(on: boolean): void;
  /** The sites recorded while `recordStacks` was on, oldest first. */
  sites(): readonly ErrorSite[];
}

const INSTALLED = Symbol.for('@zk-recipes/testing/errorTally');

interface Installed {
  tally: ErrorTally;
}

/** Installs the counters (once per process: later calls return the same tally). */
export function installErrorTally(): ErrorTally {
  const g = globalThis as typeof globalThis & { [INSTALLED]?: Installed };
  const existing = g[INSTALLED];
  if (existing !== undefined) return existing.tally;

  const RealError = globalThis.Error;
  const RealDOMException = globalThis.DOMException;
  const counts = new Map<string, number>();
  let total = 0;
  let recording = false;
  const sites: ErrorSite[] = [];
  const count = (name: string, built?: unknown): void => {
    total++;
    counts.set(name, (counts.get(name) ?? 0) + 1);
    if (recording) {
      // Built with the real constructor (bypassing the trap): not counted itself.
      const probe = Reflect.construct(RealError, []) as Error;
      const message = typeof (built as { message?: unknown })?.message === 'string' ? (built as { message: string }).message : '';
      sites.push({ name, message, stack: (probe.stack ?? '').split('\n').slice(3).join('\n') });
    }
  };

  const CountingError = new Proxy(RealError, {
    construct(target, args, newTarget) {
      const built = Reflect.construct(target, args, newTarget) as object;
      count((newTarget as { name?: string }).name ?? 'anonymous', built);
      return built;
    },
    apply(target, thisArg, args) {
      const built = Reflect.apply(target, thisArg, args) as unknown;
      count('Error', built);
      return built;
    },
  });
  globalThis.Error = CountingError;

  const realCapture = RealError.captureStackTrace.bind(RealError);
  RealError.captureStackTrace = (targetObject: object, constructorOpt?: Function): void => {
    count(`captureStackTrace:${(targetObject as { constructor?: { name?: string } }).constructor?.name ?? 'object'}`);
    realCapture(targetObject, constructorOpt);
  };

  const realAbort = AbortController.prototype.abort;
  AbortController.prototype.abort = function abort(this: AbortController, reason?: unknown): void {
    if (reason === undefined && !this.signal.aborted) count('AbortError');
    realAbort.call(this, reason);
  };
  const realStaticAbort = AbortSignal.abort.bind(AbortSignal);
  AbortSignal.abort = (reason?: unknown): AbortSignal => {
    if (reason === undefined) count('AbortError');
    return realStaticAbort(reason);
  };
  globalThis.DOMException = new Proxy(RealDOMException, {
    construct(target, args, newTarget) {
      const built = Reflect.construct(target, args, newTarget) as object;
      count('DOMException', built);
      return built;
    },
  });

  const snapshot = (): ErrorCounts => ({ total, byName: Object.fromEntries(counts) });
  const tally: ErrorTally = {
    counts: snapshot,
    since(mark) {
      const byName: Record<string, number> = {};
      for (const [name, n] of counts) {
        const d = n - (mark.byName[name] ?? 0);
        if (d !== 0) byName[name] = d;
      }
      return { total: total - mark.total, byName };
    },
    covers(errorClass) {
      // A counted class has the counting Error in its prototype chain of constructors.
      for (let c: unknown = errorClass; c !== null && c !== undefined; c = Object.getPrototypeOf(c)) {
        if (c === CountingError) return true;
      }
      return false;
    },
    recordStacks(on) {
      recording = on;
    },
    sites: () => [...sites],
  };
  g[INSTALLED] = { tally };
  return tally;
}
