/**
 * Fencing, end to end: a process pause defeats the lock itself (no client-side lock can help a
 * process that is frozen while its session expires), and the fencing token checked by the
 * resource is what keeps the resource safe.
 *
 * Process A holds an InterProcessMutex (2 s session) and writes to a fenced resource
 * (examples/fencedResource.ts) every 50 ms. A is frozen with SIGSTOP; the server expires its
 * session and deletes its node, so process B, queued behind it, acquires and writes with its newer
 * token. A is resumed with SIGCONT and, still believing it holds the lock, writes again with its
 * old token: the resource rejects that write.
 *
 * Nothing here sleeps: the pause lasts exactly until B has written (an event), and B acquiring at
 * all is the proof that A's session expired.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ZkSession } from '@zk-recipes/core';
import { childrenOf, MachineLoad, runWorkers, testConnectString, uniqueRoot, untilChildCount, type WorkerResult } from '@zk-recipes/testing';
import { startFencedResource, type FencedResource } from '../../../examples/fencedResource.js';

const writerScript = fileURLToPath(new URL('../../../examples/workers/fencedWriter.ts', import.meta.url));
const root = uniqueRoot('mutex-fencing');

interface WriterLine {
  type: 'acquired' | 'write' | 'lost' | 'done';
  writer: string;
  token?: string;
  path?: string;
  step?: number;
  accepted?: boolean;
  highest?: string;
  signalAborted?: boolean;
  at?: number;
}

let observer: ZkSession;
let resource: FencedResource;
beforeAll(async () => {
  observer = await ZkSession.connect({ connectString: testConnectString() });
  resource = await startFencedResource();
});
afterAll(async () => {
  await resource?.close();
  await observer?.close();
});

/**
 * Whether `path` exists, asked with a multi (a check of any version): a multi is ordered with the
 * writes (through an ensemble's leader), so it sees every deletion committed before it was sent,
 * whichever server the observer is connected to (a plain read may come from one that lags).
 */
function existsOrdered(path: string): Promise<boolean> {
  return observer.transaction([{ type: 'check', path, version: -1 }]).then(
    () => true,
    (err: unknown) => ((err as { code?: unknown }).code === 'NO_NODE' ? false : Promise.reject(err)),
  );
}

describe('InterProcessMutex with a fenced resource', () => {
  it('a holder paused (SIGSTOP) past its session loses the lock to another process; its late write is rejected by the token', async () => {
    const path = `${root}/paused-holder`;
    const key = 'paused-holder';
    const sessionTimeoutMs = 2000;
    const runWriter = (name: string, args: { sessionTimeoutMs: number; steps: number; stepMs: number }, onLine?: (line: WriterLine, worker: WorkerResult) => void) =>
      runWorkers<WriterLine>({
        script: writerScript,
        count: 1,
        args: [testConnectString(), path, resource.url, key, String(args.sessionTimeoutMs), String(args.steps), String(args.stepMs), name],
        timeoutMs: 50_000,
        onLine: onLine as ((line: unknown, worker: WorkerResult) => void) | undefined,
      });

    using load = MachineLoad.start();
    let pid = -1;
    let pausedAt = 0;
    let aNodeAtB: Promise<boolean> | undefined;
    let bFinished: Promise<WorkerResult<WriterLine>[]> | undefined;
    let bOutcome: Promise<void> | undefined;
    let resumed = false;
    const resume = () => {
      if (pid > 0 && !resumed) {
        resumed = true;
        process.kill(pid, 'SIGCONT');
      }
    };
    try {
      const [a] = await runWriter('A', { sessionTimeoutMs, steps: 1000, stepMs: 50 }, (line, worker) => {
        // A's first accepted write: A holds the lock and uses it. Queue B behind A, then freeze A.
        if (line.type !== 'write' || line.step !== 0 || bFinished !== undefined) return;
        pid = worker.pid;
        const aPath = (worker.lines as WriterLine[]).find((l) => l.type === 'acquired')!.path!;
        bFinished = runWriter('B', { sessionTimeoutMs: 10_000, steps: 1, stepMs: 0 }, (bLine) => {
          // B holds the lock: was A's node still there?
          if (bLine.type === 'acquired') aNodeAtB = existsOrdered(aPath);
        });
        bOutcome = (async () => {
          try {
            await untilChildCount(observer, path, 2);
            pausedAt = Date.now(); // read before the pause, so that it is no later than it
            process.kill(pid, 'SIGSTOP');
            // Frozen until B, which can only acquire once A's session has expired, has written.
            await bFinished;
          } finally {
            resume();
          }
        })();
      });
      await bOutcome;
      const [b] = await bFinished!;

      const aLines = a!.lines;
      const bLines = b!.lines;
      const tokenA = BigInt(aLines.find((l) => l.type === 'acquired')!.token!);
      const tokenB = BigInt(bLines.find((l) => l.type === 'acquired')!.token!);
      expect(tokenB).toBeGreaterThan(tokenA);
      // B got the lock only once A's node was gone: the server deleted it when A's session expired.
      expect(await aNodeAtB, "A's node was still there when B had the lock").toBe(false);
      // The server expires a session no sooner than its timeout after the last request it read
      // from it. A's last one before the pause (the watch on its node, set just after the grant,
      // then a ping whenever it had sent nothing for a third of the timeout, looked for every
      // 100 ms: core's livenessWatchdog.ts) came at most that long before the pause, plus however
      // late a busy machine ran A's timers. So B waited after the pause at least the timeout less
      // A's silence; the silence this implies is a time bound, judged against the machine's load.
      const bAcquiredAt = bLines.find((l) => l.type === 'acquired')!.at!;
      const silence = load.judge("A's silence towards the server before its pause (the session timeout less B's wait after it)", sessionTimeoutMs - (bAcquiredAt - pausedAt), {
        fixedMs: Math.floor(sessionTimeoutMs / 3) + 100,
        scaledMs: 250,
      });
      expect(silence.tookMs, silence.message).toBeLessThanOrEqual(silence.boundMs);
      expect(bLines.filter((l) => l.type === 'write')).toEqual([expect.objectContaining({ accepted: true, highest: String(tokenB) })]);

      // A wrote with its token before the pause, and its first write after B's was rejected: A stopped there.
      const aWrites = aLines.filter((l) => l.type === 'write');
      expect(aWrites[0]).toMatchObject({ accepted: true, token: String(tokenA) });
      const rejected = aWrites.at(-1)!;
      expect(rejected).toMatchObject({ accepted: false, token: String(tokenA), highest: String(tokenB) });
      expect(aWrites.slice(0, -1).every((w) => w.accepted === true)).toBe(true);

      // The resource's own record: every write of A after B's first write was refused, and the
      // value left is B's.
      const log = resource.store.log.filter((w) => w.key === key);
      const firstB = log.findIndex((w) => w.writer === 'B');
      expect(firstB).toBeGreaterThan(0);
      const lateA = log.slice(firstB).filter((w) => w.writer === 'A');
      expect(lateA.length).toBeGreaterThan(0);
      expect(lateA.every((w) => !w.accepted && w.token === tokenA)).toBe(true);
      expect(log.slice(0, firstB).every((w) => w.writer === 'A' && w.accepted)).toBe(true);
      expect(resource.store.read(key)).toEqual({ token: tokenB, value: 'B step 0' });
      expect(await childrenOf(observer, path)).toEqual([]);
    } finally {
      resume();
    }
  }, 60_000);
});
