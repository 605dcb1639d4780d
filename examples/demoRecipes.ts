/**
 * The demo's in-process part: the other recipes, each with a short narrated scenario. Every
 * contender has its own ZooKeeper session, as separate services would.
 */
import { ZkSession } from '@zk-recipes/core';
import { InterProcessMultiLock } from '@zk-recipes/multi-lock';
import { InterProcessMutex } from '@zk-recipes/mutex';
import { InterProcessReadWriteLock } from '@zk-recipes/read-write-lock';
import { InterProcessSemaphore } from '@zk-recipes/semaphore';

type Say = (line: string) => void;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A tiny timeline: each line shows who is inside, as a bar per contender. */
class Timeline {
  private readonly start = Date.now();
  private readonly inside = new Set<string>();
  constructor(
    private readonly names: readonly string[],
    private readonly say: Say,
  ) {}
  enter(name: string, note = ''): void {
    this.inside.add(name);
    this.print(`${name} in${note}`);
  }
  leave(name: string): void {
    this.inside.delete(name);
    this.print(`${name} out`);
  }
  get count(): number {
    return this.inside.size;
  }
  private print(what: string): void {
    const t = `${((Date.now() - this.start) / 1000).toFixed(3).padStart(6)}s`;
    const lanes = this.names.map((n) => (this.inside.has(n) ? '██' : '··')).join(' ');
    this.say(`  ${t}  ${lanes}  ${what}`);
  }
}

export async function otherRecipes(connectString: string, root: string, say: Say): Promise<void> {
  const sessions: ZkSession[] = [];
  const connect = async () => {
    const session = await ZkSession.connect({ connectString });
    sessions.push(session);
    return session;
  };
  try {
    await reentrancy(await connect(), root, say);
    await readWriteLock(connect, root, say);
    await semaphore(connect, root, say);
    await multiLock(connect, root, say);
  } finally {
    await Promise.all(sessions.map((s) => s.close()));
  }
}

async function reentrancy(session: ZkSession, root: string, say: Say): Promise<void> {
  say('\nRe-entrancy by async context (InterProcessMutex):');
  const mutex = new InterProcessMutex(session, `${root}/reentrant`);
  await mutex.withLock(async () => {
    await mutex.withLock(async () => {
      say(`  nested withLock re-entered without a new node (owned by this context: ${mutex.isOwnedByCurrentContext()})`);
    });
  });
  const task = async (name: string) => {
    await mutex.withLock(async () => {
      say(`  ${name} holds the lock`);
      await sleep(100);
    });
  };
  await Promise.all([task('task A'), task('task B')]);
  say('  two independent tasks of one process took turns, as two processes would');
}

async function readWriteLock(connect: () => Promise<ZkSession>, root: string, say: Say): Promise<void> {
  const names = ['reader-1', 'reader-2', 'reader-3', 'writer-1', 'writer-2'];
  say(`\nInterProcessReadWriteLock: readers share, writers exclude (lanes: ${names.join(', ')})`);
  const timeline = new Timeline(names, say);
  let maxReaders = 0;
  const reader = async (name: string, delayMs: number) => {
    const rw = new InterProcessReadWriteLock(await connect(), `${root}/rw`);
    await sleep(delayMs);
    await rw.readLock().withLock(async () => {
      timeline.enter(name);
      maxReaders = Math.max(maxReaders, timeline.count);
      await sleep(200);
      timeline.leave(name);
    });
  };
  const writer = async (name: string, delayMs: number) => {
    const rw = new InterProcessReadWriteLock(await connect(), `${root}/rw`);
    await sleep(delayMs);
    await rw.writeLock().withLock(async () => {
      timeline.enter(name, timeline.count === 0 ? " (alone)" : " (NOT ALONE!)");
      await sleep(150);
      timeline.leave(name);
    });
  };
  await Promise.all([reader('reader-1', 0), reader('reader-2', 20), writer('writer-1', 60), reader('reader-3', 120), writer('writer-2', 140)]);
  say(`  up to ${maxReaders} readers held the lock together; each writer held it alone; reader-3, arriving after a waiting writer, queued behind it`);
}

async function semaphore(connect: () => Promise<ZkSession>, root: string, say: Say): Promise<void> {
  const names = Array.from({ length: 6 }, (_, i) => `client-${i + 1}`);
  say(`\nInterProcessSemaphore: 3 leases, 6 clients (lanes: ${names.join(', ')})`);
  const timeline = new Timeline(names, say);
  let maxInside = 0;
  await Promise.all(
    names.map(async (name) => {
      const semaphore = new InterProcessSemaphore(await connect(), `${root}/semaphore`, { maxLeases: 3 });
      const lease = await semaphore.acquire();
      timeline.enter(name);
      maxInside = Math.max(maxInside, timeline.count);
      await sleep(150);
      timeline.leave(name);
      await lease.release();
    }),
  );
  say(`  at most ${maxInside} clients held a lease at once; each release let the next waiter in`);
}

async function multiLock(connect: () => Promise<ZkSession>, root: string, say: Say): Promise<void> {
  say('\nInterProcessMultiLock: all or nothing over several locks');
  const paths = [`${root}/accounts/b`, `${root}/accounts/a`];
  const blocker = new InterProcessMutex(await connect(), paths[0]!);
  const blocked = await blocker.acquire();
  const multi = InterProcessMultiLock.fromPaths(await connect(), paths);
  const attempt = await multi.tryAcquire({ timeoutMs: 200 });
  say(`  with ${paths[0]} held elsewhere: ${attempt === null ? 'gave up after 200 ms and released the locks it had taken' : 'acquired?!'}`);
  await blocked.release();
  await multi.withLock(async (handle) => {
    say(`  then took both, in canonical order: ${handle.lockPaths.join(', ')} (fencing tokens ${handle.fencingTokens.join(', ')})`);
  });
  // Two clients listing the same locks in opposite orders cannot deadlock: both use path order.
  const crossed = await Promise.all(
    [paths, [...paths].reverse()].map(async (order) => {
      const lock = InterProcessMultiLock.fromPaths(await connect(), order);
      for (let i = 0; i < 5; i++) await lock.withLock(() => sleep(10));
      return 5;
    }),
  );
  say(`  two clients with crossed orders each finished ${crossed.join(' and ')} rounds: no deadlock`);
}
