/**
 * One process of the read/write lock's mix (issue: "no waiter left behind"): several loops in one
 * process, each in its own async context (so they exclude each other like separate processes),
 * each looping acquire → hold → release with one role:
 * - `read`: the read lock;
 * - `write`: the write lock;
 * - `downgrade`: the write lock, and every other time a downgrade: take the read lock while
 *   holding the write lock, release the write lock, hold the read lock, release it.
 * Prints one JSON line per critical section (`{type:'section', worker, lock, start, end}`,
 * CLOCK_MONOTONIC ns; a downgrade prints its write part up to the write release and its read part
 * from there), then `{type:'done', loops: {<worker>: sections}}`.
 *
 * Usage: mixWorker.ts <connectString> <lockPath> <roles: e.g. read,read,write,downgrade> <iterations | Ns> <holdMs> [startAtEpochMs]
 * `iterations` is a count per loop, or a duration (`30s`): each loop stops starting sections then.
 */
import { ZkSession } from '@zk-recipes/core';
import { InterProcessReadWriteLock } from '@zk-recipes/read-write-lock';
import { report } from '@zk-recipes/testing';

type Role = 'read' | 'write' | 'downgrade';
const [connectString, lockPath, rolesArg, iterationsArg, holdMsArg, startAtArg] = process.argv.slice(2);
const roles = (rolesArg ?? '').split(',') as Role[];
if (connectString === undefined || lockPath === undefined || roles.some((r) => r !== 'read' && r !== 'write' && r !== 'downgrade')) {
  throw new Error('usage: mixWorker.ts <connectString> <lockPath> <roles: read,write,downgrade,...> <iterations | Ns> <holdMs> [startAtEpochMs]');
}
const forSeconds = iterationsArg?.endsWith('s') === true ? Number(iterationsArg.slice(0, -1)) : undefined;
const iterations = forSeconds === undefined ? Number(iterationsArg ?? 20) : Number.POSITIVE_INFINITY;
const holdMs = Number(holdMsArg ?? 1);
const now = (): bigint => process.hrtime.bigint();
const hold = (): Promise<void> => (holdMs > 0 ? new Promise((resolve) => setTimeout(resolve, holdMs)) : Promise.resolve());

const session = await ZkSession.connect({ connectString, sessionTimeoutMs: 10_000 });
const rw = new InterProcessReadWriteLock(session, lockPath);
report({ type: 'ready', worker: `node-${process.pid}` });
const startAt = Number(startAtArg ?? 0);
if (startAt > Date.now()) await new Promise((resolve) => setTimeout(resolve, startAt - Date.now()));
const stopAt = forSeconds === undefined ? Number.POSITIVE_INFINITY : performance.now() + forSeconds * 1000;

async function loop(role: Role, worker: string): Promise<number> {
  let sections = 0;
  for (let i = 0; i < iterations && performance.now() < stopAt; i++) {
    if (role === 'read') {
      const read = await rw.readLock().acquire();
      const start = now();
      await hold();
      const end = now();
      await read.release();
      report({ type: 'section', worker, lock: 'read', start: String(start), end: String(end) });
    } else {
      const write = await rw.writeLock().acquire();
      const start = now();
      await hold();
      if (role === 'downgrade' && i % 2 === 1) {
        const read = await rw.readLock().acquire(); // a downgrade: granted at once, though others wait
        const letGo = now(); // exclusive until the write lock goes
        await write.release();
        await hold();
        const end = now();
        await read.release();
        report({ type: 'section', worker, lock: 'write', start: String(start), end: String(letGo) });
        report({ type: 'section', worker, lock: 'read', start: String(letGo), end: String(end) });
      } else {
        const end = now();
        await write.release();
        report({ type: 'section', worker, lock: 'write', start: String(start), end: String(end) });
      }
    }
    sections++;
  }
  return sections;
}

const began = now();
const counts = await Promise.all(roles.map((role, i) => loop(role, `node-${process.pid}-${i}-${role}`)));
const loops = Object.fromEntries(roles.map((role, i) => [`node-${process.pid}-${i}-${role}`, counts[i]]));
report({ type: 'done', worker: `node-${process.pid}`, loops, elapsedNs: String(now() - began) });
await session.close();
