import { execFile } from 'node:child_process';
import { getEventListeners } from 'node:events';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { nodeScriptArgs } from '@zk-recipes/testing';
import { isZkError, MultiReleaseError, type LockHandle } from '@zk-recipes/core';
import { currentFrame } from '@zk-recipes/core/recipe-kit';
import { EventEmitter } from 'eventemitter3';
import { beforeEach, describe, expect, it } from 'vitest';
import { InterProcessMultiLock } from '../src/index.js';
import { lose, MemoryLock } from './support/MemoryLock.js';

/** The multi-lock's own logic over in-process members (no server; see *.int.test.ts for ZooKeeper). */
describe('InterProcessMultiLock over in-process members', () => {
  beforeEach(() => {
    MemoryLock.log.length = 0;
  });

  it('acquires in canonical order and releases in reverse', async () => {
    const [a, b, c] = [new MemoryLock('/a'), new MemoryLock('/b'), new MemoryLock('/c')];
    const multi = new InterProcessMultiLock([c, a, b]);
    const handle = await multi.acquire();
    expect(handle.lockPaths).toEqual(['/a', '/b', '/c']);
    expect(handle.paths).toEqual(['/a/node', '/b/node', '/c/node']);
    expect(handle.fencingTokens).toHaveLength(3);
    expect([a.isHeld, b.isHeld, c.isHeld]).toEqual([true, true, true]);
    await handle.release();
    expect(MemoryLock.log).toEqual(['acquire /a -', 'acquire /b -', 'acquire /c -', 'release /c', 'release /b', 'release /a']);
    expect([a.isHeld, b.isHeld, c.isHeld]).toEqual([false, false, false]);
    await expect(handle.release()).rejects.toMatchObject({ code: 'NOT_OWNER' });
  });

  it('keeps the given order with order: as-given', async () => {
    const multi = new InterProcessMultiLock([new MemoryLock('/b'), new MemoryLock('/a')], { order: 'as-given' });
    await (await multi.acquire()).release();
    expect(MemoryLock.log.slice(0, 2)).toEqual(['acquire /b -', 'acquire /a -']);
  });

  it('crossed lists deadlock with as-given order (broken only by a timeout) but not with the canonical order', async () => {
    const [a, b] = [new MemoryLock('/a'), new MemoryLock('/b')];
    const crossed = (order: 'as-given' | 'canonical') =>
      Promise.allSettled([
        new InterProcessMultiLock([a, b], { order }).withLock(() => 'first', { timeoutMs: 100 }),
        new InterProcessMultiLock([b, a], { order }).withLock(() => 'second', { timeoutMs: 100 }),
      ]);
    // Each holds its first lock and waits for the other's: only the first timeout breaks it.
    const deadlocked = await crossed('as-given');
    const timedOut = deadlocked.filter((result) => result.status === 'rejected' && isZkError(result.reason, 'LOCK_TIMEOUT'));
    expect(timedOut.length).toBeGreaterThanOrEqual(1);
    expect([a.isHeld, b.isHeld]).toEqual([false, false]);
    const canonical = await crossed('canonical');
    expect(canonical).toEqual([
      { status: 'fulfilled', value: 'first' },
      { status: 'fulfilled', value: 'second' },
    ]);
  });

  it('rolls back what it holds, last first, when the last member times out', async () => {
    const [a, b, c] = [new MemoryLock('/a'), new MemoryLock('/b'), new MemoryLock('/c')];
    const blocker = await c.acquire();
    MemoryLock.log.length = 0;
    const multi = new InterProcessMultiLock([a, b, c]);
    const error = await multi.acquire({ timeoutMs: 60 }).catch((err: unknown) => err);
    expect(isZkError(error, 'LOCK_TIMEOUT')).toBe(true);
    expect((error as Error).message).toContain('/c');
    expect(MemoryLock.log.slice(-2)).toEqual(['release /b', 'release /a']);
    expect([a.isHeld, b.isHeld]).toEqual([false, false]);
    expect(multi.isAcquiredInThisProcess()).toBe(false);
    await blocker.release();
  });

  it('shares one deadline: later members get only what is left', async () => {
    const [a, b] = [new MemoryLock('/a'), new MemoryLock('/b')];
    const blockerA = await a.acquire();
    const multi = new InterProcessMultiLock([a, b]);
    const before = performance.now();
    const pending = multi.acquire({ timeoutMs: 5_000 });
    // The deadline started inside that call, so at or before this moment.
    const calledAt = performance.now();
    // The first member is asked (blockerA's was its first request): with all but what passed since the call.
    while (a.received.length < 2) await new Promise((resolve) => setImmediate(resolve));
    const firstAskedBy = performance.now();
    // 80 ms of real time must pass while the first member waits, counted from after the call: a
    // timer set before it counts from its own start, and a busy machine can pause us between the two.
    while (performance.now() - calledAt < 80) await new Promise((resolve) => setTimeout(resolve, 10));
    const waitedMs = performance.now() - calledAt;
    await blockerA.release();
    const handle = await pending;
    const [first, second] = [a.received.at(-1)!.timeoutMs!, b.received.at(-1)!.timeoutMs!];
    expect(first).toBeLessThanOrEqual(5_000);
    expect(first).toBeGreaterThanOrEqual(5_000 - Math.ceil(firstAskedBy - before));
    expect(second).toBeLessThanOrEqual(Math.ceil(5_000 - waitedMs));
    await handle.release();
  });

  it('tryAcquire gives each member one try and resolves null, holding nothing, when one is busy', async () => {
    const [a, b] = [new MemoryLock('/a'), new MemoryLock('/b')];
    const blocker = await b.acquire();
    const multi = new InterProcessMultiLock([a, b]);
    expect(await multi.tryAcquire()).toBeNull();
    expect(a.received.at(-1)!.timeoutMs).toBe(0);
    expect(a.isHeld).toBe(false);
    await blocker.release();
    const handle = await multi.tryAcquire();
    expect(handle?.held).toBe(true);
    await handle!.release();
  });

  it('stops at once on abort mid-acquisition and releases what it holds', async () => {
    const [a, b, c] = [new MemoryLock('/a'), new MemoryLock('/b'), new MemoryLock('/c')];
    const blocker = await b.acquire();
    const controller = new AbortController();
    const multi = new InterProcessMultiLock([a, b, c]);
    const pending = multi.acquire({ signal: controller.signal });
    while (b.received.length < 2) await new Promise((resolve) => setImmediate(resolve));
    controller.abort(new Error('user gave up'));
    await expect(pending).rejects.toMatchObject({ code: 'ABORTED' });
    expect(a.isHeld).toBe(false);
    expect(c.received).toHaveLength(0);
    await expect(multi.acquire({ signal: controller.signal })).rejects.toMatchObject({ code: 'ABORTED' });
    expect(a.isHeld).toBe(false);
    await blocker.release();
  });

  it('stops waiting as soon as a member it already holds is lost (SESSION_LOST), and rolls back', async () => {
    const [a, b] = [new MemoryLock('/a'), new MemoryLock('/b')];
    const blocker = await b.acquire();
    const multi = new InterProcessMultiLock([a, b]);
    const pending = multi.acquire({ timeoutMs: 10_000 });
    while (b.received.length < 2) await new Promise((resolve) => setImmediate(resolve));
    const reason = new Error('session of /a expired');
    lose(a.current!, reason);
    const error = await pending.catch((err: unknown) => err);
    expect(isZkError(error, 'SESSION_LOST')).toBe(true);
    expect((error as Error).cause).toBe(reason);
    expect(a.isHeld).toBe(false);
    await blocker.release();
    expect(b.isHeld).toBe(false);
  });

  it('attempts every member on release, reports all failures together, is no longer held as a whole, and a release gives back the rest', async () => {
    const [a, b, c] = [new MemoryLock('/a'), new MemoryLock('/b'), new MemoryLock('/c')];
    const multi = new InterProcessMultiLock([a, b, c]);
    const handle = await multi.acquire();
    b.failRelease = true;
    const error = await handle.release().catch((err: unknown) => err);
    expect(error).toBeInstanceOf(MultiReleaseError);
    expect((error as MultiReleaseError).code).toBe('MULTI_RELEASE_FAILED');
    expect((error as MultiReleaseError).errors).toHaveLength(1);
    expect(String((error as MultiReleaseError).errors[0])).toContain('/b: release failed');
    expect(MemoryLock.log.slice(-3)).toEqual(['release /c', 'release /b', 'release /a']);
    expect([a.isHeld, b.isHeld, c.isHeld]).toEqual([false, true, false]);
    // The member that failed still holds its lock; the others may be someone else's now. The
    // handle was not held from the call on; the error says which are which. Releasing again finishes.
    expect(error).toMatchObject({ released: ['/a', '/c'], stillHeld: ['/b'] });
    expect(handle.held).toBe(false);
    expect(handle.signal.reason).toMatchObject({ code: 'RELEASED' });
    expect(multi.isAcquiredInThisProcess()).toBe(false);
    b.failRelease = false;
    await handle.release();
    expect(MemoryLock.log.slice(-1)).toEqual(['release /b']);
    expect(b.isHeld).toBe(false);
    expect(handle.held).toBe(false);
    await expect(handle.release()).rejects.toMatchObject({ code: 'NOT_OWNER' });
  });

  it('reports the acquisition failure first when the rollback fails too', async () => {
    const [a, b] = [new MemoryLock('/a'), new MemoryLock('/b')];
    const blocker = await b.acquire();
    a.failRelease = true;
    const error = await new InterProcessMultiLock([a, b]).acquire({ timeoutMs: 20 }).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(MultiReleaseError);
    expect(isZkError((error as MultiReleaseError).errors[0], 'LOCK_TIMEOUT')).toBe(true);
    expect((error as MultiReleaseError).cause).toBe((error as MultiReleaseError).errors[0]);
    await blocker.release();
  });

  it("aborts the handle's signal and emits lost when any member's ownership is lost", async () => {
    const multi = new InterProcessMultiLock([new MemoryLock('/a'), new MemoryLock('/b')]);
    const handle = await multi.acquire();
    const lost: Error[] = [];
    multi.on('lost', (reason) => lost.push(reason));
    expect(handle.signal.aborted).toBe(false);
    const reason = new Error('session expired');
    lose(handle.members[1] as LockHandle, reason);
    expect(handle.signal.aborted).toBe(true);
    expect(handle.signal.reason).toBe(reason);
    expect(lost).toEqual([reason]);
    await handle.release();
  });

  it('releases by async context: the code after acquire owns it, a sibling task does not', async () => {
    const multi = new InterProcessMultiLock([new MemoryLock('/a'), new MemoryLock('/b')]);
    const sibling = async () => {
      await null;
      return multi.isOwnedByCurrentContext();
    };
    const holder = (async () => {
      await multi.acquire();
      expect(multi.isOwnedByCurrentContext()).toBe(true);
      await multi.release();
      expect(multi.isOwnedByCurrentContext()).toBe(false);
    })();
    const [, siblingOwns] = await Promise.all([holder, sibling()]);
    expect(siblingOwns).toBe(false);
    await expect(multi.release()).rejects.toMatchObject({ code: 'NOT_OWNER' });
  });

  it('withLock and await using release every member', async () => {
    const [a, b] = [new MemoryLock('/a'), new MemoryLock('/b')];
    const multi = new InterProcessMultiLock([a, b]);
    await expect(multi.withLock(() => { throw new Error('work failed'); })).rejects.toThrow('work failed');
    expect([a.isHeld, b.isHeld]).toEqual([false, false]);
    {
      await using handle = await multi.acquire();
      expect(handle.held).toBe(true);
    }
    expect([a.isHeld, b.isHeld]).toEqual([false, false]);
  });

  it('tryAcquire: the caller continuation owns the multi-lock by context', async () => {
    const multi = new InterProcessMultiLock([new MemoryLock('/a')]);
    const handle = await multi.tryAcquire();
    expect(handle).not.toBeNull();
    expect(multi.isOwnedByCurrentContext()).toBe(true);
    await multi.release();
  });

  it('folds the members\' suspended/reconnected events into one pair while held', async () => {
    const [a, b] = [new EmittingMemoryLock('/a'), new EmittingMemoryLock('/b')];
    const multi = new InterProcessMultiLock([a, b]);
    const events: string[] = [];
    multi.on('suspended', () => events.push('suspended'));
    multi.on('reconnected', () => events.push('reconnected'));
    a.emit('suspended'); // not held: not listening
    const handle = await multi.acquire();
    a.emit('suspended');
    b.emit('suspended');
    a.emit('reconnected');
    b.emit('reconnected');
    a.emit('suspended');
    a.emit('lost');
    b.emit('suspended');
    await handle.release();
    b.emit('reconnected');
    expect(events).toEqual(['suspended', 'reconnected', 'suspended']);
  });
});

const run = promisify(execFile);

describe('InterProcessMultiLock leaves nothing behind an acquisition', () => {
  it("no listener stays on the caller's signal or the members' once released, however many acquisitions", async () => {
    const locks = [new MemoryLock('/a'), new MemoryLock('/b')];
    const multi = new InterProcessMultiLock(locks);
    const caller = new AbortController().signal;
    for (let i = 0; i < 100; i++) {
      const handle = await multi.acquire({ signal: caller });
      // While held, the caller's signal is no longer needed: members are all taken.
      expect(getEventListeners(caller, 'abort')).toHaveLength(0);
      const memberSignals = handle.members.map((member) => member.signal);
      await handle.release();
      expect(memberSignals.map((signal) => getEventListeners(signal, 'abort').length)).toEqual([0, 0]);
      for (const lock of locks) lock.received.length = 0;
    }
    MemoryLock.log.length = 0;
  });

  it('a loop of 20,000 acquisitions with one caller signal does not grow the heap (it grew ~5 KB an acquisition)', async () => {
    const script = fileURLToPath(new URL('./workers/acquisitionLoopHeap.ts', import.meta.url));
    const { stdout } = await run(process.execPath, ['--expose-gc', ...nodeScriptArgs(script), '20000']);
    const { perAcquisitionBytes } = JSON.parse(stdout) as { perAcquisitionBytes: number };
    expect(perAcquisitionBytes).toBeLessThan(100);
  }, 60_000);

  it('a loop of acquisitions in one async function keeps its ownership chain short', async () => {
    const multi = new InterProcessMultiLock([new MemoryLock('/a'), new MemoryLock('/b')]);
    for (let i = 0; i < 100; i++) {
      const handle = await multi.acquire();
      // Held: this frame; nothing of the 99 acquisitions before it (released, they own nothing).
      expect([...currentFrame()!.chain()]).toHaveLength(1);
      await handle.release();
    }
    MemoryLock.log.length = 0;
  });
});

/** A MemoryLock that also reports connection events, like every QueueLock. */
class EmittingMemoryLock extends MemoryLock {
  private readonly emitter = new EventEmitter<{ suspended: []; reconnected: []; lost: [] }>();
  on(event: 'suspended' | 'reconnected' | 'lost', listener: () => void): this {
    this.emitter.on(event, listener);
    return this;
  }
  off(event: 'suspended' | 'reconnected' | 'lost', listener: () => void): this {
    this.emitter.off(event, listener);
    return this;
  }
  emit(event: 'suspended' | 'reconnected' | 'lost'): void {
    this.emitter.emit(event);
  }
}
