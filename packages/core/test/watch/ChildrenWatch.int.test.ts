/**
 * watch/ChildrenWatch.ts against a real server: a listing with its child watch armed, and the
 * engine's wait for the next change of a queue's children (docs/architecture.md, "Watches").
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ZkSession } from '../../src/session/index.js';
import { StopSignal } from '../../src/signals/StopSignal.js';
import { listAndWatchChildren, waitForChildrenChange } from '../../src/watch/ChildrenWatch.js';
import { sessionInternals } from '../../src/internal.js';
import { sharedServer, uniqueRoot } from '../session/support.js';

const root = uniqueRoot('children');
let server: ReturnType<typeof sharedServer>;
let session: ZkSession;
let other: ZkSession;

beforeAll(async () => {
  server = sharedServer();
  session = await ZkSession.connect({ connectString: server.connectString, sessionTimeoutMs: 4000 });
  other = await ZkSession.connect({ connectString: server.connectString, sessionTimeoutMs: 4000 });
});
afterAll(async () => {
  await Promise.all([session.close(), other.close()]);
});

const stopOf = (signal?: AbortSignal): StopSignal => new StopSignal({ signal, sessionSignal: session.sessionSignal, what: 'test' });

describe('listAndWatchChildren', () => {
  it('lists, and `changed` resolves at the next change of the children', async () => {
    const dir = `${root}/listed`;
    await other.mkdirp(dir);
    await other.create(`${dir}/a`, null);
    const listed = await listAndWatchChildren(session, dir, new AbortController().signal);
    expect(listed.children).toEqual(['a']);
    await other.create(`${dir}/b`, null);
    await expect(listed.changed).resolves.toBeUndefined();
  });

  it('rejects `changed` with the signal\'s reason when aborted, and forgets its watcher', async () => {
    const dir = `${root}/aborted`;
    await other.mkdirp(dir);
    const before = sessionInternals(session).diagnostics.watchers;
    const controller = new AbortController();
    const listed = await listAndWatchChildren(session, dir, controller.signal);
    expect(sessionInternals(session).diagnostics.watchers).toBe(before + 1);
    const reason = new Error('done waiting');
    controller.abort(reason);
    await expect(listed.changed).rejects.toBe(reason);
    expect(sessionInternals(session).diagnostics.watchers).toBe(before);
  });
});

describe('waitForChildrenChange (the engine\'s wait on a whole queue)', () => {
  it('returns a fresh listing at once when the children already differ from those decided on', async () => {
    const dir = `${root}/differs`;
    await other.mkdirp(dir);
    await other.create(`${dir}/a`, null);
    const decidedOn: string[] = [];
    const stop = stopOf();
    const next = await waitForChildrenChange(session, dir, decidedOn, undefined, undefined, stop);
    expect(next).not.toBe('relist');
    expect((next as { children: string[] }).children).toEqual(['a']);
    stop.dispose();
  });

  it("on the listing decided on, waits for a change and then says 'relist'", async () => {
    const dir = `${root}/waits`;
    await other.mkdirp(dir);
    await other.create(`${dir}/a`, null);
    const stop = stopOf();
    const armed = await listAndWatchChildren(session, dir, stop.signal);
    let ended = false;
    const waiting = waitForChildrenChange(session, dir, armed.children, armed, undefined, stop).then((next) => {
      ended = true;
      return next;
    });
    await session.exists(dir); // a round trip: nothing changed, so the wait is still on
    expect(ended).toBe(false);
    await other.delete(`${dir}/a`);
    expect(await waiting).toBe('relist');
    stop.dispose();
  });

  it('ends with the stop\'s reason when the caller aborts', async () => {
    const dir = `${root}/stopped`;
    await other.mkdirp(dir);
    const controller = new AbortController();
    const stop = stopOf(controller.signal);
    const armed = await listAndWatchChildren(session, dir, stop.signal);
    const waiting = waitForChildrenChange(session, dir, armed.children, armed, undefined, stop);
    controller.abort();
    await expect(waiting).rejects.toMatchObject({ code: 'ABORTED' });
  });
});
