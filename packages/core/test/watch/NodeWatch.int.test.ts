/**
 * watch/NodeWatch.ts against a real server: the node waits (deletion, data change, creation) each
 * report what happened, and one given up leaves no watch on the server (docs/architecture.md,
 * "Watches").
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ZkSession } from '../../src/session/index.js';
import { CreationWatch, waitUntilGone, type CreationSink } from '../../src/watch/NodeWatch.js';
import { serverWatchedPaths } from '../../../testing/src/serverWatches.js';
import { sharedServer, uniqueRoot } from '../session/support.js';

const root = uniqueRoot('watch');
let server: ReturnType<typeof sharedServer>;
let session: ZkSession;
let other: ZkSession;

beforeAll(async () => {
  server = sharedServer();
  session = await ZkSession.connect({ connectString: server.connectString, sessionTimeoutMs: 4000 });
  other = await ZkSession.connect({ connectString: server.connectString, sessionTimeoutMs: 4000 });
  await other.mkdirp(root);
});
afterAll(async () => {
  await Promise.all([session.close(), other.close()]);
});

/** The paths the server holds a data or exists watch on for `session`. */
const watchedOnServer = async (s: ZkSession): Promise<Set<string>> => serverWatchedPaths(server.connectString, s.sessionIdBigInt);

/** A CreationSink that records what it is told, in order; `reports(n)` resolves once it has n. */
function recordingSink(): CreationSink & { told: string[]; reports(n: number): Promise<void> } {
  const told: string[] = [];
  const waiters: Array<{ n: number; resolve: () => void }> = [];
  const tell = (what: string): void => {
    told.push(what);
    for (const waiter of waiters) if (told.length >= waiter.n) waiter.resolve();
  };
  return {
    told,
    created: () => tell('created'),
    absent: () => tell('absent'),
    creationWatchFailed: (reason) => tell(`failed:${(reason as { code?: string }).code}`),
    reports: (n) => new Promise<void>((resolve) => (told.length >= n ? resolve() : waiters.push({ n, resolve }))),
  };
}

describe('waitUntilGone (the node wait for deletion or change)', () => {
  it("ends 'gone' when another session deletes the node", async () => {
    const path = (await other.create(`${root}/gone`, null)).path;
    const outcome = waitUntilGone(session, path, new AbortController().signal);
    await other.delete(path);
    expect(await outcome).toBe('gone');
  });

  it("ends 'changed' at a data change, and 'gone' at once for a node already absent", async () => {
    const path = (await other.create(`${root}/changed`, null)).path;
    const changed = waitUntilGone(session, path, new AbortController().signal);
    await session.exists(path); // answered after the wait's getData: its watch is set
    await other.setData(path, Buffer.from('x'));
    expect(await changed).toBe('changed');
    await other.delete(path);
    expect(await waitUntilGone(session, path, new AbortController().signal)).toBe('gone');
  });

  it('rejects with the signal\'s reason when aborted, and removes its watch from the server', async () => {
    const path = (await other.create(`${root}/aborted`, null)).path;
    const controller = new AbortController();
    const outcome = waitUntilGone(session, path, controller.signal);
    await session.exists(`${root}`); // answered after the wait's getData: its watch is set
    expect(await watchedOnServer(session)).toContain(path);
    const reason = new Error('no longer needed');
    controller.abort(reason);
    await expect(outcome).rejects.toBe(reason);
    await session.exists(`${root}`); // answered after the REMOVE_WATCHES the abort sent
    expect(await watchedOnServer(session)).not.toContain(path);
    await other.delete(path);
  });
});

describe('CreationWatch (the node wait for creation)', () => {
  it('says absent, then created when another session creates the node', async () => {
    const path = `${root}/appears`;
    const sink = recordingSink();
    new CreationWatch(session, path, sink).begin();
    await sink.reports(1);
    expect(sink.told).toEqual(['absent']);
    await other.create(path, null);
    await sink.reports(2);
    expect(sink.told).toEqual(['absent', 'created']);
    await other.delete(path);
  });

  it('says created at once for a node that exists, and only once: the watch its request set tells nobody when the node goes', async () => {
    const path = (await other.create(`${root}/exists`, null)).path;
    const sink = recordingSink();
    new CreationWatch(session, path, sink).begin();
    await sink.reports(1);
    expect(sink.told).toEqual(['created']);
    // The exists watch stays on the server until the node changes (removing it would cost a
    // request per wait); its event, when the node goes, finds nobody.
    await other.delete(path);
    await session.exists(path); // answered after the deletion's event
    expect(sink.told).toEqual(['created']);
  });

  it('cancelled while the node stays absent, removes its exists watch from the server and tells nothing', async () => {
    const path = `${root}/never`;
    const sink = recordingSink();
    const watch = new CreationWatch(session, path, sink);
    watch.begin();
    await sink.reports(1);
    expect(await watchedOnServer(session)).toContain(path);
    watch.cancel();
    await session.exists(`${root}`);
    expect(await watchedOnServer(session)).not.toContain(path);
    await other.create(path, null);
    await session.exists(path); // the creation's event, had a watch survived, would come before this reply
    expect(sink.told).toEqual(['absent']);
    await other.delete(path);
  });
});
