/**
 * Issue 13, item 5: a waiter whose process stalls past its session must not be granted the lock.
 *
 * Worker side ({@link runStalledWaiter}): process P connects with a short session, starts one
 * acquisition and prints JSON lines: `session` (its id), then on the stdin command `freeze <ms>`
 * `frozen` and a synchronous block of its event loop for `ms` (`Atomics.wait`: a GC pause stand-in;
 * stdout to a pipe is synchronous on Linux, so the line is out before the block), then `thawed`.
 * Its acquisition ends with `granted` (`aborted`: the handle's signal at the grant, `code`: its
 * reason) or `rejected` (`code`). `exit` closes the session and ends the process.
 *
 * Parent side ({@link spawnStalledWaiter}): starts such a worker and reads its lines.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { exponentialBackoff, sessionFailedRetryPolicy, ZkSession } from '@zk-recipes/core';
import { FaultProxy, firstServerAddress, nodeScriptArgs, pollUntil } from '@zk-recipes/testing';
import { codeOf, settledInWait, untilQueue, within } from './adversary.js';

/** The repository root: workers run from here (tsx resolves from it). */
const REPO_ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

/** A line the stalled waiter prints. */
export interface StallLine {
  type: 'session' | 'frozen' | 'thawed' | 'granted' | 'rejected' | 'released';
  sessionId?: string;
  aborted?: boolean;
  code?: string;
  /** process.hrtime.bigint() as a decimal string, when the line was printed. */
  at?: string;
}

function print(line: StallLine): void {
  process.stdout.write(`${JSON.stringify({ ...line, at: process.hrtime.bigint().toString() })}\n`);
}

/** Anything acquired that can be given back and lost: a lock handle, a semaphore lease. */
interface Held {
  readonly signal: AbortSignal;
  release(): Promise<void>;
}

/**
 * The worker's main: `argv` = connectString, lock path, session timeout (ms); `acquire` starts
 * the one acquisition on the session it is given.
 */
export async function runStalledWaiter(acquire: (session: ZkSession, path: string) => Promise<Held>): Promise<void> {
  const [connectString, path, sessionTimeoutArg] = process.argv.slice(2);
  if (connectString === undefined || path === undefined || sessionTimeoutArg === undefined) {
    throw new Error('usage: <worker> <connectString> <lockPath> <sessionTimeoutMs>');
  }
  // P's acquisition ends with its session (RETRIES_EXHAUSTED) instead of enqueueing again on the
  // next one: what matters here is whether the lost session's stale events can grant it.
  const retryPolicy = sessionFailedRetryPolicy(exponentialBackoff({ baseSleepMs: 100, maxRetries: 10, maxSleepMs: 5000 }));
  const session = await ZkSession.connect({ connectString, sessionTimeoutMs: Number(sessionTimeoutArg), retryPolicy });
  print({ type: 'session', sessionId: session.sessionIdBigInt.toString() });
  let held: Held | undefined;
  acquire(session, path).then(
    (handle) => {
      // Recorded at once, in the continuation of the grant: is the handle's signal already aborted?
      held = handle;
      print({ type: 'granted', aborted: handle.signal.aborted, code: codeOf(handle.signal.reason) });
    },
    (reason: unknown) => print({ type: 'rejected', code: codeOf(reason) ?? String(reason) }),
  );
  const lines = createInterface({ input: process.stdin });
  for await (const command of lines) {
    const [verb, arg] = command.trim().split(/\s+/);
    if (verb === 'freeze') {
      print({ type: 'frozen' });
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, Number(arg));
      print({ type: 'thawed' });
    } else if (verb === 'exit') {
      await held?.release().catch(() => undefined);
      await session.close().catch(() => undefined);
      lines.close();
      process.stdin.unref?.();
      return;
    }
  }
}

/** A stalled-waiter process, from the parent's side. */
export interface StalledWaiter {
  readonly child: ChildProcess;
  readonly lines: StallLine[];
  /** Resolves with the first line of one of these types; rejects if the process exits first. */
  next(...types: StallLine['type'][]): Promise<StallLine>;
  send(command: string): void;
  /** Asks it to exit; kills it if it has not within `ms`. */
  stop(ms?: number): Promise<void>;
}

/** Starts `script` (a worker calling {@link runStalledWaiter}) with its arguments. */
export function spawnStalledWaiter(script: string, connectString: string, path: string, sessionTimeoutMs: number): StalledWaiter {
  const child = spawn(process.execPath, [...nodeScriptArgs(script), connectString, path, String(sessionTimeoutMs)], {
    cwd: REPO_ROOT,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const lines: StallLine[] = [];
  let stderr = '';
  let exited = false;
  const listeners = new Set<() => void>();
  const notify = () => {
    for (const listener of [...listeners]) listener();
  };
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  createInterface({ input: child.stdout! }).on('line', (text) => {
    try {
      lines.push(JSON.parse(text) as StallLine);
    } catch {
      stderr += `${text}\n`;
    }
    notify();
  });
  const closed = new Promise<void>((resolve) =>
    child.once('close', () => {
      exited = true;
      notify();
      resolve();
    }),
  );
  return {
    child,
    lines,
    next(...types) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = lines.find((line) => types.includes(line.type));
          if (found !== undefined) {
            listeners.delete(check);
            resolve(found);
          } else if (exited) {
            listeners.delete(check);
            reject(new Error(`stalled waiter exited before a ${types.join('/')} line; stderr: ${stderr}`));
          }
        };
        listeners.add(check);
        check();
      });
    },
    send(command) {
      if (!exited) child.stdin!.write(`${command}\n`);
    },
    async stop(ms = 10_000) {
      if (exited) return;
      child.stdin!.write('exit\n');
      const timer = setTimeout(() => child.kill('SIGKILL'), ms);
      await closed;
      clearTimeout(timer);
    },
  };
}

/** What the stalled-waiter scenario saw: P's outcome line, and whether R still held at that moment. */
export interface StallOutcome {
  /** P's `granted` or `rejected` line. */
  p: StallLine;
  /** R's signal when P's outcome was in (R had been granted and not released). */
  rAborted: boolean;
  /** P's line as the assertion compares it: a grant whose signal was not aborted is the failure. */
  pGrantedLive: boolean;
}

/**
 * The scenario, for any recipe: Q (this process) holds; P (a worker process, short session) waits
 * behind Q; R (this process) waits behind P. P freezes its event loop for 2.5 session timeouts;
 * Q releases while P is frozen; the server expires P's session (P's node goes) and R gets the
 * lock; then P thaws and reads Q's old deletion event. Returns P's outcome while R still holds.
 *
 * Only the expiry's timing is the server's: it comes one session timeout (plus at most a tick)
 * after P's last ping, well inside the 2.5 timeouts P stays frozen; everything else is ordered by
 * lines, watches and round trips.
 */
export async function stalledWaiterScenario(o: {
  /** The worker script (calls {@link runStalledWaiter}). */
  script: string;
  connectString: string;
  /** The recipe's path (what the worker is given). */
  path: string;
  /** Where its queue nodes are (the lock directory; a semaphore's leases). */
  queueDir: string;
  sessionTimeoutMs: number;
  observer: ZkSession;
  /** Q: acquires in this process and returns the handle (its `path` is Q's node). */
  holdQ: () => Promise<Held & { readonly path: string }>;
  /** R: starts acquiring in this process (on `rSession`). */
  startR: () => Promise<Held>;
  rSession: ZkSession;
  /**
   * How P stalls: `block` (default) blocks its event loop from inside (a GC pause stand-in);
   * `sigstop` stops the whole process with SIGSTOP while its loop waits for I/O, and resumes it
   * with SIGCONT once R holds (the server's events for P pile up in its socket meanwhile).
   */
  stall?: 'block' | 'sigstop';
}): Promise<StallOutcome> {
  const q = await o.holdQ();
  // P's traffic passes a proxy, which tells when the server has answered P's watch request.
  const { host, port } = firstServerAddress(o.connectString);
  const proxy = await FaultProxy.start({ targetHost: host, targetPort: port });
  const p = spawnStalledWaiter(o.script, proxy.connectString, o.path, o.sessionTimeoutMs);
  let r: Held | undefined;
  try {
    await within(p.next('session'), 30_000, 'P to connect');
    await untilQueue(o.observer, o.queueDir, 2);
    // P waits for Q once the server has answered its watch request on Q's node (a child watch,
    // deletion only, or a data watch: a getChildren or a getData of that path).
    const watched = () => proxy.answersTo(OP_GET_CHILDREN2, q.path) + proxy.answersTo(OP_GET_DATA, q.path) > 0;
    await pollUntil(watched, 15_000, "P's watch on Q's node");
    const rGrant = o.startR();
    rGrant.catch(() => undefined);
    await untilQueue(o.observer, o.queueDir, 3);
    await settledInWait(o.rSession); // R waits behind P

    if (o.stall === 'sigstop') {
      p.child.kill('SIGSTOP');
      await q.release();
      r = await within(rGrant, o.sessionTimeoutMs * 4, "R to acquire once P's session expired");
      p.child.kill('SIGCONT');
    } else {
      p.send(`freeze ${Math.round(o.sessionTimeoutMs * 2.5)}`);
      await within(p.next('frozen'), 10_000, 'P to freeze');
      await q.release();
      r = await within(rGrant, o.sessionTimeoutMs * 4, "R to acquire once P's session expired");
    }
    const outcome = await within(p.next('granted', 'rejected'), o.sessionTimeoutMs * 4, "P's acquisition to settle after its thaw");
    return { p: outcome, rAborted: r.signal.aborted, pGrantedLive: outcome.type === 'granted' && outcome.aborted === false };
  } finally {
    await r?.release().catch(() => undefined);
    await p.stop();
    await proxy.close();
  }
}

const OP_GET_DATA = 4;
const OP_GET_CHILDREN2 = 12;
