/**
 * ZkSession: a promise API over node-zookeeper-client 1.1.3 with Curator's connection states, our
 * own errors, and a guarantee that no call ever hangs. The only code that touches the wire client.
 */
import { EventEmitter } from 'eventemitter3';
import {
  AuthFailedError,
  InvalidArgumentError,
  SessionClosedError,
  SessionLostError,
  TlsHandshakeError,
  ZkRecipesError,
  ZooKeeperError,
} from '../errors.js';
import type { RetryPolicy } from '../retry/RetryPolicy.js';
import { exponentialBackoff } from '../retry/index.js';
import { WireReplyError, fromZkCode, toZkError } from './errorMapping.js';
import { OP } from './frames.js';
import { LivenessWatchdog, lostMarginMs, type WatchdogInput, type WirePhase } from './livenessWatchdog.js';
import { ZK_SESSION_DEFAULTS, parseZkSessionOptions, type ZkSessionOptions, type ZkSessionOptionsInput } from './options.js';
import { PendingCalls } from './pendingCalls.js';
import {
  assertPath,
  createRequest,
  decodeAcl,
  decodeChildren,
  decodeCreated,
  decodeData,
  decodeTransaction,
  deleteRequest,
  getAclRequest,
  readRequest,
  removeWatchesRequest,
  setAclRequest,
  setDataRequest,
  transactionRequest,
} from './requests.js';
import type {
  AclEntry,
  ConnectionState,
  CreateMode,
  CreateOptions,
  CreateResult,
  MkdirpOptions,
  Stat,
  TransactionOp,
  TransactionResult,
  WatchEvent,
  WatchEventType,
  Watcher,
  ZkSessionEvents,
} from './types.js';
import { CM_STATES, createWireClient, currentServer, forgetWireWatcher, type ConnectionManager, type WireClient, type WireEvent } from './wire.js';
import { OwnRequest, PING_REQUEST, installHardening } from './wireHardening.js';
import { WireClock } from './wireClock.js';
import { connectOverTls } from './tlsSocket.js';
import { createChroot, type ChrootSession } from './chroot.js';
import { ConnectFailFast } from './connectFailFast.js';
import { digestAuthFailed } from './digestAuthFailure.js';
import { pathAndAncestors } from '../nodes/pathAndAncestors.js';
import { detectTlsPorts } from './tlsPortProbe.js';
import { WatchRegistry, type WatchClass, type WatchKind } from './watchRegistry.js';
import { SaslHandshake } from './sasl/saslHandshake.js';
import { SessionScope } from './sessionScope.js';

const WIRE_EVENT_TYPES: Record<number, WatchEventType> = {
  1: 'created',
  2: 'deleted',
  3: 'dataChanged',
  4: 'childrenChanged',
};

/** How long close() waits for the server to confirm the session close before dropping the socket. */
const CLOSE_WAIT_MS = 2_000;

/** One ZooKeeper session (one wire client); a ZkSession builds a new one after each `lost`. */
class Generation {
  readonly abort = new AbortController();
  readonly pending = new PendingCalls();
  readonly watches: WatchRegistry;
  readonly cm: ConnectionManager;
  established = false;
  retired = false;
  /** Send and reply times of this generation's frames: the liveness clock. */
  readonly clock: WireClock;
  socket: unknown = undefined;
  socketSince: number;
  /** This generation's connect, when it waits (after refused credentials: see `ZkSession.authFailed`). */
  connectTimer: ReturnType<typeof setTimeout> | undefined;
  constructor(
    readonly n: number,
    readonly client: WireClient,
    onWatcherError: (err: Error) => void,
  ) {
    this.cm = client.connectionManager;
    this.watches = new WatchRegistry(onWatcherError);
    const now = performance.now();
    this.clock = new WireClock(now, this.cm.sessionTimeout);
    this.socketSince = now;
  }
}

/**
 * A ZooKeeper session with Curator's connection states.
 *
 * - Every operation is queued on the wire synchronously inside the call, so calls issued back to
 *   back are pipelined on one connection and answered in order.
 * - Every call settles: with its result, with our error ({@link ZooKeeperError},
 *   {@link SessionLostError} on `lost`, {@link SessionClosedError} after `close()`).
 * - Events: `connected`, `suspended`, `reconnected`, `lost`, `closed` (and `state` for each),
 *   `error` for failures we recovered from (including exceptions thrown by your listeners and
 *   watchers, which never escape as uncaught exceptions).
 */
export class ZkSession extends EventEmitter<ZkSessionEvents> {
  /** Validated options, defaults applied. */
  readonly options: ZkSessionOptions;
  // --- issue 15, per-session scope: the one hook of the layers above (docs/architecture.md, "Per-session state")
  /** @internal What the layers above keep per session (the lock-queue engine's seats and caches). */
  readonly scope = new SessionScope<ZkSession>(this);
  // --- end per-session scope
  private _state: ConnectionState = 'connecting';
  /** Set by connect() while it waits for the first session: failures that end the wait at once. */
  private failFast: ConnectFailFast | undefined;
  private gen: Generation;
  private closing: Promise<void> | undefined;
  private readonly watchdog: LivenessWatchdog;
  private readonly _retryPolicy: RetryPolicy;
  private readonly emitQueue: Array<() => void> = [];
  private emitScheduled = false;
  private stateWaiters = new Set<() => void>();

  /**
   * Connects and resolves once the first ZooKeeper session is established (and its chroot exists).
   * Rejects, closing everything it opened, with:
   * - `INVALID_ARGUMENT` on bad options, or when every server answered with bytes that are not
   *   ZooKeeper's protocol;
   * - `TLS_HANDSHAKE` ({@link TlsHandshakeError}) when every server failed the TLS handshake in a
   *   way that would repeat (certificate, port), or the plaintext session reached TLS-only ports;
   * - `AUTH_FAILED` ({@link AuthFailedError}) as soon as a server refuses the SASL or digest credentials;
   * - `CONNECTION_LOSS` ({@link ZooKeeperError}) when no server answered within `connectionTimeoutMs`;
   * - the server's error when the missing chroot cannot be created (`NO_AUTH`...).
   * See docs/security.md.
   */
  static async connect(options: ZkSessionOptionsInput): Promise<ZkSession> {
    const session = new ZkSession(parseZkSessionOptions(options));
    const failFast = new ConnectFailFast(session.options.connectString, session.options.connectionTimeoutMs);
    session.failFast = failFast;
    try {
      await session.waitForConnected(failFast.signal);
      // Digest credentials are answered after the connect response: wait for the verdict (the
      // server answers them before any later request), so refused ones fail here, not later.
      if (session.options.auth.length > 0) await failFast.guard(session.exists('/'));
      await createChroot(session.gen.cm.chrootPath, session.chrootSession());
      session.failFast = undefined;
      return session;
    } catch (err) {
      session.failFast = undefined;
      await session.close();
      throw failFast.errorFor(err);
    } finally {
      failFast.dispose();
    }
  }

  private constructor(options: ZkSessionOptions) {
    super();
    this.options = options;
    this._retryPolicy = options.retryPolicy ?? exponentialBackoff(ZK_SESSION_DEFAULTS.retry);
    this.gen = this.buildGeneration(1);
    this.watchdog = new LivenessWatchdog(
      () => this.sampleLiveness(),
      (verdict) => {
        const gen = this.gen;
        if (gen.retired) return;
        if (verdict === 'lost') {
          this.declareLost(gen, this.noReplyError(gen));
        } else if (verdict === 'ping') {
          gen.cm.queue(PING_REQUEST, noop);
        } else {
          // Silent server (SIGSTOP, partition): move to the next server (work-around 3).
          gen.cm.socket?.destroy();
        }
      },
    );
    this.watchdog.start();
  }

  // ---------------------------------------------------------------- properties

  /** Current connection state. */
  get state(): ConnectionState {
    return this._state;
  }

  /** Whether requests can be answered now: the state is `connected` or `reconnected`. */
  get isConnected(): boolean {
    return this._state === 'connected' || this._state === 'reconnected';
  }

  /** Current ZooKeeper session id, 16 hex characters ('0000000000000000' before the first connect). */
  get sessionId(): string {
    return this.gen.client.getSessionId().toString('hex');
  }

  /** Current ZooKeeper session id as a bigint (compare with `Stat.ephemeralOwner`). */
  get sessionIdBigInt(): bigint {
    return this.gen.client.getSessionId().readBigInt64BE(0);
  }

  /** 1 for the first ZooKeeper session; +1 each time a new one is built after `lost`. */
  get generation(): number {
    return this.gen.n;
  }

  /**
   * Aborted when the current ZooKeeper session is lost (reason: SessionLostError) or this
   * ZkSession is closed (reason: SessionClosedError, at the start of `close()`). A fresh signal
   * per generation: read it again after `lost`.
   */
  get sessionSignal(): AbortSignal {
    return this.gen.abort.signal;
  }

  /** The session timeout the server granted (the requested one until connected). */
  get negotiatedSessionTimeoutMs(): number {
    return this.gen.cm.sessionTimeout;
  }

  /**
   * Whether the server cannot yet have expired the current ZooKeeper session, judged on our own
   * clock: now is before `lastAnsweredSentAt + negotiatedSessionTimeoutMs - margin` (the send time
   * of the last request a server answered; see `livenessWatchdog.ts` for the margin). The lock
   * engine asks this right before every grant: events read late (after a stall of this process)
   * prove nothing about the session. When the deadline has passed, the session is declared lost
   * (every handle's `signal` aborts, `lost` is emitted) before this returns false.
   *
   * With `generation`, also false when the current generation is another one (the seat belongs to
   * a session already lost). False, without declaring anything, while the current generation has
   * no session yet (after `lost`, before `connected`) and after `close()`. One clock read and a
   * compare: cheap enough for every grant.
   */
  stillAlive(generation?: number): boolean {
    return this.aliveAt(generation) !== undefined;
  }

  /**
   * {@link stillAlive}, returning the clock reading (`performance.now()`) it judged by, or
   * `undefined` where that returns false: the moment a grant is made.
   */
  aliveAt(generation?: number): number | undefined {
    const gen = this.gen;
    if (gen.retired || this.closing !== undefined || !gen.established) return undefined;
    if (generation !== undefined && generation !== gen.n) return undefined;
    const now = performance.now();
    if (now < gen.clock.deadline) return now;
    this.declareLost(gen, this.noReplyError(gen));
    return undefined;
  }

  /** @internal for tests: the liveness clock of the current generation (performance.now() times). */
  get livenessClock(): { lastAnsweredSentAt: number; lostDeadline: number; marginMs: number } {
    const gen = this.gen;
    return {
      lastAnsweredSentAt: gen.clock.lastAnsweredSentAt,
      lostDeadline: gen.clock.deadline,
      marginMs: lostMarginMs(gen.cm.sessionTimeout),
    };
  }

  /** The retry policy recipes use (the option, or exponentialBackoff(100 ms, 10, 5000 ms)). */
  get retryPolicy(): RetryPolicy {
    return this._retryPolicy;
  }

  /** Default ACL for nodes recipes create. */
  get defaultAcl(): AclEntry[] {
    return this.options.acl;
  }

  /** @internal for tests: raw credentials of the current session */
  get credentials(): { sessionId: Buffer; password: Buffer } {
    return { sessionId: this.gen.client.getSessionId(), password: this.gen.client.getSessionPassword() };
  }

  /** @internal for tests: counts of outstanding calls and watches of the current generation. */
  get diagnostics(): { pendingCalls: number; watchKeys: number; watchers: number } {
    return {
      pendingCalls: this.gen.pending.size,
      watchKeys: this.gen.watches.keys,
      watchers: this.gen.watches.watchers,
    };
  }

  // ---------------------------------------------------------------- operations

  /**
   * Creates a node (CREATE2: the reply carries the new node's stat). Mode `container` uses
   * CREATE_CONTAINER: the server deletes the node once its last child is gone.
   */
  create(path: string, data?: Uint8Array | null, options: CreateOptions = {}): Promise<CreateResult> {
    return this.call<CreateResult>('create', path, (gen) => {
      const chroot = gen.cm.chrootPath;
      const { type, body } = createRequest(chroot, path, data, options.acl ?? this.options.acl, options.mode ?? 'persistent');
      return new OwnRequest(type, body, (r) => decodeCreated(r, chroot));
    });
  }

  /** Lists a node's children (unsorted, as the server returns them) with its stat. */
  getChildren(path: string, watcher?: Watcher): Promise<{ children: string[]; stat: Stat }> {
    return this.call(
      'getChildren',
      path,
      (gen) => {
        const { type, body } = readRequest(OP.getChildren2, gen.cm.chrootPath, path, watcher !== undefined);
        return new OwnRequest(type, body, (r) => {
          const listing = decodeChildren(r);
          if (watcher) this.addWatch(gen, 'child', path, watcher);
          return listing;
        });
      },
      watcher === undefined ? undefined : 'child',
    );
  }

  /** Reads a node's data and stat; `watcher` fires on its next change or deletion. */
  getData(path: string, watcher?: Watcher): Promise<{ data: Buffer; stat: Stat }> {
    return this.call(
      'getData',
      path,
      (gen) => {
        const { type, body } = readRequest(OP.getData, gen.cm.chrootPath, path, watcher !== undefined);
        return new OwnRequest(type, body, (r) => {
          const read = decodeData(r);
          if (watcher) this.addWatch(gen, 'data', path, watcher);
          return read;
        });
      },
      watcher === undefined ? undefined : 'data',
    );
  }

  /**
   * Stops calling `watcher` for `path` (every kind of watch) and removes from the server (REMOVE_WATCHES,
   * ZooKeeper 3.5+, not awaited) and from the wire client (so no reconnection sets it again) each
   * watch that no other watcher of this session still needs, unless a request that sets such a
   * watch is in flight. For a wait given up on a node that stays put: its later change or deletion
   * would otherwise still be sent to, and wake, this process. Costs one request per watch removed;
   * {@link unwatch} costs none but leaves the watches until they fire.
   */
  removeWatches(path: string, watcher: Watcher): void {
    const gen = this.gen;
    for (const { watchClass, entries } of gen.watches.takeIfIdle(path, watcher)) {
      for (const { kind, entry } of entries) if (entry.wire !== undefined) forgetWireWatcher(gen.cm, kind, path, entry.wire);
      // While disconnected the server holds no watch of ours: forgetting it here is enough (the
      // reconnection's SetWatches no longer names it).
      if (gen.retired || this.closing || this._state === 'suspended') continue;
      this.call<void>('removeWatches', path, (g) => {
        const { type, body } = removeWatchesRequest(g.cm.chrootPath, path, watchClass);
        return new OwnRequest(type, body, () => undefined);
      }).catch(() => undefined); // NO_WATCHER: it fired meanwhile; a lost connection: forgotten anyway
    }
  }

  /**
   * Stops calling `watcher` for `path` (a wait that was given up). Keeps abandoned waits from
   * piling up callbacks on a node that stays put, e.g. a tryAcquire loop against a long holder.
   */
  unwatch(path: string, watcher: Watcher): void {
    this.gen.watches.remove(path, watcher);
  }

  /** The node's stat, or null if it does not exist; `watcher` fires on its creation/change/deletion. */
  exists(path: string, watcher?: Watcher): Promise<Stat | null> {
    return this.call(
      'exists',
      path,
      (gen) => {
        const { type, body } = readRequest(OP.exists, gen.cm.chrootPath, path, watcher !== undefined);
        return new OwnRequest(
          type,
          body,
          (r, header) => {
            if (header.err === -101) {
              if (watcher) this.addWatch(gen, 'exist', path, watcher);
              return null;
            }
            if (header.err !== 0) return fromZkCode(header.err, 'exists', path);
            const stat = r.stat();
            if (watcher) this.addWatch(gen, 'data', path, watcher);
            return stat;
          },
          true,
        );
      },
      watcher === undefined ? undefined : 'data',
    );
  }

  /** Deletes a node; `version` -1 (default) means any version. */
  delete(path: string, version = -1): Promise<void> {
    return this.call('delete', path, (gen) => {
      const { type, body } = deleteRequest(gen.cm.chrootPath, path, version);
      return new OwnRequest(type, body, () => undefined);
    });
  }

  /** Sets a node's data; `version` -1 (default) means any version. Resolves with the new stat. */
  setData(path: string, data: Uint8Array, version = -1): Promise<Stat> {
    return this.call('setData', path, (gen) => {
      const { type, body } = setDataRequest(gen.cm.chrootPath, path, data, version);
      return new OwnRequest(type, body, (r) => r.stat());
    });
  }

  /** A node's ACL and stat (GET_ACL; the server asks for READ or ADMIN on the node). */
  getACL(path: string): Promise<{ acl: AclEntry[]; stat: Stat }> {
    return this.call('getACL', path, (gen) => {
      const { type, body } = getAclRequest(gen.cm.chrootPath, path);
      return new OwnRequest(type, body, (r) => decodeAcl(r));
    });
  }

  /**
   * Replaces a node's ACL (SET_ACL; the server asks for ADMIN on the node). `version` is the ACL
   * version (`stat.aversion`), -1 (default) any. Resolves with the new stat.
   */
  setACL(path: string, acl: readonly AclEntry[], version = -1): Promise<Stat> {
    return this.call('setACL', path, (gen) => {
      const { type, body } = setAclRequest(gen.cm.chrootPath, path, acl, version);
      return new OwnRequest(type, body, (r) => r.stat());
    });
  }

  /**
   * Runs the ops atomically (ZooKeeper multi). Versions mean what they say: 0 is version 0, -1
   * (the default for delete/setData) is any version. On failure rejects with the error of the
   * first op that failed (its `path` is that op's path).
   */
  transaction(ops: TransactionOp[]): Promise<TransactionResult[]> {
    return this.call('transaction', undefined, (gen) => {
      const chroot = gen.cm.chrootPath;
      const { type, body } = transactionRequest(ops, this.options.acl, chroot);
      return new OwnRequest(type, body, (r, header) => decodeTransaction(r, header, ops, chroot), true);
    });
  }

  /**
   * Creates `path` and its missing ancestors (all creates pipelined: one round trip), tolerating
   * NODE_EXISTS races. Containers (mode 'container') may be reaped between creates; retried.
   * `mode` is the mode of `path`; `options.ancestors` that of its missing ancestors (default
   * `mode`), `options.data` the data of `path` if we create it. Every node gets the session's ACL.
   */
  async mkdirp(path: string, mode: 'persistent' | 'container' = 'persistent', options: MkdirpOptions = {}): Promise<void> {
    assertPath('mkdirp', path);
    if (path === '/') return;
    const prefixes = pathAndAncestors(path);
    const ancestors = options.ancestors ?? mode;
    const createOne = (p: string): Promise<CreateResult> =>
      p === path ? this.create(p, options.data ?? null, { mode }) : this.create(p, null, { mode: ancestors });
    for (let attempt = 0; ; attempt++) {
      const results = await Promise.allSettled(prefixes.map(createOne));
      const failure = results.find(
        (r): r is PromiseRejectedResult => r.status === 'rejected' && !(r.reason instanceof ZkRecipesError && r.reason.code === 'NODE_EXISTS'),
      );
      if (!failure) return;
      const err = failure.reason as unknown;
      // NO_NODE: an ancestor vanished between creates (a reaped container): try again.
      if (err instanceof ZkRecipesError && err.code === 'NO_NODE' && attempt < 3) continue;
      throw err;
    }
  }

  /** What `createChroot` needs: creates outside the chroot, with the session's ACL. */
  private chrootSession(): ChrootSession {
    return {
      exists: (path) => this.exists(path),
      createOutsideChroot: (path) =>
        this.call<CreateResult>('create', path, () => {
          const { type, body } = createRequest(undefined, path, null, this.options.acl, 'persistent');
          return new OwnRequest(type, body, (r) => decodeCreated(r, undefined));
        }),
    };
  }

  /** Resolves at once if connected; otherwise when (re)connected. Rejects on abort or close. */
  waitForConnected(signal?: AbortSignal): Promise<void> {
    if (this.isConnected) return Promise.resolve();
    if (this._state === 'closed') return Promise.reject(new SessionClosedError('ZkSession is closed', { op: 'waitForConnected' }));
    return new Promise<void>((resolve, reject) => {
      const onAbort = (): void => {
        this.stateWaiters.delete(check);
        reject(signal?.reason instanceof Error ? signal.reason : new Error('aborted', { cause: signal?.reason }));
      };
      const check = (): void => {
        if (this.isConnected) {
          this.stateWaiters.delete(check);
          signal?.removeEventListener('abort', onAbort);
          resolve();
        } else if (this._state === 'closed') {
          this.stateWaiters.delete(check);
          signal?.removeEventListener('abort', onAbort);
          reject(new SessionClosedError('ZkSession is closed', { op: 'waitForConnected' }));
        }
      };
      if (signal?.aborted) return onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      this.stateWaiters.add(check);
    });
  }

  /**
   * Closes the ZooKeeper session (the server deletes its ephemeral nodes at once). Calls still
   * pending afterwards reject with SessionClosedError. Idempotent.
   */
  close(): Promise<void> {
    if (this.closing) return this.closing;
    this.closing = this.doClose();
    return this.closing;
  }

  private async doClose(): Promise<void> {
    this.watchdog.stop();
    const gen = this.gen;
    // Everything that waits on this session (acquisitions, holders' signals) learns now, with
    // SESSION_CLOSED, that it ends: before the close request can make the server delete our nodes
    // (a waiter seeing its own node go would otherwise report a foreign delete), and not as a
    // session loss. Calls already sent still get their replies below.
    const closedError = new SessionClosedError('ZkSession was closed');
    gen.abort.abort(closedError);
    const connected = gen.cm.state === CM_STATES.CONNECTED || gen.cm.state === CM_STATES.CONNECTED_READ_ONLY;
    if (connected) {
      // Queue CLOSE_SESSION behind the calls already sent; they get their replies first.
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(CLOSE_WAIT_MS, gen.cm.sessionTimeout));
        gen.cm.on('state', (s) => {
          if (s === CM_STATES.CLOSED) {
            clearTimeout(timer);
            resolve();
          }
        });
        gen.client.close();
      });
    }
    this.retire(gen, closedError, (call) =>
      new SessionClosedError(`${call.op}${call.path ? ` ${call.path}` : ''}: ZkSession was closed`, {
        op: call.op,
        ...(call.path === undefined ? {} : { path: call.path }),
      }),
    );
    this.setState('closed');
  }

  // ---------------------------------------------------------------- internals

  /** eventemitter3 keeps `{ fn, context, once }` records; `listeners()` would lose `once`. */
  private rawListeners(event: keyof ZkSessionEvents): RawListener[] {
    const events = (this as unknown as { _events: Record<string, RawListener | RawListener[] | undefined> })._events;
    const key = (this as unknown as { constructor: { prefixed?: string | boolean } }).constructor.prefixed;
    const entry = events[(typeof key === 'string' ? key : '') + event];
    if (!entry) return [];
    return Array.isArray(entry) ? [...entry] : [entry];
  }

  /**
   * Validates, builds and queues one request SYNCHRONOUSLY (pipelining is part of the contract),
   * tracking it so it settles on lost/close even if the wire client forgets it.
   */
  private call<T>(op: string, path: string | undefined, build: (gen: Generation) => OwnRequest, arms?: WatchClass): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (path !== undefined) assertPath(op, path);
      if (this.closing) throw new SessionClosedError(`${op}: ZkSession is closed`, { op, ...(path === undefined ? {} : { path }) });
      const gen = this.gen;
      const request = build(gen);
      if (request.frameLength > this.options.maxRequestBytes) {
        throw new InvalidArgumentError(
          `${op}: the request is ${request.frameLength} bytes, over the servers' limit of ${this.options.maxRequestBytes} (jute.maxbuffer; the session's maxRequestBytes): not sent`,
          { op, ...(path === undefined ? {} : { path }) },
        );
      }
      // A request that sets a watch: removeWatches must not remove that watch while it is out.
      let onResolve: (value: T) => void = resolve;
      let onReject: (error: Error) => void = reject;
      if (arms !== undefined && path !== undefined) {
        gen.watches.armStarted(arms, path);
        const ended = () => gen.watches.armEnded(arms, path);
        onResolve = (value) => {
          ended();
          resolve(value);
        };
        onReject = (error) => {
          ended();
          reject(error);
        };
      }
      const settle = gen.pending.track<T>(op, path, onResolve, onReject);
      gen.cm.queue(request, (error, response) => {
        if (error) settle.reject(toZkError(error, op, path));
        else settle.resolve(response as T);
      });
    });
  }

  private addWatch(gen: Generation, kind: WatchKind, path: string, watcher: Watcher): void {
    if (gen.retired) return;
    const entry = gen.watches.add(kind, path, watcher);
    if (!entry) return;
    const wireWatcher = (event: WireEvent): void => {
      const type = WIRE_EVENT_TYPES[event.getType()];
      if (type) gen.watches.fire(entry, { type, path } satisfies WatchEvent);
    };
    entry.wire = wireWatcher;
    if (kind === 'data') gen.cm.registerDataWatcher(path, wireWatcher);
    else if (kind === 'child') gen.cm.registerChildWatcher(path, wireWatcher);
    else gen.cm.registerExistenceWatcher(path, wireWatcher);
  }

  private buildGeneration(n: number, connectDelayMs = 0): Generation {
    const client = createWireClient(this.options.connectString, this.options.sessionTimeoutMs);
    const gen = new Generation(n, client, (err) => this.emitSafe('error', err));
    const onWireError = (err: Error): void => {
      if (gen.retired) return;
      // Before the first session, during connect(): connect() fails with one clear error.
      if (!gen.established && this.failFast !== undefined) {
        this.failFast.serverFailed(err, err instanceof TlsHandshakeError ? err.address : currentServer(gen.cm).address);
      } else {
        this.emitSafe('error', err);
      }
    };
    installHardening(gen.cm, {
      clock: gen.clock,
      now: () => performance.now(),
      onError: onWireError,
      isDisposed: () => gen.retired,
      replyError: (zkCode) => new WireReplyError(zkCode),
      // SASL on every connection, before the wire client may send anything else (docs/security.md).
      connecting: this.saslHandshake(gen),
    });
    // TLS on every connection of the generation; without it, a TLS-only port is named as such.
    const tls = this.options.tls;
    if (tls !== undefined) connectOverTls(gen.cm, tls, onWireError);
    else detectTlsPorts(gen.cm, () => !gen.retired && !gen.established && this.failFast !== undefined, onWireError);
    gen.cm.on('state', (s) => this.onWireState(gen, s));
    for (const a of this.options.auth) client.addAuthInfo(a.scheme, Buffer.from(a.credentials));
    if (connectDelayMs > 0) gen.connectTimer = setTimeout(() => client.connect(), connectDelayMs);
    else client.connect();
    return gen;
  }

  private saslHandshake(gen: Generation): SaslHandshake['onConnectingFrame'] | undefined {
    const sasl = this.options.sasl;
    if (sasl === undefined) return undefined;
    return new SaslHandshake(sasl, {
      cm: gen.cm,
      clock: gen.clock,
      now: () => performance.now(),
      onFailed: (err) => this.authFailed(gen, err),
    }).onConnectingFrame;
  }

  /**
   * The servers refused our SASL or digest credentials (or could not prove they know the SASL
   * password). While connect() waits, it rejects at once. Later (the servers' users changed): an
   * `error` event, and the session ends, since its holders can no longer act as themselves; the
   * next one is tried a session timeout later, not at once: every refused attempt leaves a
   * server session behind until it expires.
   */
  private authFailed(gen: Generation, err: AuthFailedError): void {
    if (gen.retired || gen !== this.gen || this.closing) return;
    if (this.failFast !== undefined) {
      this.failFast.authFailed(err);
      return;
    }
    this.emitSafe('error', err);
    const reason = new SessionLostError(`ZooKeeper session ended: ${err.message}`, { cause: err });
    const delayMs = this.options.sessionTimeoutMs;
    if (gen.established) {
      this.declareLost(gen, reason, delayMs);
      return;
    }
    // Not established: already reported lost (its predecessor's end); try again later, quietly.
    this.retire(gen, reason, lostCallError(reason));
    this.gen = this.buildGeneration(gen.n + 1, delayMs);
  }

  private onWireState(gen: Generation, s: number): void {
    if (gen.retired || gen !== this.gen || this.closing) return;
    switch (s) {
      case CM_STATES.CONNECTED:
      case CM_STATES.CONNECTED_READ_ONLY:
        if (!gen.established) {
          gen.established = true;
          this.setState('connected');
        } else {
          this.setState('reconnected');
        }
        break;
      case CM_STATES.DISCONNECTED:
        if (this.isConnected) this.setState('suspended');
        break;
      case CM_STATES.SESSION_EXPIRED:
        this.declareLost(gen, new SessionLostError(`ZooKeeper session 0x${this.sessionId} expired (the server said so)`));
        break;
      case CM_STATES.AUTHENTICATION_FAILED:
        this.authFailed(gen, digestAuthFailed(this.options.auth));
        break;
      default:
        break;
    }
  }

  /** Ends a generation: abort its signal, settle its calls, drop its watches, silence its wire client. */
  private retire(gen: Generation, reason: SessionLostError | SessionClosedError, callError: (call: { op: string; path: string | undefined }) => Error): void {
    if (gen.retired) return;
    gen.retired = true;
    clearTimeout(gen.connectTimer);
    gen.watches.dropAll();
    gen.abort.abort(reason);
    gen.pending.failAll(callError);
    const cm = gen.cm;
    // No reconnect from here on; a connect already under way is torn down as soon as it opens.
    cm.connect = () => undefined;
    cm.onSocketConnected = function (this: ConnectionManager) {
      this.socket?.destroy();
    };
    // Requests still queued were rejected above: they must never reach a server afterwards (the
    // wire client would write them, on the retired session, when closing).
    cm.packetQueue.queue.length = 0;
    const socket = cm.socket;
    const live = (cm.state === CM_STATES.CONNECTED || cm.state === CM_STATES.CONNECTED_READ_ONLY) && socket !== undefined && socket.writable;
    if (cm.state !== CM_STATES.CLOSED && cm.state !== CM_STATES.CLOSING) {
      try {
        // Queues CLOSE_SESSION; on a live connection the wire client writes it at once.
        gen.client.close();
      } catch {
        // the wire client refuses in odd states; the socket teardown below is what matters
      }
    }
    if (live) {
      // We declared the session lost while its connection still looks writable (e.g. a stall of
      // ours past the deadline, or a server that hears us but whose answers do not reach us):
      // let the CLOSE_SESSION leave, so a server that does hear us ends the session (and deletes
      // its ephemeral nodes) now instead of a session timeout later. Safe: every signal of this
      // generation was aborted above, and nothing else of it is written any more (the queue was
      // emptied, pings stop outside CONNECTED, reconnects are disabled). `end()` flushes the
      // corked write and half-closes; the socket is destroyed shortly after in any case.
      socket.end();
      setTimeout(() => socket.destroy(), Math.min(CLOSE_WAIT_MS, Math.floor(cm.sessionTimeout / 3))).unref();
    } else {
      socket?.destroy();
    }
  }

  private declareLost(gen: Generation, reason: SessionLostError, connectDelayMs = 0): void {
    if (gen.retired || gen !== this.gen || this.closing) return;
    this.retire(gen, reason, lostCallError(reason));
    this.setState('lost', reason);
    this.gen = this.buildGeneration(gen.n + 1, connectDelayMs);
  }

  private sampleLiveness(): WatchdogInput {
    const gen = this.gen;
    const cm = gen.cm;
    const now = performance.now();
    const clock = gen.clock;
    if (cm.socket !== gen.socket) {
      gen.socket = cm.socket;
      gen.socketSince = now;
    }
    let phase: WirePhase = 'other';
    if (cm.state === CM_STATES.CONNECTED || cm.state === CM_STATES.CONNECTED_READ_ONLY) phase = 'connected';
    else if (cm.state === CM_STATES.CONNECTING && cm.socket && !cm.socket.destroyed && !cm.socket.connecting) phase = 'connecting';
    return {
      now,
      phase,
      phaseSince: gen.socketSince,
      lastReceivedAt: clock.lastReceivedAt,
      lastSentAt: clock.lastSentAt,
      lastAnsweredSentAt: clock.lastAnsweredSentAt,
      oldestUnansweredSentAt: clock.oldestUnansweredSentAt,
      lastRepliedAt: clock.lastRepliedAt,
      established: gen.established,
      sessionTimeoutMs: cm.sessionTimeout,
      // The wire client times out the TCP connect; we time out the connect RESPONSE (a stopped
      // server's kernel still accepts the TCP connection).
      connectTimeoutMs: Math.min(cm.connectTimeout, Math.floor(cm.sessionTimeout / 3)),
    };
  }

  private noReplyError(gen: Generation): SessionLostError {
    const timeout = gen.cm.sessionTimeout;
    return new SessionLostError(
      `no reply from any server to a request sent in the last ${timeout - lostMarginMs(timeout)} ms ` +
        `(session timeout ${timeout} ms less a ${lostMarginMs(timeout)} ms margin): ` +
        `the server may expire session 0x${this.sessionId} before we could hear of it`,
    );
  }

  private setState(state: ConnectionState, reason?: Error): void {
    this._state = state;
    for (const check of [...this.stateWaiters]) check();
    this.emitSafe('state', state);
    switch (state) {
      case 'connected':
        this.emitSafe('connected');
        break;
      case 'suspended':
        this.emitSafe('suspended');
        break;
      case 'reconnected':
        this.emitSafe('reconnected');
        break;
      case 'lost':
        this.emitSafe('lost', reason ?? new SessionLostError('session lost'));
        break;
      case 'closed':
        this.emitSafe('closed');
        break;
      default:
        break;
    }
  }

  /**
   * Emits outside the wire client's socket handler, in order, catching what listeners throw
   * (reported as `error`; a throwing `error` listener is reported as a process warning).
   */
  private emitSafe<E extends keyof ZkSessionEvents>(event: E, ...args: Parameters<ZkSessionEvents[E]>): void {
    this.emitQueue.push(() => {
      if (event === 'error' && this.rawListeners('error').length === 0) {
        // Never throw for an unheard 'error' (Node would); but do not hide it either.
        process.emitWarning(`ZkSession error with no 'error' listener: ${String(args[0])}`);
        return;
      }
      for (const { fn, context, once } of this.rawListeners(event)) {
        if (once) this.removeListener(event, fn as never, context, true);
        try {
          fn.apply(context, args);
        } catch (err) {
          if (event === 'error') process.emitWarning(`ZkSession 'error' listener threw: ${String(err)}`);
          else this.emitSafe('error', err instanceof Error ? err : new Error(String(err)));
        }
      }
    });
    if (!this.emitScheduled) {
      this.emitScheduled = true;
      queueMicrotask(() => {
        this.emitScheduled = false;
        while (this.emitQueue.length > 0) this.emitQueue.shift()!();
      });
    }
  }
}

interface RawListener {
  fn: (...args: unknown[]) => void;
  context: unknown;
  once: boolean;
}

function noop(): void {}

/** The error a call of a lost generation rejects with. */
function lostCallError(reason: SessionLostError): (call: { op: string; path: string | undefined }) => Error {
  return (call) =>
    new SessionLostError(`${call.op}${call.path ? ` ${call.path}` : ''}: ${reason.message}`, {
      op: call.op,
      ...(call.path === undefined ? {} : { path: call.path }),
      cause: reason,
    });
}
