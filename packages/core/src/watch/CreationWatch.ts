import type { ZkSession } from '../session/ZkSession.js';
import type { Watcher } from '../session/types.js';

/** Where a {@link CreationWatch} reports. */
export interface CreationSink {
  /** The node exists (it did when the watch was set, or it was created since). */
  created(): void;
  /** The watch is set and the node was absent then: from now on its creation is reported. */
  absent(): void;
  /** The request failed (e.g. the connection was lost). */
  creationWatchFailed(reason: unknown): void;
}

/**
 * Watches for a node that should not exist: an `exists` watch on its path. While the node stays
 * absent the watch sits on the server, so {@link cancel} removes it there (REMOVE_WATCHES) when
 * the wait ends: a wait per hand-off must not leave a watch per hand-off behind.
 */
export class CreationWatch {
  private ended = false;
  private readonly watcher: Watcher = () => {
    if (this.end()) this.sink.created();
  };

  constructor(
    private readonly session: ZkSession,
    private readonly path: string,
    private readonly sink: CreationSink,
  ) {}

  begin(): void {
    this.session.exists(this.path, this.watcher).then(
      (stat) => {
        // Cancelled while the request was out: the watch it set has nobody to tell.
        if (this.ended) {
          this.session.removeWatches(this.path, this.watcher);
          return;
        }
        if (stat === null) {
          this.sink.absent();
        } else if (this.end()) {
          this.session.unwatch(this.path, this.watcher); // its change or deletion would fire it: nobody to tell
          this.sink.created();
        }
      },
      (err: unknown) => {
        if (this.end()) this.sink.creationWatchFailed(err);
      },
    );
  }

  /** Ends the watch without reporting; its server-side watch is removed. */
  cancel(): void {
    if (this.end()) this.session.removeWatches(this.path, this.watcher);
  }

  private end(): boolean {
    if (this.ended) return false;
    this.ended = true;
    return true;
  }
}
