/**
 * The leader under attack, four participant processes per case, each behind fault proxies of its
 * own: killed (SIGKILL), stopped past its session (SIGSTOP), cut off both ways and one way
 * (requests held while watch events flow; replies held while the server still hears it), its node
 * deleted by an operator, its session expired on the server while its connection stays up.
 *
 * In every case: no two participants whose leadership signal had not aborted at the same time
 * (`checkHolds`; a fault that takes leadership from a process that cannot be told first — its node
 * deleted, its session expired, the process stopped — ends that term at the fault), and a new
 * leader within the session timeout plus one second of the old one's loss. Every term of every
 * process is checked, the ones after the fault included (the old leader rejoins on a new session).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ZkSession } from '@zk-recipes/core';
import { childrenOf, expireSession, type FaultProxy, Operator, testConnectString, uniqueRoot } from '@zk-recipes/testing';
import { Fleet, msBetween, type TermRecord } from './support/fleet.js';

const root = uniqueRoot('leader-faults');
const SESSION_MS = 2000;
/** A new leader within the session timeout plus one second (an election's work: × the machine's slowness) of the old one's loss. */
const ELECTED_WITHIN = { fixedMs: SESSION_MS, scaledMs: 1000 };
const now = (): bigint => process.hrtime.bigint();
let observer: ZkSession;
let operator: Operator;

beforeAll(async () => {
  observer = await ZkSession.connect({ connectString: testConnectString() });
  operator = await Operator.connect(testConnectString());
});
afterAll(async () => {
  await operator.close();
  await observer.close();
});

/**
 * Runs one case: four processes, waits for a leader, lets `attack` act on it (it returns the
 * moment of the loss), waits for the next leader and for every process to be back in the
 * election, stops them all, and checks every term.
 */
async function attackLeader(recipe: 'latch' | 'selector', name: string, attack: (fleet: Fleet, leader: TermRecord) => Promise<bigint>): Promise<{ fleet: Fleet; old: TermRecord; next: TermRecord; lossAt: bigint }> {
  const path = `${root}/${recipe}-${name}`;
  const fleet = await Fleet.start({ connectString: testConnectString(), path, count: 4, sessionTimeoutMs: SESSION_MS, recipe, proxied: true });
  let runEnd = now();
  let outcome: { fleet: Fleet; old: TermRecord; next: TermRecord; lossAt: bigint };
  try {
    const old = await fleet.leader();
    // Every process in the election before the attack.
    await untilParticipants(path, 4);
    const attacking = attack(fleet, old);
    const next = await fleet.nextTerm(old.granted, SESSION_MS * 4 + 10_000, old.worker);
    const lossAt = await attacking;
    // The old leader (or its replacement) is back in the election.
    await untilParticipants(path, 4);
    outcome = { fleet, old, next, lossAt };
  } finally {
    runEnd = await fleet.stop();
  }
  fleet.expectOneLeaderAtATime(runEnd);
  fleet.expectWithin(`a new leader (${outcome.next.worker}#${outcome.next.id}) after the leader's loss`, outcome.lossAt, outcome.next.granted, ELECTED_WITHIN);
  expect(outcome.next.token).toBeGreaterThan(outcome.old.token);
  expect(await childrenOf(observer, path)).toEqual([]);
  return outcome;
}

async function untilParticipants(path: string, count: number): Promise<void> {
  const deadline = performance.now() + 30_000;
  while ((await childrenOf(observer, path)).length < count) {
    if (performance.now() > deadline) throw new Error(`${path}: fewer than ${count} participants after 30 s: ${(await childrenOf(observer, path)).join(', ')}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** When the last request frame before `before` went through `proxies` (process.hrtime's clock). */
function lastRequestBefore(proxies: readonly FaultProxy[], before: bigint): bigint {
  // FaultProxy stamps frames with performance.now(); hrtime is the same monotonic clock, offset.
  const offsetNs = process.hrtime.bigint() - BigInt(Math.round(performance.now() * 1e6));
  const sent = proxies.flatMap((p) => p.frames.filter((f) => f.direction === 'request').map((f) => offsetNs + BigInt(Math.round(f.at * 1e6))));
  const last = sent.filter((at) => at < before).reduce((max, at) => (at > max ? at : max), 0n);
  if (last === 0n) throw new Error('no request of the killed leader went through its proxies');
  return last;
}

/** The slot of a worker (`p2.0` → 2). */
const slotOf = (worker: string): number => Number(worker.slice(1, worker.indexOf('.')));

describe.each(['latch', 'selector'] as const)('%s: the leader attacked', (recipe) => {
  it('killed (SIGKILL): the next leader is elected once the server expires its session', async () => {
    let lastHeardAt = 0n;
    const { next } = await attackLeader(recipe, 'kill', async (fleet, leader) => {
      const at = now();
      const deadAt = await fleet.kill(leader.worker);
      // The last request the killed process sent (its proxies forward every frame it writes).
      lastHeardAt = lastRequestBefore(fleet.proxies[slotOf(leader.worker)]!, deadAt);
      await fleet.spawn(slotOf(leader.worker));
      return at;
    });
    // Not before the server could expire the session: a whole session timeout after the last
    // request it heard from the killed leader. Exact: the server rounds expiries up, never down.
    expect(msBetween(lastHeardAt, next.granted), 'elected before the killed leader\'s session could expire').toBeGreaterThanOrEqual(SESSION_MS);
  });

  it('stopped (SIGSTOP) past its session: elected meanwhile; woken, its signal aborts and its work never saw leadership after the next grant', async () => {
    let pauseEnd = 0n;
    const { fleet, old, next } = await attackLeader(recipe, 'pause', async (f, leader) => {
      const pause = await f.pause(leader.worker, SESSION_MS + 1500);
      pauseEnd = pause.end;
      return pause.start;
    });
    const ended = await fleet.until(() => (fleet.terms.get(`${old.worker}#${old.id}`)?.end ?? undefined) as bigint | undefined, 10_000, 'the stopped leader told');
    expect(fleet.terms.get(`${old.worker}#${old.id}`)!.reason).toBe('SESSION_LOST');
    expect(old.lastHeld!).toBeLessThan(next.granted);
    // Told as soon as it ran again (a timer already due; no timer of the session needed).
    fleet.expectWithin('the stopped leader told once it ran again', pauseEnd, ended, 1000);
  });

  it('cut off both ways: its signal aborts (declared lost) before the next leader is elected', async () => {
    const { old, next } = await attackLeader(recipe, 'partition', async (fleet, leader) => {
      const proxies = fleet.proxies[slotOf(leader.worker)]!;
      for (const proxy of proxies) void proxy.blackhole();
      const told = await fleet.until(() => fleet.terms.get(`${leader.worker}#${leader.id}`)?.abortedAt, SESSION_MS * 3, 'the cut-off leader told');
      await new Promise((resolve) => setTimeout(resolve, SESSION_MS));
      for (const proxy of proxies) proxy.heal();
      return told;
    });
    expect(old.abortedAt!).toBeLessThan(next.granted);
  });

  it('cut off one way, its requests held while watch events flow: told before the next leader is elected', async () => {
    const { old, next } = await attackLeader(recipe, 'requests', async (fleet, leader) => {
      const proxies = fleet.proxies[slotOf(leader.worker)]!;
      for (const proxy of proxies) proxy.holdRequests();
      const told = await fleet.until(() => fleet.terms.get(`${leader.worker}#${leader.id}`)?.abortedAt, SESSION_MS * 3, 'the cut-off leader told');
      await new Promise((resolve) => setTimeout(resolve, SESSION_MS));
      for (const proxy of proxies) proxy.heal();
      return told;
    });
    expect(old.abortedAt!).toBeLessThan(next.granted);
  });

  it('cut off the other way, the server hearing it but no reply and no new connection getting through: told before the next leader is elected', async () => {
    const { old, next } = await attackLeader(recipe, 'replies', async (fleet, leader) => {
      const proxies = fleet.proxies[slotOf(leader.worker)]!;
      for (const proxy of proxies) {
        proxy.holdReplies();
        proxy.refuseConnections();
      }
      const told = await fleet.until(() => fleet.terms.get(`${leader.worker}#${leader.id}`)?.abortedAt, SESSION_MS * 3, 'the cut-off leader told');
      await fleet.nextTerm(leader.granted, SESSION_MS * 4, leader.worker);
      for (const proxy of proxies) {
        proxy.refuseConnections(false);
        proxy.heal();
      }
      return told;
    });
    expect(old.abortedAt!).toBeLessThan(next.granted);
  });

  it('its replies held while each reconnection is answered (the server hears it, and says its session lives): it stays leader, nobody else is elected', async () => {
    const path = `${root}/${recipe}-replies-reconnecting`;
    // Each reconnection must be answered within the gap between the client's read timeout (2/3 of
    // the session) and its lost deadline (9/10): 470 ms of a 2 s session, which a busy machine's
    // reconnection took longer than (then the leader rightly declares its session lost). 1.4 s of
    // a 6 s session.
    const sessionMs = 6000;
    const fleet = await Fleet.start({ connectString: testConnectString(), path, count: 3, sessionTimeoutMs: sessionMs, recipe, proxied: true });
    let runEnd = now();
    let leader: TermRecord;
    try {
      leader = await fleet.leader();
      await untilParticipants(path, 3);
      const proxies = fleet.proxies[slotOf(leader.worker)]!;
      for (const proxy of proxies) proxy.holdReplies();
      await new Promise((resolve) => setTimeout(resolve, sessionMs * 2 + 1000));
      // Its session lives on the server (it hears every ping and reconnection): its node stays first.
      expect([...fleet.terms.values()].filter((t) => t.granted > leader.granted), `another participant elected, where the leader's session was to live (each reconnection answered)\n${fleet.describe()}`).toEqual([]);
      for (const proxy of proxies) proxy.heal();
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(fleet.openTerms().map((t) => `${t.worker}#${t.id}`)).toEqual([`${leader.worker}#${leader.id}`]);
    } finally {
      runEnd = await fleet.stop();
    }
    fleet.expectOneLeaderAtATime(runEnd);
  });

  it("its node deleted by an operator: its signal aborts NODE_DELETED, the next participant leads at once, it rejoins with a new node", async () => {
    const { fleet, old } = await attackLeader(recipe, 'delete', async (f, leader) => {
      const record = await operator.deleteNode(leader.path);
      f.deletes.push({ path: record.path, start: record.start, done: record.done });
      return record.start;
    });
    expect(fleet.terms.get(`${old.worker}#${old.id}`)!.reason).toBe('NODE_DELETED');
  });

  it('its session expired on the server while its connection stays up: told SESSION_LOST, the next leads at once, it rejoins on a new session and never believes in the old node', async () => {
    const { fleet, old } = await attackLeader(recipe, 'expire', async (f, leader) => {
      const credentials = f.credentials.get(leader.worker)!;
      const start = now();
      await expireSession(testConnectString(), { sessionId: Buffer.from(credentials.session, 'hex'), password: Buffer.from(credentials.password, 'hex') });
      f.expiries.push({ session: credentials.session, start, done: now() });
      return start;
    });
    expect(fleet.terms.get(`${old.worker}#${old.id}`)!.reason).toBe('SESSION_LOST');
    // Its later terms, if any, are of another session and another node.
    const later = [...fleet.terms.values()].filter((t) => t.worker === old.worker && t.id > old.id);
    for (const term of later) {
      expect(term.session).not.toBe(old.session);
      expect(term.path).not.toBe(old.path);
    }
  });
});
