/**
 * ZkSession: a promise API over node-zookeeper-client 1.1.3 with Curator's connection states, our
 * own errors, and a guarantee that no call ever hangs. With the files of `session/` it uses, the
 * only code that touches the wire client (docs/architecture.md, "The session"). This class holds
 * the connection state, the calls and the events; its generations (one ZooKeeper session each, the
 * next after each `lost`) are `generations.ts`'s, which says when the state changes; the bytes of
 * each call are `requests.ts`'s.
 */
import { EventEmitter } from 'eventemitter3';
import { SessionClosedError } from '../errors.js';
import type { RetryPolicy } from '../retry/RetryPolicy.js';
import { exponentialBackoff } from '../retry/index.js';
import { createChroot } from './chroot.js';
import { ConnectFailFast } from './connectFailFast.js';
import { ConnectedWaiters, isConnectedState } from './connectedWaiters.js';
import { OP } from './frames.js';
import type { Generation } from './generation.js';
import { Generations } from './generations.js';
import { mkdirp } from './mkdirp.js';
import { ZK_SESSION_DEFAULTS, parseZkSessionOptions, type ZkSessionOptions, type ZkSessionOptionsInput } from './options.js';
import { assertRequestFits, type OwnRequest } from './ownRequest.js';
import { assertPath, createRequest, decodeChildren, decodeChildrenIfExists, decodeData, decodeDataIfExists, decodeExists, deleteRequest, getAclRequest } from './requests.js';
import { removeWatchesRequest, setAclRequest, setDataRequest, transactionRequest } from './requests.js';
import { SessionEvents } from './sessionEvents.js';
import { SessionScope } from './sessionScope.js';
import type { AclEntry, ConnectionState, CreateOptions, CreateResult, MkdirpOptions, Stat, TransactionOp, TransactionResult, Watcher, ZkSessionEvents } from './types.js';
import type { WatchClass } from './watchRegistry.js';

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
  /** @internal What the layers above keep per session: the lock-queue engine's seats and caches (docs/architecture.md, "Per-session state"). */
  readonly scope = new SessionScope<ZkSession>(this);
  private _state: ConnectionState = 'connecting';
  /** Its ZooKeeper sessions: the current one, and the next after each `lost`. */
  private readonly generations: Generations;
  private closing: Promise<void> | undefined;
  private readonly _retryPolicy: RetryPolicy;
  private readonly delivery = new SessionEvents(this, this);
  private readonly connectedWaiters = new ConnectedWaiters();

  /**
   * Connects and resolves once the first ZooKeeper session is established (and its chroot exists).
   * Rejects, closing everything it opened, with:
   * - `INVALID_ARGUMENT` on bad options, or when every server answered with bytes that are not
   *   ZooKeeper's protocol;
   * - `TLS_HANDSHAKE` ({@link TlsHandshakeError}) when every server failed the TLS handshake in a
   *   way that would repeat (certificate, port), or the plaintext session reached TLS-only ports;
   * - `AUTH_FAILED` ({@link AuthFailedError}) as soon as a server refuses the SASL or digest credentials;
   * - `CONNECTION_LOSS` ({@link ZooKeeperError}) at once when every server is unreachable (its host
   *   name does not resolve, `ENOTFOUND`, or it refused the connection, `ECONNREFUSED`), `cause`
   *   being Node's error; otherwise when no session was established within `connectionTimeoutMs`,
   *   the message saying what each server did (e.g. accepted the connection but never answered the
   *   ZooKeeper handshake), `cause` the last socket error if there was one. Only the first connect
   *   gives up early: once connected, the session reconnects for as long as it may live;
   * - the server's error when the missing chroot cannot be created (`NO_AUTH`...).
   * See docs/security.md.
   */
  static async connect(options: ZkSessionOptionsInput): Promise<ZkSession> {
    const session = new ZkSession(parseZkSessionOptions(options));
    const failFast = new ConnectFailFast(session.options.connectString, session.options.connectionTimeoutMs);
    session.generations.failFast = failFast;
    try {
      await session.waitForConnected(failFast.signal);
      // Digest credentials are answered after the connect response: wait for the verdict (the
      // server answers them before any later request), so refused ones fail here, not later.
      if (session.options.auth.length > 0) await failFast.guard(session.exists('/'));
      await createChroot(session.generations.current.chroot, {
        exists: (path) => session.exists(path),
        createOutsideChroot: (path) =>
          session.call<CreateResult>('create', path, () => createRequest(undefined, path, null, session.options.acl, 'persistent')),
      });
      session.generations.failFast = undefined;
      return session;
    } catch (err) {
      session.generations.failFast = undefined;
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
    this.generations = new Generations(options, {
      closing: () => this.closing !== undefined,
      isConnected: () => this.isConnected,
      transition: (state, reason) => this.setState(state, reason),
      error: (err) => this.delivery.emit('error', err),
    });
  }

  // ---------------------------------------------------------------- properties

  /** Current connection state. */
  get state(): ConnectionState {
    return this._state;
  }

  /** Whether requests can be answered now: the state is `connected` or `reconnected`. */
  get isConnected(): boolean {
    return isConnectedState(this._state);
  }

  /** Current ZooKeeper session id, 16 hex characters ('0000000000000000' before the first connect). */
  get sessionId(): string {
    return this.generations.current.sessionId;
  }

  /** Current ZooKeeper session id as a bigint (compare with `Stat.ephemeralOwner`). */
  get sessionIdBigInt(): bigint {
    return this.generations.current.client.getSessionId().readBigInt64BE(0);
  }

  /** 1 for the first ZooKeeper session; +1 each time a new one is built after `lost`. */
  get generation(): number {
    return this.generations.current.n;
  }

  /**
   * Aborted when the current ZooKeeper session is lost (reason: SessionLostError) or this
   * ZkSession is closed (reason: SessionClosedError, at the start of `close()`). A fresh signal
   * per generation: read it again after `lost`.
   */
  get sessionSignal(): AbortSignal {
    return this.generations.current.abort.signal;
  }

  /** The session timeout the server granted (the requested one until connected). */
  get negotiatedSessionTimeoutMs(): number {
    return this.generations.current.cm.sessionTimeout;
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
    const gen = this.generations.current;
    if (gen.retired || this.closing !== undefined || !gen.established) return undefined;
    if (generation !== undefined && generation !== gen.n) return undefined;
    const now = performance.now();
    if (now < gen.clock.deadline) return now;
    this.generations.outOfTime(gen);
    return undefined;
  }

  /** The retry policy recipes use (the option, or exponentialBackoff(100 ms, 10, 5000 ms)). */
  get retryPolicy(): RetryPolicy {
    return this._retryPolicy;
  }

  /** Default ACL for nodes recipes create. */
  get defaultAcl(): AclEntry[] {
    return this.options.acl;
  }

  // ---------------------------------------------------------------- operations

  /**
   * Creates a node (CREATE2: the reply carries the new node's stat). Mode `container` uses
   * CREATE_CONTAINER: the server deletes the node once its last child is gone.
   */
  create(path: string, data?: Uint8Array | null, options: CreateOptions = {}): Promise<CreateResult> {
    return this.call('create', path, (gen) => createRequest(gen.chroot, path, data, options.acl ?? this.options.acl, options.mode ?? 'persistent'));
  }

  /** Lists a node's children (unsorted, as the server returns them) with its stat. */
  getChildren(path: string, watcher?: Watcher): Promise<{
    /** The children's names (not paths), in the server's order. */
    children: string[];
    /** The node's stat. */
    stat: Stat;
  }> {
    return this.call('getChildren', path, (gen) => gen.read(OP.getChildren2, path, decodeChildren, watcher), watcher ? 'child' : undefined);
  }

  /** Reads a node's data and stat; `watcher` fires on its next change or deletion. */
  getData(path: string, watcher?: Watcher): Promise<{
    /** The node's data. */
    data: Buffer;
    /** The node's stat. */
    stat: Stat;
  }> {
    return this.call('getData', path, (gen) => gen.read(OP.getData, path, decodeData, watcher), watcher ? 'data' : undefined);
  }

  /**
   * {@link getChildren}, but a missing node is an answer, `null`, not a `NO_NODE` error (and no
   * watch is set then): for callers to whom a node already gone is an expected outcome, which then
   * costs no error object.
   */
  getChildrenIfExists(path: string, watcher?: Watcher): Promise<{
    /** The children's names (not paths), in the server's order. */
    children: string[];
    /** The node's stat. */
    stat: Stat;
  } | null> {
    return this.call('getChildren', path, (gen) => gen.read(OP.getChildren2, path, decodeChildrenIfExists, watcher, true), watcher ? 'child' : undefined);
  }

  /** {@link getData}, but a missing node is an answer, `null` (see {@link getChildrenIfExists}). */
  getDataIfExists(path: string, watcher?: Watcher): Promise<{
    /** The node's data. */
    data: Buffer;
    /** The node's stat. */
    stat: Stat;
  } | null> {
    return this.call('getData', path, (gen) => gen.read(OP.getData, path, decodeDataIfExists, watcher, true), watcher ? 'data' : undefined);
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
    const gen = this.generations.current;
    for (const watchClass of gen.forgetIdleWatches(path, watcher)) {
      // While disconnected the server holds no watch of ours: forgetting it here is enough (the
      // reconnection's SetWatches no longer names it).
      if (gen.retired || this.closing || this._state === 'suspended') continue;
      this.call<void>('removeWatches', path, (g) => removeWatchesRequest(g.chroot, path, watchClass))
        // NO_WATCHER (it fired meanwhile) answers it; a lost connection: forgotten anyway
        .catch(() => undefined);
    }
  }

  /**
   * Stops calling `watcher` for `path` (a wait that was given up). Keeps abandoned waits from
   * piling up callbacks on a node that stays put, e.g. a tryAcquire loop against a long holder.
   */
  unwatch(path: string, watcher: Watcher): void {
    this.generations.current.watches.remove(path, watcher);
  }

  /** The node's stat, or null if it does not exist; `watcher` fires on its creation/change/deletion. */
  exists(path: string, watcher?: Watcher): Promise<Stat | null> {
    return this.call('exists', path, (gen) => gen.read<Stat | null>(OP.exists, path, decodeExists, watcher), watcher ? 'data' : undefined);
  }

  /** Deletes a node; `version` -1 (default) means any version. */
  delete(path: string, version = -1): Promise<void> {
    return this.call('delete', path, (gen) => deleteRequest(gen.chroot, path, version));
  }

  /** Sets a node's data; `version` -1 (default) means any version. Resolves with the new stat. */
  setData(path: string, data: Uint8Array, version = -1): Promise<Stat> {
    return this.call('setData', path, (gen) => setDataRequest(gen.chroot, path, data, version));
  }

  /** A node's ACL and stat (GET_ACL; the server asks for READ or ADMIN on the node). */
  getACL(path: string): Promise<{
    /** The node's ACL. */
    acl: AclEntry[];
    /** The node's stat. */
    stat: Stat;
  }> {
    return this.call('getACL', path, (gen) => getAclRequest(gen.chroot, path));
  }

  /**
   * Replaces a node's ACL (SET_ACL; the server asks for ADMIN on the node). `version` is the ACL
   * version (`stat.aversion`), -1 (default) any. Resolves with the new stat.
   */
  setACL(path: string, acl: readonly AclEntry[], version = -1): Promise<Stat> {
    return this.call('setACL', path, (gen) => setAclRequest(gen.chroot, path, acl, version));
  }

  /**
   * Runs the ops atomically (ZooKeeper multi). Versions mean what they say: 0 is version 0, -1
   * (the default for delete/setData) is any version. On failure rejects with the error of the
   * first op that failed (its `path` is that op's path).
   */
  transaction(ops: TransactionOp[]): Promise<TransactionResult[]> {
    return this.call('transaction', undefined, (gen) => transactionRequest(ops, this.options.acl, gen.chroot));
  }

  /**
   * Creates `path` and its missing ancestors (all creates pipelined: one round trip), tolerating
   * NODE_EXISTS races. Containers (mode 'container') may be reaped between creates; retried.
   * `mode` is the mode of `path`; `options.ancestors` that of its missing ancestors (default
   * `mode`), `options.data` the data of `path` if we create it. Every node gets the session's ACL.
   */
  mkdirp(path: string, mode: 'persistent' | 'container' = 'persistent', options: MkdirpOptions = {}): Promise<void> {
    return mkdirp(this, path, mode, options);
  }

  /** Resolves at once if connected; otherwise when (re)connected. Rejects on abort or close. */
  waitForConnected(signal?: AbortSignal): Promise<void> {
    return this.connectedWaiters.wait(this._state, signal);
  }

  /**
   * Closes the ZooKeeper session (the server deletes its ephemeral nodes at once). Calls still
   * pending afterwards reject with SessionClosedError. Idempotent.
   */
  close(): Promise<void> {
    this.closing ??= this.closeNow();
    return this.closing;
  }

  /**
   * `await using session = await ZkSession.connect(...)`: closes the session at the end of the
   * block, as {@link close} does (idempotent: a session already closed stays closed). An open
   * session keeps the process running (its connection and timers), so close it one way or the other.
   */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  // ---------------------------------------------------------------- internals

  private async closeNow(): Promise<void> {
    await this.generations.close();
    this.setState('closed');
  }

  /**
   * Validates, builds and queues one request SYNCHRONOUSLY (pipelining is part of the contract),
   * tracking it so it settles on lost/close even if the wire client forgets it.
   */
  private call<T>(op: string, path: string | undefined, build: (gen: Generation) => OwnRequest, arms?: WatchClass): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (path !== undefined) assertPath(op, path);
      if (this.closing) throw new SessionClosedError(`${op}: ZkSession is closed`, { op, ...(path === undefined ? {} : { path }) });
      const gen = this.generations.current;
      const request = build(gen);
      assertRequestFits(op, path, request, this.options.maxRequestBytes);
      const call = gen.pending.track<T>(op, path, resolve, reject);
      // A request that sets a watch: removeWatches must not remove that watch while it is out.
      if (arms !== undefined && path !== undefined) {
        gen.watches.arming(arms, path);
        call.arm(gen.watches, arms);
      }
      gen.send(request, call.callback);
    });
  }

  /** Where the state changes (as `generations.ts` and close() say): waiters and listeners learn in order. */
  private setState(state: ConnectionState, reason?: Error): void {
    const previous = this._state;
    this._state = state;
    this.connectedWaiters.stateChanged(state);
    this.delivery.transition(state, reason, previous);
  }
}
