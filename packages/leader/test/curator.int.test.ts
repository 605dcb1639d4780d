/**
 * One election shared with Apache Curator 5.4 (JVMs running its `LeaderLatch` and
 * `LeaderSelector`, bench/java): our nodes are the ones Curator writes (`latch-` with the id as
 * data; a `lock-` mutex queue with the id as data), so each side sees the other's participants,
 * agrees on who leads, and hands leadership over when either side's leader quits or dies. Every
 * term of every process, Java's and Node's, goes through one overlap check.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ZkSession } from '@zk-recipes/core';
import { LeaderLatch, LeaderSelector } from '@zk-recipes/leader';
import { checkHolds, childrenOf, ensureCuratorPrograms, handoffGaps, spawnCuratorWorker, testConnectString, uniqueRoot, untilChildCount, type Hold } from '@zk-recipes/testing';
import { JavaParticipant } from './support/curator.js';
import { Fleet } from './support/fleet.js';

const root = uniqueRoot('leader-curator');
const SESSION_MS = 2000;
/** Elected within the session timeout plus a second (an election's work: × the machine's slowness). */
const ELECTED_WITHIN = { fixedMs: SESSION_MS, scaledMs: 1000 };
const now = (): bigint => process.hrtime.bigint();
let observer: ZkSession;
const javas: JavaParticipant[] = [];

beforeAll(async () => {
  await ensureCuratorPrograms();
  observer = await ZkSession.connect({ connectString: testConnectString() });
}, 120_000);
afterAll(async () => {
  await Promise.all(javas.map((j) => j.worker.stop()));
  await observer.close();
});

async function java(recipe: 'latch' | 'selector', path: string, id: string, holdMs = 0): Promise<JavaParticipant> {
  const participant = await JavaParticipant.start(recipe, testConnectString(), path, id, { holdMs, sessionTimeoutMs: SESSION_MS });
  javas.push(participant);
  return participant;
}

/** What Curator's `getParticipants()` and `getLeader()` say of the election at `path`. */
async function curatorSees(recipe: 'latch' | 'selector', path: string): Promise<{ participants: Array<{ id: string; isLeader: boolean }>; leader: string; leaderIsLeader: boolean }> {
  const reader = await spawnCuratorWorker(['participants', testConnectString(), path, recipe]);
  const [line] = (await reader.finished()).filter((l) => l.type === 'participants');
  return line as unknown as { participants: Array<{ id: string; isLeader: boolean }>; leader: string; leaderIsLeader: boolean };
}

/** A Node participant in this process. */
function nodeParticipant(recipe: 'latch' | 'selector', session: ZkSession, path: string, id: string) {
  if (recipe === 'latch') {
    const latch = new LeaderLatch(session, path, { id });
    latch.start();
    return { close: () => latch.close(), leadership: () => latch.leadership({ timeoutMs: 30_000 }), participants: () => latch.getParticipants(), leader: () => latch.getLeader() };
  }
  const selector = new LeaderSelector(session, path, { id, autoRequeue: true });
  let resolveTerm: ((fencingToken: bigint) => void) | undefined;
  let term = new Promise<bigint>((resolve) => (resolveTerm = resolve));
  const run = selector.run(async (leadership) => {
    resolveTerm?.(leadership.fencingToken);
    await new Promise((resolve) => leadership.signal.addEventListener('abort', resolve, { once: true }));
    term = new Promise<bigint>((resolve) => (resolveTerm = resolve));
  });
  return {
    close: async () => {
      await selector.close();
      await run;
    },
    leadership: () => term.then((fencingToken) => ({ fencingToken })),
    participants: () => selector.getParticipants(),
    leader: () => selector.getLeader(),
  };
}

describe.each(['latch', 'selector'] as const)('%s shared with Curator 5.4', (recipe) => {
  it('Java and Node participants agree on who leads and on every participant, whoever joined first', async () => {
    const path = `${root}/${recipe}-agree`;
    const session = await ZkSession.connect({ connectString: testConnectString(), sessionTimeoutMs: SESSION_MS });
    try {
      // Node first: Curator sees it lead.
      const node = nodeParticipant(recipe, session, path, 'node-a');
      await node.leadership();
      const javaB = await java(recipe, path, 'java-b');
      await untilChildCount(observer, path, 2);
      const seenByCurator = await curatorSees(recipe, path);
      expect(seenByCurator.participants).toEqual([
        { id: 'node-a', isLeader: true },
        { id: 'java-b', isLeader: false },
      ]);
      expect([seenByCurator.leader, seenByCurator.leaderIsLeader]).toEqual(['node-a', true]);
      expect((await node.participants()).map((p) => [p.id, p.isLeader])).toEqual([
        ['node-a', true],
        ['java-b', false],
      ]);
      // Node quits: Java is elected, and both sides say so.
      await node.close();
      await javaB.termBegun(0);
      expect((await curatorSees(recipe, path)).leader).toBe('java-b');
      // Node joins again behind Java; Java quits: Node is elected.
      const again = nodeParticipant(recipe, session, path, 'node-c');
      await untilChildCount(observer, path, 2);
      expect((await again.leader())?.id).toBe('java-b');
      expect((await again.participants()).map((p) => p.id)).toEqual(['java-b', 'node-c']);
      javaB.tell('close');
      await javaB.worker.finished(30_000);
      await again.leadership();
      expect((await curatorSees(recipe, path)).participants).toEqual([{ id: 'node-c', isLeader: true }]);
      await again.close();
      expect(await childrenOf(observer, path)).toEqual([]);
    } finally {
      await session.close();
    }
  });

  it('2 JVMs and 2 Node processes churn on one path: never two leaders; leadership crosses between Java and Node both ways', async () => {
    const path = `${root}/${recipe}-churn`;
    const fleet = await Fleet.start({ connectString: testConnectString(), path, count: 2, sessionTimeoutMs: SESSION_MS, recipe, churn: [20, 60] });
    const jvms = [await java(recipe, path, 'java-1', 40), await java(recipe, path, 'java-2', 40)];
    let runEnd: bigint;
    try {
      await fleet.until(() => fleet.terms.size >= 15 && jvms.every((j) => j.termsBegun >= 6), 120_000, 'terms on both sides');
    } finally {
      await Promise.all(jvms.map((j) => j.stop()));
      runEnd = await fleet.stop();
    }
    const holds: Hold[] = [...fleet.terms.values(), ...jvms.flatMap((j) => j.holds())];
    const { overlaps } = checkHolds({ holds, runEnd, sessionTimeoutMs: SESSION_MS });
    expect(overlaps, `LEADERSHIP BROKEN: two leaders at once\n${fleet.describe()}`).toEqual([]);
    const intervals = holds.map((h) => ({ worker: h.worker, start: h.granted, end: h.end ?? runEnd }));
    const crossings = handoffGaps(intervals).filter((h) => h.from.startsWith('java') !== h.to.startsWith('java'));
    expect(crossings.filter((h) => h.from.startsWith('java')).length).toBeGreaterThan(2);
    expect(crossings.filter((h) => h.to.startsWith('java')).length).toBeGreaterThan(2);
    expect(await childrenOf(observer, path)).toEqual([]);
  });

  it('the leader dies (SIGKILL) on either side: the other side is elected within the session timeout plus a second', async () => {
    const path = `${root}/${recipe}-dies`;
    // A Java leader, a Node process waiting.
    const javaLeader = await java(recipe, path, 'java-dies');
    await javaLeader.termBegun(0);
    const fleet = await Fleet.start({ connectString: testConnectString(), path, count: 1, sessionTimeoutMs: SESSION_MS, recipe });
    let runEnd = now();
    let javaWaiter: JavaParticipant | undefined;
    const deaths: Record<string, bigint> = {};
    try {
      await untilChildCount(observer, path, 2);
      javaLeader.worker.child.kill('SIGKILL');
      const javaDied = now();
      deaths[javaLeader.name] = javaDied;
      const nodeTerm = await fleet.leader(SESSION_MS + 10_000);
      fleet.expectWithin('a Node leader after the Java leader died', javaDied, nodeTerm.granted, ELECTED_WITHIN);
      // A Node leader, a Java process waiting.
      javaWaiter = await java(recipe, path, 'java-waits');
      await untilChildCount(observer, path, 2);
      const nodeDied = await fleet.kill(nodeTerm.worker);
      const javaTerm = await javaWaiter.termBegun(0, SESSION_MS + 10_000);
      fleet.expectWithin('a Java leader after the Node leader died', nodeDied, BigInt(String(javaTerm['t'])), ELECTED_WITHIN);
    } finally {
      await javaWaiter?.stop();
      runEnd = await fleet.stop();
    }
    const holds: Hold[] = [...fleet.terms.values(), ...javaLeader.holds(), ...(javaWaiter?.holds() ?? [])];
    const { overlaps } = checkHolds({ holds, runEnd, deaths: { ...deaths, ...fleet.deaths }, sessionTimeoutMs: SESSION_MS });
    expect(overlaps, `LEADERSHIP BROKEN: two leaders at once\n${fleet.describe()}`).toEqual([]);
  });
});
