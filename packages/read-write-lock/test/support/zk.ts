import net from 'node:net';
import { isZkError, type ZkSession } from '@zk-recipes/core';
import { listAndWatchChildren } from '@zk-recipes/core/recipe-kit';
import { FaultProxy, testConnectString } from '@zk-recipes/testing';

/** The children of `path` ([] when it does not exist), sorted by name. */
export async function childrenOf(session: ZkSession, path: string): Promise<string[]> {
  try {
    return (await session.getChildren(path)).children.sort();
  } catch (err) {
    if (isZkError(err, 'NO_NODE')) return [];
    throw err;
  }
}

/** Resolves with the children of `path` once `accept` says yes, woken by child watches (no polling). */
export async function untilChildren(
  session: ZkSession,
  path: string,
  accept: (children: string[]) => boolean,
  timeoutMs = 15_000,
): Promise<string[]> {
  const signal = AbortSignal.timeout(timeoutMs);
  for (;;) {
    const { children, changed } = await listAndWatchChildren(session, path, signal);
    if (accept(children)) return children;
    await changed;
  }
}

/** A FaultProxy in front of the test server (the first of `testConnectString()`): connect a session through it. */
export function proxyToTestServer(): Promise<FaultProxy> {
  const [host, port] = testConnectString().split(',')[0]!.split('/')[0]!.split(':') as [string, string];
  return FaultProxy.start({ targetHost: host, targetPort: Number(port) });
}

/** A promise with its resolve function outside. */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/**
 * Resolves once some session has a data or exists watch on `path`, asking the server with the
 * `wchp` four-letter word (watches by path) every 20 ms until it does. ZooKeeper 3.8 lists no child
 * watches there: a waiter of ours watches a node with one (see `FaultProxy.answersTo` for those).
 * Used to know that another process (e.g. a JVM, whose Curator sets data watches) has decided to
 * wait for a node.
 */
export async function untilWatched(connectString: string, path: string, timeoutMs = 15_000): Promise<void> {
  const [host, port] = connectString.split(',')[0]!.split('/')[0]!.split(':');
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const answer = await fourLetter(host!, Number(port), 'wchp');
    if (answer.split('\n').some((line) => line.trim() === path)) return;
    if (Date.now() > deadline) throw new Error(`no watch on ${path} within ${timeoutMs} ms; wchp said:\n${answer}`);
    // The server offers no notification for "a watch was set": ask again shortly.
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function fourLetter(host: string, port: number, word: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, host, () => socket.end(word));
    let answer = '';
    socket.setEncoding('utf8').on('data', (chunk: string) => (answer += chunk));
    socket.once('error', reject);
    socket.once('close', () => resolve(answer));
  });
}
