/**
 * The demo's in-process part: the other recipes, each with a short narrated scenario.
 * Sections are added as the recipes land.
 */
import type { ZkSession } from '@zk-recipes/core';
import { InterProcessMutex } from '@zk-recipes/mutex';

export async function otherRecipes(session: ZkSession, root: string, say: (line: string) => void): Promise<void> {
  say('\nRe-entrancy by async context:');
  const mutex = new InterProcessMutex(session, `${root}/reentrant`);
  await mutex.withLock(async () => {
    await mutex.withLock(async () => {
      say(`  nested withLock re-entered without a new node (owned by this context: ${mutex.isOwnedByCurrentContext()})`);
    });
    const other = await (async () => {
      // A task started elsewhere is not the holder: it has to wait, so it times out here.
      const stranger = new InterProcessMutex(session, `${root}/reentrant`);
      return stranger.tryAcquire({ timeoutMs: 100 });
    })();
    say(`  another object on the same path from this process: ${other === null ? 'had to wait (timed out after 100 ms)' : 'got it?!'}`);
  });
}
