/**
 * Many contender processes started in waves: each wave's processes must be connected and at the
 * start line before the next wave is spawned. Spawning 64 tsx processes or JVMs at once on two
 * cores starves the ZooKeeper server for tens of seconds (a bench session was once declared lost
 * that way); waves keep start-up load bounded. Everyone then starts on one "go".
 */
import type { ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ZkSession } from '@zk-recipes/core';
import { GO_LINE, isReadyLine, spawnCuratorWorker, type CuratorWorker } from '@zk-recipes/testing';
import { spawnNodeWorker } from './nodeWorker.js';

/** JVM flags for many short-lived Curator processes: small heaps, quick start-up. */
export const SMALL_JVM: readonly string[] = ['-XX:+UseSerialGC', '-Xmx96m', '-Xss512k', '-XX:TieredStopAtLevel=1'];

/** Resolves once `path` has at least `count` children, e.g. a whole fleet queued (polled: one cheap exists() per 5 ms). */
export async function untilChildren(session: ZkSession, path: string, count: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (((await session.exists(path))?.numChildren ?? 0) < count) {
    if (Date.now() > deadline) throw new Error(`${path}: fewer than ${count} children after ${timeoutMs} ms`);
    await sleep(5);
  }
}

/**
 * Starts `count` members in waves of `wave`: `spawn(i)` starts member i, `ready(member)` resolves
 * once it is at its start line. On a failure every member started so far is `stop`ped.
 */
export async function startInWaves<M>(count: number, wave: number, spawn: (index: number) => Promise<M> | M, ready: (member: M) => Promise<unknown>, stop: (members: readonly M[]) => Promise<void>): Promise<M[]> {
  const members: M[] = [];
  try {
    for (let i = 0; i < count; i += wave) {
      const batch = await Promise.all(Array.from({ length: Math.min(wave, count - i) }, (_, j) => spawn(i + j)));
      members.push(...batch);
      await Promise.all(batch.map(ready));
    }
  } catch (err) {
    await stop(members);
    throw err;
  }
  return members;
}

/** A started fleet, every member at its start line. */
export interface Fleet {
  /** Sends "go" to every member. */
  go(): void;
  /** Every member's JSON lines once all exited 0; rejects (after stopping the rest) otherwise. */
  finished(timeoutMs: number): Promise<unknown[]>;
  /** Stops every member still running (by PID). */
  stop(): Promise<void>;
}

interface NodeMember {
  child: ChildProcess;
  lines: unknown[];
  stderr: () => string;
  ready: Promise<void>;
  exited: Promise<number | null>;
}

function spawnNodeMember(script: string, args: readonly string[], name: string): NodeMember {
  const lines: unknown[] = [];
  let markReady!: () => void;
  let failReady!: (err: Error) => void;
  const ready = new Promise<void>((resolve, reject) => ((markReady = resolve), (failReady = reject)));
  ready.catch(() => undefined);
  const worker = spawnNodeWorker(script, args, name, (line) => (isReadyLine(line) ? markReady() : lines.push(line)));
  void worker.exited.then((code) => failReady(new Error(`${name} exited (${code}) before its ready line: ${worker.stderr()}`)));
  return { child: worker.child, lines, stderr: worker.stderr, ready, exited: worker.exited };
}

/** `count` Node workers (`runWorkers`' protocol: ready line, then "go" on stdin), in waves. */
export async function startNodeFleet(script: string, count: number, args: readonly string[], wave = 16): Promise<Fleet> {
  const stopAll = async (members: readonly NodeMember[]): Promise<void> => {
    for (const m of members) if (m.child.exitCode === null && m.child.signalCode === null) m.child.kill('SIGKILL');
    await Promise.all(members.map((m) => m.exited));
  };
  const members = await startInWaves(count, wave, (i) => spawnNodeMember(script, args, `worker-${i}`), (m) => m.ready, stopAll);
  const stop = (): Promise<void> => stopAll(members);
  return {
    go() {
      for (const m of members) m.child.stdin!.write(`${GO_LINE}\n`);
    },
    async finished(timeoutMs) {
      const timer = setTimeout(() => void stop(), timeoutMs);
      try {
        const codes = await Promise.all(members.map((m) => m.exited));
        const bad = codes.findIndex((c) => c !== 0);
        if (bad >= 0) throw new Error(`worker-${bad} exited with ${codes[bad]}: ${members[bad]!.stderr()}`);
        return members.flatMap((m) => m.lines);
      } finally {
        clearTimeout(timer);
        for (const m of members) m.child.stdin!.end();
      }
    },
    stop,
  };
}

/** `count` Curator JVMs started with `--wait-go`, in waves. */
export async function startCuratorFleet(count: number, args: readonly string[], javaOptions?: readonly string[], wave = 16): Promise<Fleet> {
  const stopAll = async (members: readonly CuratorWorker[]): Promise<void> => {
    await Promise.all(members.map((w) => w.stop()));
  };
  const members = await startInWaves(
    count,
    wave,
    () => spawnCuratorWorker(['--wait-go', ...args], javaOptions ? { javaOptions } : {}),
    (w) => w.waitForLine((l) => l.type === 'ready', 180_000),
    stopAll,
  );
  const stop = (): Promise<void> => stopAll(members);
  return {
    go() {
      for (const w of members) w.go();
    },
    async finished(timeoutMs) {
      const all = await Promise.all(members.map((w) => w.finished(timeoutMs)));
      return all.flat();
    },
    stop,
  };
}
