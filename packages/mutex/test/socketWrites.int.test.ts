/**
 * The requests of one step leave in one socket write (core/src/session/writeBatching.ts): counted
 * at the socket, per uncontended acquire + release and per contended section. Two counts, for the
 * sockets of this file's sessions only (those whose far end is the test server; no proxy here):
 * - `writes`: calls of the socket's `_write` / `_writev`, each one `write(2)` / `writev(2)` of the
 *   buffered data: the system calls;
 * - `handedOver`: calls of the stream's `write()`: how many buffers the session hands the socket
 *   (a corked socket still takes them one by one, each through the stream's machinery).
 * Installed before any session connects: the session's write wrapper calls the stream's `write`
 * it finds when its socket connects.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ZkSession } from '@zk-recipes/core';
import { InterProcessMutex } from '@zk-recipes/mutex';
import { firstServerAddress, testConnectString, uniqueRoot } from '@zk-recipes/testing';
import { HELD_WATCH_DELAY_MS } from '../../core/src/engine/ownNode.js';
import { HELD_WATCH_MAY_BE_SENT_AFTER_MS } from '../../core/test/support/heldWatchDue.js';

const { port } = firstServerAddress(testConnectString());
const counted = { writes: 0, handedOver: 0 };
const ours = (socket: unknown): boolean => socket instanceof net.Socket && socket.remotePort === port;
const socketProto = net.Socket.prototype as unknown as Record<'_write' | '_writev', (...args: unknown[]) => unknown>;
const originals = { _write: socketProto._write, _writev: socketProto._writev, write: net.Socket.prototype.write };
for (const name of ['_write', '_writev'] as const) {
  const original = originals[name];
  socketProto[name] = function countedWrite(this: unknown, ...args: unknown[]): unknown {
    if (ours(this)) counted.writes++;
    return original.apply(this, args);
  };
}
// An own property of net.Socket.prototype, in front of the stream's inherited `write`.
net.Socket.prototype.write = function countedHandOver(this: net.Socket, ...args: unknown[]): boolean {
  if (ours(this)) counted.handedOver++;
  return (originals.write as (...a: unknown[]) => boolean).apply(this, args);
} as net.Socket['write'];

/**
 * Per uncontended acquire + release released at once: the create and the listing pipelined behind
 * it in one write, the delete in another (the watch on our own node is not sent for a holder
 * released in its grant's turn).
 */
const UNCONTENDED_WRITES_PER_CYCLE = 2;
/**
 * Per section of 4 sessions looping acquire → release (hold 0) on one mutex. Measured 4.00: the
 * create with its listing; the watches on our own node, the predecessor and the node two ahead;
 * the listing when the node two ahead goes; the delete. +0.05 for the cycles in flight at the two
 * reads.
 */
const CONTENDED_WRITES_PER_SECTION = 4.05;
const CYCLES = 50;
const SECTIONS = 200;
const CONTENDERS = 4;
const root = uniqueRoot('mutex-socket-writes');
const sessions: ZkSession[] = [];

beforeAll(async () => {
  for (let i = 0; i < CONTENDERS; i++) sessions.push(await ZkSession.connect({ connectString: testConnectString(), sessionTimeoutMs: 10_000 }));
});
afterAll(async () => {
  await Promise.all(sessions.map((s) => s.close()));
  socketProto._write = originals._write;
  socketProto._writev = originals._writev;
  delete (net.Socket.prototype as Partial<net.Socket>).write;
});

describe('socket writes per operation', () => {
  it(`an uncontended acquire + release: ${UNCONTENDED_WRITES_PER_CYCLE} writes, one buffer each (${CYCLES} cycles)`, async () => {
    const session = sessions[0]!;
    const dir = `${root}/uncontended`;
    const mutex = new InterProcessMutex(session, dir);
    await (await mutex.acquire()).release(); // creates the lock's directory
    await session.exists('/');
    // The directory lies empty between cycles: the server's container reaper may remove it, and
    // the next cycle pays for making it again. A window in which it was made again (its czxid
    // changed) is measured again; five in a row would mean something else removes it.
    for (let window = 1; ; window++) {
      const madeAt = (await session.exists(dir))?.czxid;
      const mark = { ...counted };
      // A holding released HELD_WATCH_DELAY_MS or more after its grant (a busy machine paused us in
      // between) may have had its node's watch sent: one write more for each such cycle, no more.
      let late = 0;
      for (let i = 0; i < CYCLES; i++) {
        const handle = await mutex.acquire();
        if (performance.now() - handle.grantedAt >= HELD_WATCH_MAY_BE_SENT_AFTER_MS) late++;
        await handle.release();
      }
      const used = { writes: counted.writes - mark.writes, handedOver: counted.handedOver - mark.handedOver };
      const remade = (await session.exists(dir))?.czxid !== madeAt;
      if (remade && window < 5) continue;
      expect(remade, `the lock directory was removed and made again during each of ${window} windows`).toBe(false);
      const expected = UNCONTENDED_WRITES_PER_CYCLE * CYCLES;
      const why = `${JSON.stringify(used)} in ${CYCLES} cycles; ${late} released ${HELD_WATCH_MAY_BE_SENT_AFTER_MS} ms or more after the grant (a slow machine), a watch's write each allowed`;
      for (const count of [used.writes, used.handedOver]) {
        expect(count, why).toBeGreaterThanOrEqual(expected);
        expect(count, why).toBeLessThanOrEqual(expected + late);
      }
      return;
    }
  });

  it(`a hand-off among ${CONTENDERS} sessions (hold 0): at most ${CONTENDED_WRITES_PER_SECTION} writes per section, one buffer each`, async () => {
    const mutexes = sessions.map((s) => new InterProcessMutex(s, `${root}/contended`));
    const warmup = 5 * CONTENDERS;
    const target = warmup + SECTIONS;
    let done = 0;
    let start = { ...counted };
    let end = { ...counted };
    await Promise.all(
      mutexes.map(async (mutex) => {
        while (done < target) {
          await (await mutex.acquire()).release();
          done++;
          if (done === warmup) start = { ...counted };
          if (done === target) end = { ...counted };
        }
      }),
    );
    const writes = (end.writes - start.writes) / SECTIONS;
    const handedOver = (end.handedOver - start.handedOver) / SECTIONS;
    expect(writes, `${writes} writes per section`).toBeLessThanOrEqual(CONTENDED_WRITES_PER_SECTION);
    expect(handedOver, `${handedOver} buffers per section, ${writes} writes`).toBeLessThanOrEqual(writes + 0.01);
  });
});
