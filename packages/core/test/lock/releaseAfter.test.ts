import { describe, expect, it } from 'vitest';
import { NotOwnerError, ReleaseFailedError, ZooKeeperError } from '../../src/errors.js';
import { disposeHandle, runThenRelease } from '../../src/lock/releaseAfter.js';

/** A handle whose release can be made to fail, as the server refusing the delete would. */
class FakeHandle {
  held = true;
  releases = 0;
  refuse: Error | undefined;
  async release(): Promise<void> {
    this.releases++;
    if (this.refuse !== undefined) throw this.refuse;
    if (!this.held) throw new NotOwnerError('already released');
    this.held = false;
  }
}

describe('disposeHandle (`await using`)', () => {
  it('releases a handle still held', async () => {
    const handle = new FakeHandle();
    await disposeHandle(handle, 'lock /x: await using', () => handle.held);
    expect(handle.held).toBe(false);
    expect(handle.releases).toBe(1);
  });

  it('does nothing for a handle released already', async () => {
    const handle = new FakeHandle();
    await handle.release();
    await disposeHandle(handle, 'lock /x: await using', () => handle.held);
    expect(handle.releases).toBe(1);
  });

  it('rejects with RELEASE_FAILED carrying the handle when the release is refused and it is still held', async () => {
    const handle = new FakeHandle();
    handle.refuse = new ZooKeeperError('NO_AUTH', -102, 'no DELETE for us');
    await expect(disposeHandle(handle, 'lock /x: await using', () => handle.held)).rejects.toMatchObject({
      code: 'RELEASE_FAILED',
      handle,
      error: handle.refuse,
      fnFailed: false,
    });
  });

  it('rethrows a failure that left nothing held as it is', async () => {
    const handle = new FakeHandle();
    const failure = new Error('gone meanwhile');
    handle.refuse = failure;
    let holds = true;
    const attempt = disposeHandle({ release: () => ((holds = false), handle.release()) }, 'lock /x: await using', () => holds);
    await expect(attempt).rejects.toBe(failure);
  });
});

describe('a handle whose own release rejects with RELEASE_FAILED (a lock handle, a lease)', () => {
  /** Not held from the call on; a refused delete leaves its node, and it may release again. */
  class RefusingHandle {
    releaseCalled = false;
    refuse: Error | undefined;
    async release(): Promise<void> {
      this.releaseCalled = true;
      if (this.refuse !== undefined) throw new ReleaseFailedError('release refused', this, this.refuse);
    }
  }

  it('await using rethrows it as its own RELEASE_FAILED, with the refusal as `error`, although nothing says "held" any more', async () => {
    const handle = new RefusingHandle();
    handle.refuse = new ZooKeeperError('NO_AUTH', -102, 'no DELETE for us');
    await expect(disposeHandle(handle, 'lock /x: await using', () => !handle.releaseCalled)).rejects.toMatchObject({
      code: 'RELEASE_FAILED',
      handle,
      error: handle.refuse,
      message: expect.stringContaining('lock /x: await using') as unknown,
    });
  });

  it('withLock keeps what fn threw as `suppressed`', async () => {
    const handle = new RefusingHandle();
    handle.refuse = new ZooKeeperError('NO_AUTH', -102, 'no DELETE for us');
    const thrown = new Error('fn failed');
    const attempt = runThenRelease(handle, () => Promise.reject(thrown), 'Lock.withLock /x', () => false);
    await expect(attempt).rejects.toMatchObject({ code: 'RELEASE_FAILED', handle, error: handle.refuse, suppressed: thrown, fnFailed: true });
  });
});
