/**
 * The semaphore's shortcut under an adversary (docs/architecture.md, "Counting semaphores"): a
 * waiter watches only its proof (the nearest nodes ahead holding too many leases for it) and, when
 * one goes, decides again on the listing it has. Attacked here: releases in every order with
 * weighted requests, an operator deleting nodes in and out of a proof, foreign writes, a holder's
 * session expiring, a waiter's connection cut while a proof node goes, and the shared maximum
 * changing under waiting proofs. Always: never more than `maxLeases` leases held at once (counted
 * from the grants, less the leases whose signal aborted), first come first served, and no lease
 * free while someone could take it once everything is told.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ZkSession } from '@zk-recipes/core';
import { InterProcessSemaphore, SharedCount, type Lease, type Leases } from '@zk-recipes/semaphore';
import { connectTallied, expireSession, FaultProxy, pollUntil, testConnectString, uniqueRoot, type TalliedSession } from '@zk-recipes/testing';
import { sessionInternals } from '@zk-recipes/core/internal';
import { caughtUp, Operator, settledInWait, untilQueue, within } from '../../core/test/support/adversary.js';

const root = uniqueRoot('semaphore-proof');
const BOUND_MS = 15_000;
let sessions: ZkSession[] = [];
let proxies: FaultProxy[] = [];
let counter = 0;
const freshPath = (label: string) => `${root}/${++counter}-${label}`;
const OP_GET_DATA = 4;
const OP_GET_CHILDREN2 = 12;

async function connect(connectString = testConnectString()): Promise<ZkSession> {
  const session = await ZkSession.connect({ connectString, sessionTimeoutMs: 6000 });
  sessions.push(session);
  return session;
}

afterEach(async () => {
  const open = sessions;
  sessions = [];
  await Promise.all(open.map((s) => s.close()));
  const started = proxies;
  proxies = [];
  await Promise.all(started.map((p) => p.close()));
});

/**
 * Contenders of one semaphore, each in its own session, enqueued one after another in a known
 * order, with the leases they hold counted: `held` never exceeds `max` (the check is made at each
 * grant, with the leases lost meanwhile no longer counted).
 */
class Contenders {
  readonly granted: string[] = [];
  private readonly live = new Map<string, { weight: number; signal: AbortSignal }>();
  readonly pending = new Map<string, Promise<void>>();
  readonly leases = new Map<string, Lease[]>();

  constructor(
    private readonly observer: ZkSession,
    readonly path: string,
    private readonly max: () => number,
  ) {}

  /** Leases held now: granted, not released, not lost. */
  held(): number {
    let sum = 0;
    for (const { weight, signal } of this.live.values()) if (!signal.aborted) sum += weight;
    return sum;
  }

  /** Starts `name`'s request for `weight` leases on `semaphore` and returns once its node is the `position`-th and its wait is set. */
  async enqueue(name: string, semaphore: InterProcessSemaphore, session: ZkSession, weight: number, position: number): Promise<void> {
    const acquiring: Promise<Lease[] | Leases> = weight === 1 ? semaphore.acquire().then((lease) => [lease]) : semaphore.acquireMany(weight);
    this.pending.set(
      name,
      acquiring.then((leases) => {
        this.live.set(name, { weight, signal: leases[0]!.signal });
        this.leases.set(name, [...leases]);
        this.granted.push(name);
        expect(this.held(), `exclusion: ${this.held()} leases held at once after ${name}'s grant, the maximum is ${this.max()}`).toBeLessThanOrEqual(this.max());
      }),
    );
    await untilQueue(this.observer, this.path, position);
    await settledInWait(session);
  }

  /**
   * A fault takes `name`'s leases away before its process can know (its session expired at the
   * server): they no longer count; its signal must abort once its session hears (checked apart).
   */
  takenAway(name: string): void {
    this.live.delete(name);
  }

  /** Gives back every lease `name` holds. */
  async release(name: string): Promise<void> {
    // Not held from the call on: another process may be granted before our delete's reply is in.
    this.live.delete(name);
    await Promise.all(this.leases.get(name)!.map((lease) => lease.release()));
  }

  /** Waits for `name`'s grant. */
  async grantOf(name: string): Promise<void> {
    await within(this.pending.get(name)!, BOUND_MS, `${name} to be granted`);
  }

  /** After every session has caught up with the server, exactly `names` have been granted, in this order. */
  async expectGranted(sessionsToDrain: ZkSession[], names: string[]): Promise<void> {
    await Promise.all(sessionsToDrain.map((s) => caughtUp(s)));
    expect(this.granted, 'first come, first served: the grants so far').toEqual(names);
  }
}

/**
 * Enqueues `name` (one lease, at `position`) on a semaphore at `path` whose maximum is the
 * SharedCount at `countPath` (seeded 3), read through `session`; the count joins `counts` to be closed.
 */
async function enqueueCounted(
  c: Contenders,
  counts: SharedCount[],
  at: { path: string; countPath: string; name: string; position: number; session: ZkSession },
): Promise<void> {
  const count = new SharedCount(at.session, at.countPath, { seedValue: 3 });
  await count.start();
  counts.push(count);
  await c.enqueue(at.name, new InterProcessSemaphore(at.session, at.path, { count }), at.session, 1, at.position);
}


describe('InterProcessSemaphore (queue layout): the proof shortcut under an adversary', () => {
  it('weighted requests, releases out of order: each grant when its leases are free, none before, FIFO', async () => {
    const path = freshPath('weights');
    const observer = await connect();
    const c = new Contenders(observer, path, () => 3);
    const all: ZkSession[] = [];
    const contender = async (name: string, weight: number, position: number): Promise<void> => {
      const session = await connect();
      all.push(session);
      await c.enqueue(name, new InterProcessSemaphore(session, path, { maxLeases: 3 }), session, weight, position);
    };
    await contender('h0', 1, 1);
    await contender('h1', 1, 2);
    await contender('h2', 1, 3);
    await c.grantOf('h2');
    await contender('two', 2, 4); // its proof: the two nearest holders (one more single lease would fit)
    await contender('one', 1, 5); // its proof: `two` and h2
    await contender('three', 3, 6);
    await c.release('h2'); // one lease free: `two` needs two, `one` may not overtake it
    await c.expectGranted(all, ['h0', 'h1', 'h2']);
    await c.release('h0'); // two free: `two` holds; `one` behind it: h1 + two = 3
    await c.grantOf('two');
    await c.expectGranted(all, ['h0', 'h1', 'h2', 'two']);
    await c.release('h1');
    await c.grantOf('one');
    await c.expectGranted(all, ['h0', 'h1', 'h2', 'two', 'one']);
    await c.release('one'); // `three` needs all three: `two` still holds two
    await c.expectGranted(all, ['h0', 'h1', 'h2', 'two', 'one']);
    await c.release('two');
    await c.grantOf('three');
    await c.release('three');
    expect(await observer.getChildren(path).then((r) => r.children)).toEqual([]);
  });

  it("an operator deletes a waiter inside another's proof, then a holder: the waiter behind decides again, holds only when the leases are free", async () => {
    const path = freshPath('deleted-in-proof');
    const observer = await connect();
    const operator = new Operator(await connect());
    const c = new Contenders(observer, path, () => 2);
    const all: ZkSession[] = [];
    const contender = async (name: string, position: number): Promise<string> => {
      const session = await connect();
      all.push(session);
      await c.enqueue(name, new InterProcessSemaphore(session, path, { maxLeases: 2 }), session, 1, position);
      return (await untilQueue(observer, path, position))[position - 1]!;
    };
    await contender('h0', 1);
    const h1Node = await contender('h1', 2);
    await c.grantOf('h1');
    const w0Node = await contender('w0', 3); // proof: h0, h1
    await contender('w1', 4); // proof: h1, w0
    await contender('w2', 5); // proof: w0, w1
    const w0Failed = c.pending.get('w0')!.then(
      () => undefined,
      (err: unknown) => err,
    );
    await operator.deleteNode(w0Node); // w0 refused; w1 and w2 lose a proof node: h0 and h1 still hold
    expect(await within(w0Failed, BOUND_MS, 'w0 to be refused')).toMatchObject({ code: 'NODE_DELETED' });
    await c.expectGranted(all, ['h0', 'h1']);
    // h1 loses its lease to the operator (its process is told after the server acts): one is free for w1.
    c.takenAway('h1');
    await operator.deleteNode(h1Node);
    await c.grantOf('w1');
    await c.expectGranted(all, ['h0', 'h1', 'w1']);
    expect(c.leases.get('h1')![0]!.signal.aborted, "h1's signal, once its session caught up").toBe(true);
    await c.release('h0');
    await c.grantOf('w2');
    await c.release('w1');
    await c.release('w2');
    await c.release('h1'); // lost: its release does not throw
  });

  it('foreign writes to the nodes of a proof wake nobody and change nothing', async () => {
    const path = freshPath('foreign-writes');
    const observer = await connect();
    const operator = new Operator(await connect());
    const c = new Contenders(observer, path, () => 2);
    const tallied: TalliedSession[] = [];
    const contender = async (name: string, position: number): Promise<void> => {
      const t = await connectTallied({ sessionTimeoutMs: 6000 });
      tallied.push(t);
      await c.enqueue(name, new InterProcessSemaphore(t.session, path, { maxLeases: 2 }), t.session, 1, position);
    };
    try {
      await contender('h0', 1);
      await contender('h1', 2);
      await c.grantOf('h1');
      await contender('w0', 3);
      await contender('w1', 4);
      const marks = tallied.map((t) => t.proxy.tally());
      for (const node of await untilQueue(observer, path, 4)) await operator.write(node, new TextEncoder().encode('garbage'));
      await c.expectGranted(tallied.map((t) => t.session), ['h0', 'h1']);
      // No notification reached anyone, and nobody sent a request but the round trips of expectGranted.
      for (const [i, t] of tallied.entries()) {
        const since = t.proxy.tallySince(marks[i]!);
        expect({ notifications: since.notifications, requests: since.requests }, `contender ${i}`).toEqual({ notifications: 0, requests: 1 });
      }
      await c.release('h1');
      await c.grantOf('w0');
      await c.release('h0');
      await c.grantOf('w1');
      await c.release('w0');
      await c.release('w1');
    } finally {
      await Promise.all(tallied.map((t) => t.close()));
    }
  });

  it("a holder's session expires: the first waiter takes its lease, the next one waits", async () => {
    const path = freshPath('holder-expires');
    const observer = await connect();
    const c = new Contenders(observer, path, () => 2);
    const all: ZkSession[] = [];
    const sessionOf = new Map<string, ZkSession>();
    const contender = async (name: string, position: number): Promise<void> => {
      const session = await connect();
      all.push(session);
      sessionOf.set(name, session);
      await c.enqueue(name, new InterProcessSemaphore(session, path, { maxLeases: 2 }), session, 1, position);
    };
    await contender('h0', 1);
    await contender('h1', 2);
    await c.grantOf('h1');
    await contender('w0', 3);
    await contender('w1', 4);
    c.takenAway('h1');
    await expireSession(testConnectString(), sessionInternals(sessionOf.get('h1')!).credentials);
    await c.grantOf('w0');
    const h1Signal = c.leases.get('h1')![0]!.signal;
    if (!h1Signal.aborted) await within(new Promise((resolve) => h1Signal.addEventListener('abort', resolve)), BOUND_MS, "h1's signal to abort");
    await c.expectGranted(all.filter((s) => s !== sessionOf.get('h1')), ['h0', 'h1', 'w0']);
    expect(c.leases.get('h1')![0]!.signal.aborted).toBe(true);
    await c.release('h0');
    await c.grantOf('w1');
    await c.release('w0');
    await c.release('w1');
  });

  it("a waiter's connection is cut while a node of its proof goes: once back it decides on a fresh listing and holds", async () => {
    const path = freshPath('cut-while-proof-goes');
    const observer = await connect();
    const c = new Contenders(observer, path, () => 2);
    const holders = await connect();
    const [h0, h1] = [new InterProcessSemaphore(holders, path, { maxLeases: 2 }), new InterProcessSemaphore(holders, path, { maxLeases: 2 })];
    await c.enqueue('h0', h0, holders, 1, 1);
    await c.enqueue('h1', h1, holders, 1, 2);
    await c.grantOf('h1');
    const [host, port] = testConnectString().split(',')[0]!.split(':');
    const proxy = await FaultProxy.start({ targetHost: host, targetPort: Number(port) });
    proxies.push(proxy);
    const cutOff = await connect(proxy.connectString);
    await c.enqueue('w0', new InterProcessSemaphore(cutOff, path, { maxLeases: 2 }), cutOff, 1, 3);
    const healed = proxy.blackhole(1500); // its deletion event is lost with the connection
    await c.release('h0');
    await healed;
    await c.grantOf('w0');
    await c.expectGranted([holders, observer], ['h0', 'h1', 'w0']);
    await c.release('h1');
    await c.release('w0');
  });

  it('the shared maximum is lowered, then raised, under waiting proofs: each waiter holds only while it fits', async () => {
    const path = freshPath('shared-count');
    const countPath = freshPath('count');
    const observer = await connect();
    let max = 3;
    const c = new Contenders(observer, path, () => max);
    const all: ZkSession[] = [];
    const counts: SharedCount[] = [];
    const contender = async (name: string, position: number): Promise<void> => {
      const session = await connect();
      all.push(session);
      await enqueueCounted(c, counts, { path, countPath, name, position, session });
    };
    await contender('h0', 1);
    await contender('h1', 2);
    await contender('h2', 3);
    await c.grantOf('h2');
    await contender('w0', 4);
    await contender('w1', 5);
    const setter = new SharedCount(observer, countPath, { seedValue: 3 });
    await setter.start();
    max = 1; // lowered: the holders keep their leases; no waiter may hold until fewer than one is held
    await setter.setCount(1);
    await c.release('h0');
    await c.release('h1');
    await c.expectGranted(all, ['h0', 'h1', 'h2']);
    max = 3;
    await setter.setCount(3); // raised: both waiters fit beside h2
    await c.grantOf('w0');
    await c.grantOf('w1');
    await c.release('h2');
    await c.release('w0');
    await c.release('w1');
    setter.close();
    for (const count of counts) count.close();
  });

  it("a lowered maximum whose new value is still being read holds back a grant: the waiter's read of the count is held while a holder releases", async () => {
    const path = freshPath('count-in-flight');
    const countPath = freshPath('count-in-flight-count');
    const observer = await connect();
    let max = 3;
    const c = new Contenders(observer, path, () => max);
    const counts: SharedCount[] = [];
    const contender = (name: string, position: number, session: ZkSession): Promise<void> =>
      enqueueCounted(c, counts, { path, countPath, name, position, session });
    await contender('h0', 1, await connect());
    await contender('h1', 2, await connect());
    await contender('h2', 3, await connect());
    await c.grantOf('h2');
    const [host, port] = testConnectString().split(',')[0]!.split(':');
    const proxy = await FaultProxy.start({ targetHost: host, targetPort: Number(port) });
    proxies.push(proxy);
    const waiter = await connect(proxy.connectString);
    await contender('w0', 4, waiter); // its proof: h0, h1 and h2

    // The waiter's requests are held from here: it reads the count's change event, and its read
    // of the new value waits at the proxy; events still reach it.
    const reads = proxy.requestsTo(OP_GET_DATA, countPath);
    const listings = proxy.requestsTo(OP_GET_CHILDREN2, path);
    proxy.holdRequests();
    const setter = new SharedCount(observer, countPath, { seedValue: 3 });
    await setter.start();
    max = 1;
    await setter.setCount(1); // committed before h0's release: the waiter is sent its event first
    await pollUntil(() => proxy.requestsTo(OP_GET_DATA, countPath) > reads, BOUND_MS, "the waiter's read of the lowered count (held at the proxy)");
    await c.release('h0');
    // On the old value (3) the waiter would hold now, beside h1 and h2; it must wait for the read.
    await pollUntil(() => c.granted.includes('w0') || proxy.requestsTo(OP_GET_CHILDREN2, path) > listings, BOUND_MS, 'the waiter to act on h0\'s release');
    expect(c.granted, 'exclusion: the waiter held on the count it knew while the lowered one was on its way').toEqual(['h0', 'h1', 'h2']);

    proxy.heal();
    await settledInWait(waiter);
    expect(c.granted, 'with the count read (1) and h1 and h2 holding, the waiter still waits').toEqual(['h0', 'h1', 'h2']);
    max = 3;
    await setter.setCount(3);
    await c.grantOf('w0');
    await c.release('h1');
    await c.release('h2');
    await c.release('w0');
    setter.close();
    for (const count of counts) count.close();
  });
});
