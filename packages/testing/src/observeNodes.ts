/**
 * Observing the server from tests: what is in a lock directory, and waiting until it holds what a
 * test expects — with a child watch, so tests wait for the event, not for a timer.
 */
import type { ZkSession } from '@zk-recipes/core';

function isNoNode(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === 'NO_NODE';
}

/** The children of `path` right now; `[]` if the node does not exist. */
export async function childrenOf(session: ZkSession, path: string): Promise<string[]> {
  try {
    return (await session.getChildren(path)).children;
  } catch (err) {
    if (isNoNode(err)) return [];
    throw err;
  }
}

/**
 * Resolves once `path` has exactly `count` children, woken by child watches (a missing node counts
 * as 0 children and is watched with `exists` until it appears). Rejects after `timeoutMs`.
 */
export async function untilChildCount(session: ZkSession, path: string, count: number, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let wake!: () => void;
    const changed = new Promise<void>((resolve) => (wake = resolve));
    let children: string[];
    try {
      children = (await session.getChildren(path, () => wake())).children;
    } catch (err) {
      if (!isNoNode(err)) throw err;
      children = [];
      if ((await session.exists(path, () => wake())) !== null) continue;
    }
    if (children.length === count) return;
    const left = deadline - Date.now();
    if (left <= 0) throw new Error(`untilChildCount: ${path} has ${children.length} children, not ${count}, after ${timeoutMs} ms`);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([changed, new Promise<void>((resolve) => (timer = setTimeout(resolve, left)))]);
    clearTimeout(timer);
  }
}

/**
 * Polls `fn` until it returns a truthy value (for conditions that no watch reports, e.g. the
 * server's view of sessions); rejects after `timeoutMs`.
 */
export async function pollUntil<T>(fn: () => Promise<T> | T, timeoutMs: number, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
