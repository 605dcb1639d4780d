/**
 * What a holder's handle says when it is read (docs/architecture.md, "What a handle says when
 * read"), the scenarios every recipe's handle is put through: this process stopped past its
 * session (the first read after waking, before any timer of ours has run), `release()` called
 * while the delete's reply is held back, and `session.close()`.
 */
import { ZkSession } from '@zk-recipes/core';
import { FaultProxy, testConnectString } from '@zk-recipes/testing';
import { afterEach } from 'vitest';
import { codeOf } from './adversary.js';

/** What every handle, lease and leadership has. */
export interface Readable {
  readonly held: boolean;
  readonly signal: AbortSignal;
}

/** Which of the two is read first after the process wakes. */
export type ReadOrder = 'signal first' | 'held first';
export const READ_ORDERS: readonly ReadOrder[] = ['signal first', 'held first'];

/** A handle's `held` and `signal` as one comparable record (the signal's reason by its code). */
export interface Reading {
  held: boolean;
  aborted: boolean;
  reason: string | undefined;
}

/** Reads `handle` in `order`, both in one synchronous run: nothing else of ours runs in between. */
export function readNow(handle: Readable, order: ReadOrder = 'signal first'): Reading {
  let held: boolean;
  let signal: AbortSignal;
  if (order === 'signal first') {
    signal = handle.signal;
    const aborted = signal.aborted;
    held = handle.held;
    return { held, aborted, reason: aborted ? codeOf(signal.reason) : undefined };
  }
  held = handle.held;
  signal = handle.signal;
  return { held, aborted: signal.aborted, reason: signal.aborted ? codeOf(signal.reason) : undefined };
}

/**
 * Blocks this process (`Atomics.wait`: no timer, no I/O callback of ours runs, as under SIGSTOP or
 * a long GC pause) for longer than `session` may live without us: by its clock, the server may have
 * expired it and deleted its nodes when this returns.
 */
export function freezePast(session: ZkSession): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, session.negotiatedSessionTimeoutMs + 200);
}

/** Sessions (direct, or through a fault proxy of their own) closed after each test. */
export interface HandleReadsFixture {
  connect(sessionTimeoutMs?: number): Promise<ZkSession>;
  /** A session whose frames pass a {@link FaultProxy} of its own (e.g. to hold its replies back). */
  connectThroughProxy(sessionTimeoutMs?: number): Promise<{ session: ZkSession; proxy: FaultProxy }>;
}

export function useHandleReadsFixture(): HandleReadsFixture {
  let sessions: ZkSession[] = [];
  let proxies: FaultProxy[] = [];
  afterEach(async () => {
    const [open, listening] = [sessions, proxies];
    [sessions, proxies] = [[], []];
    for (const proxy of listening) proxy.heal();
    await Promise.all(open.map((s) => s.close()));
    await Promise.all(listening.map((p) => p.close()));
  });
  const connect = async (sessionTimeoutMs = 10_000, connectString = testConnectString()): Promise<ZkSession> => {
    const session = await ZkSession.connect({ connectString, sessionTimeoutMs });
    sessions.push(session);
    return session;
  };
  return {
    connect: (sessionTimeoutMs) => connect(sessionTimeoutMs),
    async connectThroughProxy(sessionTimeoutMs) {
      const [host, port] = testConnectString().split(',')[0]!.split('/')[0]!.split(':') as [string, string];
      const proxy = await FaultProxy.start({ targetHost: host, targetPort: Number(port) });
      proxies.push(proxy);
      return { session: await connect(sessionTimeoutMs, proxy.connectString), proxy };
    },
  };
}

/** Resolves with 'suspended' when `session` drops its connection (the liveness watchdog's verdict on a server that answers nothing). */
export function suspension(session: ZkSession): Promise<'suspended'> {
  return new Promise((resolve) => session.once('suspended', () => resolve('suspended')));
}
