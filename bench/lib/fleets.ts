/**
 * Many contender processes started in waves: each wave's processes must be connected and at the
 * start line before the next wave is spawned. Spawning 64 tsx processes or JVMs at once on two
 * cores starves the ZooKeeper server for tens of seconds (a bench session was once declared lost
 * that way); waves keep start-up load bounded. Everyone then starts on one "go".
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ZkSession } from '@zk-recipes/core';
import { GO_LINE, isReadyLine, spawnCuratorWorker, type CuratorWorker } from '@zk-recipes/testing';
import { nodeScriptArgs } from '@zk-recipes/testing';

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
  stderr: string;
  ready: Promise<void>;
  exited: Promise<number | null>;
}

function spawnNodeMember(script: string, args: readonly string[], name: string): NodeMember {
  const child = spawn(process.execPath, [...nodeScriptArgs(script), ...args], {
    env: { ...process.env, ZKR_WORKER_NAME: name },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const member: NodeMember = { child, lines: [], stderr: '', ready: Promise.resolve(), exited: Promise.resolve(null) };
  child.stdin!.on('error', () => undefined);
  child.stderr!.setEncoding('utf8').on('data', (c: string) => (member.stderr = (member.stderr + c).slice(-4000)));
  let markReady!: () => void;
  let failReady!: (err: Error) => void;
  member.ready = new Promise<void>((resolve, reject) => ((markReady = resolve), (failReady = reject)));
  member.ready.catch(() => undefined);
  const stdoutClosed = new Promise<void>((resolve) => {
    createInterface({ input: child.stdout! })
      .on('line', (text) => {
        let parsed: unknown;
        try {
          parsed = JSON.parse(text);
        } catch {
          return;
        }
        if (isReadyLine(parsed)) markReady();
        else member.lines.push(parsed);
      })
      .on('close', resolve);
  });
  member.exited = new Promise((resolve) => {
    child.once('close', (code) => {
      failReady(new Error(`${name} exited (${code}) before its ready line: ${member.stderr}`));
      void stdoutClosed.then(() => resolve(code));
    });
  });
  return member;
}

/** `count` Node workers (`runWorkers`' protocol: ready line, then "go" on stdin), in waves. */
export async function startNodeFleet(script: string, count: number, args: readonly string[], wave = 16): Promise<Fleet> {
  const members: NodeMember[] = [];
  const stop = async (): Promise<void> => {
    for (const m of members) if (m.child.exitCode === null && m.child.signalCode === null) m.child.kill('SIGKILL');
    await Promise.all(members.map((m) => m.exited));
  };
  try {
    for (let i = 0; i < count; i += wave) {
      const batch = Array.from({ length: Math.min(wave, count - i) }, (_, j) => spawnNodeMember(script, args, `worker-${i + j}`));
      members.push(...batch);
      await Promise.all(batch.map((m) => m.ready));
    }
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    go() {
      for (const m of members) m.child.stdin!.write(`${GO_LINE}\n`);
    },
    async finished(timeoutMs) {
      const timer = setTimeout(() => void stop(), timeoutMs);
      try {
        const codes = await Promise.all(members.map((m) => m.exited));
        const bad = codes.findIndex((c) => c !== 0);
        if (bad >= 0) throw new Error(`worker-${bad} exited with ${codes[bad]}: ${members[bad]!.stderr}`);
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
  const members: CuratorWorker[] = [];
  const stop = async (): Promise<void> => {
    await Promise.all(members.map((w) => w.stop()));
  };
  try {
    for (let i = 0; i < count; i += wave) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(wave, count - i) }, () => spawnCuratorWorker(['--wait-go', ...args], javaOptions ? { javaOptions } : {})),
      );
      members.push(...batch);
      await Promise.all(batch.map((w) => w.waitForLine((l) => l.type === 'ready', 180_000)));
    }
  } catch (err) {
    await stop();
    throw err;
  }
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
