/**
 * `zk-recipes:leadership` (docs/observability.md, "Diagnostics channels"): every leadership gained
 * is one `gained` message, and its end one `lost` (taken away: the session lost, our node deleted)
 * or `released` (given up: closed, a selector's term over), with the code of its signal's reason.
 */
import diagnostics from 'node:diagnostics_channel';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { LEADERSHIP_CHANNEL, ZkSession, type LeadershipMessage } from '@zk-recipes/core';
import { sessionInternals } from '@zk-recipes/core/internal';
import { LeaderLatch, LeaderSelector } from '@zk-recipes/leader';
import { expireSession, testConnectString, uniqueRoot } from '@zk-recipes/testing';
import { nextEvent } from './support/events.js';

const root = uniqueRoot('leader-channels');
const sessions: ZkSession[] = [];
let heard: LeadershipMessage[];
const listener = (message: unknown): void => {
  if ((message as LeadershipMessage).path.startsWith(root)) heard.push(message as LeadershipMessage);
};

async function connect(): Promise<ZkSession> {
  const session = await ZkSession.connect({ connectString: testConnectString(), sessionTimeoutMs: 4000 });
  sessions.push(session);
  return session;
}

let observer: ZkSession;
beforeAll(async () => {
  observer = await connect();
});
afterAll(async () => {
  await Promise.all(sessions.map((s) => s.close()));
});
beforeEach(() => {
  heard = [];
  diagnostics.subscribe(LEADERSHIP_CHANNEL, listener);
});
afterEach(() => {
  diagnostics.unsubscribe(LEADERSHIP_CHANNEL, listener);
});

/** A message without the fields that vary from run to run. */
const shape = (m: LeadershipMessage) => [m.recipe, m.event, m.id, m.code ?? null];

describe('zk-recipes:leadership', () => {
  it('a latch: gained, with its node, token and session; released on close (ELECTION_CLOSED); lost when its node is deleted, then gained again', async () => {
    const path = `${root}/latch`;
    const session = await connect();
    const latch = new LeaderLatch(session, path, { id: 'a' });
    latch.start();
    const first = await latch.leadership();
    expect(heard).toEqual([{ recipe: 'leader-latch', path, node: first.node, id: 'a', sessionId: session.sessionId, event: 'gained', fencingToken: first.fencingToken }]);
    const lost = nextEvent(latch, 'notLeader');
    await observer.delete(first.node);
    await lost;
    const second = await latch.leadership();
    await latch.close();
    expect(heard.map(shape)).toEqual([
      ['leader-latch', 'gained', 'a', null],
      ['leader-latch', 'lost', 'a', 'NODE_DELETED'],
      ['leader-latch', 'gained', 'a', null],
      ['leader-latch', 'released', 'a', 'ELECTION_CLOSED'],
    ]);
    expect(heard[1]).toMatchObject({ node: first.node, fencingToken: first.fencingToken, reason: first.signal.reason, heldMs: expect.any(Number) });
    expect(heard[3]).toMatchObject({ node: second.node, fencingToken: second.fencingToken, reason: second.signal.reason });
    expect(heard[3]!.heldMs).toBeGreaterThanOrEqual(0);
  });

  it('a latch whose session expires: lost (SESSION_LOST), told with the session it led in', async () => {
    const path = `${root}/expired`;
    const session = await connect();
    const latch = new LeaderLatch(session, path, { id: 'b' });
    latch.start();
    await latch.leadership();
    const ledIn = session.sessionId;
    const lost = nextEvent(latch, 'notLeader');
    await expireSession(testConnectString(), sessionInternals(session).credentials);
    await lost;
    await latch.leadership();
    await latch.close();
    expect(heard.map(shape)).toEqual([
      ['leader-latch', 'gained', 'b', null],
      ['leader-latch', 'lost', 'b', 'SESSION_LOST'],
      ['leader-latch', 'gained', 'b', null],
      ['leader-latch', 'released', 'b', 'ELECTION_CLOSED'],
    ]);
    expect(heard[1]!.sessionId).toBe(ledIn);
    expect(heard[2]!.sessionId).not.toBe(ledIn);
  });

  it('a selector: gained for its term, released (ABORTED) when the function returns', async () => {
    const path = `${root}/selector`;
    const selector = new LeaderSelector(await connect(), path, { id: 'c' });
    await selector.run(() => undefined);
    await selector.close();
    expect(heard.map(shape)).toEqual([
      ['leader-selector', 'gained', 'c', null],
      ['leader-selector', 'released', 'c', 'ABORTED'],
    ]);
  });
});
