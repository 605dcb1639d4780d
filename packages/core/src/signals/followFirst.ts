/** A signal that aborts with the first of several, and the way to stop following them. */
export interface LinkedSignal {
  /** Aborts with the first of the sources to abort, with its reason. */
  readonly signal: AbortSignal;
  /** Stops following the sources: `signal` no longer aborts with them, and they hold nothing of it. */
  unlink(): void;
}

/**
 * Like `AbortSignal.any(sources)`, but undone explicitly. Node 20 keeps a combined signal that has
 * 'abort' listeners alive until it aborts, and leaves a record in each source for every signal
 * combined from it: a multi-lock taken in a loop with one long-lived caller signal grew by ~5 KB
 * an acquisition (measured, 50,000 acquisitions). Here each link is one listener, removed when the
 * acquisition or the holding ends.
 */
export function followFirst(sources: readonly AbortSignal[]): LinkedSignal {
  const controller = new AbortController();
  const aborted = sources.find((source) => source.aborted);
  if (aborted !== undefined) {
    controller.abort(aborted.reason);
    return { signal: controller.signal, unlink: () => undefined };
  }
  const links = sources.map((source) => {
    const follow = (): void => controller.abort(source.reason);
    source.addEventListener('abort', follow, { once: true });
    return { source, follow };
  });
  return {
    signal: controller.signal,
    unlink: () => {
      for (const { source, follow } of links) source.removeEventListener('abort', follow);
    },
  };
}
