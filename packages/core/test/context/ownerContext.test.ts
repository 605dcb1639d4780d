import { describe, expect, it } from 'vitest';
import { continueInFrame, currentFrame, OwnerFrame, runInFrame } from '../../src/context/ownerContext.js';

/** A stand-in for an acquire: resolves later, its continuations run in a new child frame. */
function fakeAcquire(): Promise<OwnerFrame> {
  const frame = new OwnerFrame(currentFrame());
  const later = new Promise<OwnerFrame>((resolve) =>
    setTimeout(() => {
      frame.holds++; // held, as a lock records it
      resolve(frame);
    }, 5),
  );
  return continueInFrame(frame, later);
}

describe('owner context', () => {
  it('marks the continuation of the returned promise, not the caller', async () => {
    expect(currentFrame()).toBeUndefined();
    const frame = await fakeAcquire();
    expect(currentFrame()).toBe(frame);
  });

  it('gives sibling tasks started in one synchronous run different frames', async () => {
    const seen: Array<[OwnerFrame, OwnerFrame | undefined]> = [];
    const task = async () => {
      const frame = await fakeAcquire();
      await new Promise((resolve) => setTimeout(resolve, 2));
      seen.push([frame, currentFrame()]);
    };
    await runInFrame(new OwnerFrame(undefined), async () => {
      const outer = currentFrame();
      await Promise.all([task(), task()]);
      expect(currentFrame()).toBe(outer);
    });
    expect(seen).toHaveLength(2);
    expect(seen[0]![0]).not.toBe(seen[1]![0]);
    for (const [frame, current] of seen) expect(current).toBe(frame);
  });

  it('does not leak the frame to code that continues after firing a task', async () => {
    let taskFrame: OwnerFrame | undefined;
    const background = (async () => {
      taskFrame = await fakeAcquire();
    })();
    await new Promise((resolve) => setTimeout(resolve, 1));
    expect(currentFrame()).toBeUndefined();
    await background;
    expect(taskFrame).toBeInstanceOf(OwnerFrame);
    expect(currentFrame()).toBeUndefined();
  });

  it('carries the frame into work forked inside the holder', async () => {
    const frame = await fakeAcquire();
    const forked = await Promise.all([
      (async () => {
        await null;
        return currentFrame();
      })(),
      new Promise<OwnerFrame | undefined>((resolve) => setImmediate(() => resolve(currentFrame()))),
    ]);
    expect(forked).toEqual([frame, frame]);
  });

  it('nests: a holder that acquires again gets a child frame whose chain includes its own', async () => {
    const outer = await fakeAcquire();
    const inner = await fakeAcquire();
    expect(inner.parent).toBe(outer);
    expect([...inner.chain()]).toEqual([inner, outer]);
  });

  it('does not chain the acquisitions of a loop: released frames are skipped as parents', async () => {
    let previous: OwnerFrame | undefined;
    for (let i = 0; i < 50; i++) {
      const frame = await fakeAcquire();
      expect(frame.parent).toBeUndefined();
      if (previous !== undefined) expect(frame).not.toBe(previous);
      frame.holds--; // released
      previous = frame;
    }
  });

  it('runs .then callbacks on the returned promise in the frame', async () => {
    const inCallback = await fakeAcquire().then((frame) => [frame, currentFrame()] as const);
    expect(inCallback[1]).toBe(inCallback[0]);
  });
});
