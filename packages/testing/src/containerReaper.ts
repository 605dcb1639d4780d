import type { ZkSession } from '@zk-recipes/core';
import { waitUntilGone } from '@zk-recipes/core/recipe-kit';

/**
 * Resolves once the server's container reaper has run a whole round that began after this call:
 * a canary container under `parent`, used and emptied now, is removed by such a round. Tests that
 * show a node is *not* reaped wait for this instead of sleeping "long enough".
 */
export async function reaperRound(session: ZkSession, parent: string, timeoutMs = 30_000): Promise<void> {
  const canary = `${parent}/reaper-canary-${process.pid}-${Date.now().toString(36)}`;
  await session.create(canary, null, { mode: 'container' });
  // The reaper leaves a container that never had a child alone.
  await session.create(`${canary}/used`, null);
  await session.delete(`${canary}/used`);
  const outcome = await waitUntilGone(session, canary, AbortSignal.timeout(timeoutMs));
  if (outcome !== 'gone') throw new Error(`reaperRound: canary ${canary} ended as ${outcome}, not gone`);
}
