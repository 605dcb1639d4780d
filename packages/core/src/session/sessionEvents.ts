/**
 * How a `ZkSession` emits: outside the wire client's socket handler, in order, and catching what
 * listeners throw (reported as `error`; a throwing `error` listener, or an `error` nobody listens
 * to, as a process warning). Never an uncaught exception from a listener (docs/architecture.md,
 * "The wire client's sharp edges", 6).
 */
import type { EventEmitter } from 'eventemitter3';
import { SessionLostError } from '../errors.js';
import type { ConnectionState, ZkSessionEvents } from './types.js';
import { publishSessionState, sessionChannel } from '../diagnostics/channels.js';
import { debugSessionState } from '../diagnostics/debug.js';

/** What the diagnostics say about the session whose state changes. */
interface StateSource {
  readonly sessionId: string;
  readonly generation: number;
}

/** eventemitter3's listener record: `listeners()` would lose `once`. */
interface RawListener {
  fn: (...args: unknown[]) => void;
  context: unknown;
  once: boolean;
}

export class SessionEvents {
  private readonly queue: Array<() => void> = [];
  private scheduled = false;

  constructor(
    private readonly emitter: EventEmitter<ZkSessionEvents>,
    /** The session, for the `zk-recipes:session` channel and NODE_DEBUG (docs/observability.md). */
    private readonly source?: StateSource,
  ) {}

  /** Emits `event` in a microtask, after everything emitted before it. */
  emit<E extends keyof ZkSessionEvents>(event: E, ...args: Parameters<ZkSessionEvents[E]>): void {
    this.queue.push(() => {
      if (event === 'error' && this.rawListeners('error').length === 0) {
        // Never throw for an unheard 'error' (Node would); but do not hide it either.
        process.emitWarning(`ZkSession error with no 'error' listener: ${String(args[0])}`);
        return;
      }
      for (const { fn, context, once } of this.rawListeners(event)) {
        if (once) this.emitter.removeListener(event, fn as never, context, true);
        try {
          fn.apply(context, args);
        } catch (err) {
          if (event === 'error') process.emitWarning(`ZkSession 'error' listener threw: ${String(err)}`);
          else this.emit('error', err instanceof Error ? err : new Error(String(err)));
        }
      }
    });
    if (!this.scheduled) {
      this.scheduled = true;
      queueMicrotask(() => {
        this.scheduled = false;
        while (this.queue.length > 0) this.queue.shift()!();
      });
    }
  }

  /**
   * A state change: `state` with the new state, then the event named after it (`lost` with its
   * reason). The diagnostics hear it at once, with the state it left.
   */
  transition(state: ConnectionState, reason?: Error, previous?: ConnectionState): void {
    const source = this.source;
    if (source !== undefined && previous !== undefined) {
      if (sessionChannel.hasSubscribers) publishSessionState(source, state, previous, reason);
      debugSessionState(source, state, previous);
    }
    this.emit('state', state);
    switch (state) {
      case 'connected':
      case 'suspended':
      case 'reconnected':
      case 'closed':
        this.emit(state);
        break;
      case 'lost':
        this.emit('lost', reason ?? new SessionLostError('session lost'));
        break;
      default:
        break;
    }
  }

  /** eventemitter3 keeps `{ fn, context, once }` records under its (maybe prefixed) event keys. */
  private rawListeners(event: keyof ZkSessionEvents): RawListener[] {
    const events = (this.emitter as unknown as { _events: Record<string, RawListener | RawListener[] | undefined> })._events;
    const key = (this.emitter as unknown as { constructor: { prefixed?: string | boolean } }).constructor.prefixed;
    const entry = events[(typeof key === 'string' ? key : '') + event];
    if (!entry) return [];
    return Array.isArray(entry) ? [...entry] : [entry];
  }
}
