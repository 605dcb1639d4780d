/**
 * Fencing tokens, end to end:
 *   node --conditions=@zk-recipes/source --import tsx examples/fencing.ts
 *
 * Runs against the ZooKeeper in ZK_CONNECT, or starts a local server itself (and stops it after).
 *
 * 1. A fenced resource (examples/fencedResource.ts) listens on 127.0.0.1.
 * 2. Process A (examples/workers/fencedWriter.ts, 2 s session) takes an InterProcessMutex and
 *    writes to the resource every 100 ms with its fencing token.
 * 3. This process (B) queues for the same mutex, and we freeze A with SIGSTOP: a stand-in for a
 *    long GC pause. A's session expires on the server, its node goes, and B gets the lock.
 * 4. B writes with its (newer) token. We resume A with SIGCONT: A writes again with its old token,
 *    as code already past its check when the process stopped would (its handle, had it looked,
 *    would say lost). The resource refuses that write.
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { ZkSession } from '@zk-recipes/core';
import { InterProcessMutex } from '@zk-recipes/mutex';
import { TestingServer } from '@zk-recipes/testing';
import { fencedWrite, startFencedResource } from './fencedResource.js';

const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));
const say = (text: string) => process.stdout.write(`${text}\n`);

interface WriterLine {
  type: string;
  writer: string;
  token?: string;
  step?: number;
  accepted?: boolean;
  highest?: string;
  signalAborted?: boolean;
}

async function main(): Promise<void> {
  let server: TestingServer | undefined;
  let connectString = process.env.ZK_CONNECT;
  if (connectString === undefined || connectString === '') {
    process.stdout.write('No ZK_CONNECT given: starting a local ZooKeeper server... ');
    server = await TestingServer.start();
    connectString = server.connectString;
    say(`up at ${connectString}`);
  }
  const resource = await startFencedResource();
  const lockPath = `/zk-recipes-examples/fencing/${Date.now()}`;
  const key = 'account-42';
  say(`fenced resource at ${resource.url}; lock ${lockPath}`);
  try {
    await scenario(connectString, lockPath, resource.url, key);
    say('\nwhat the resource saw:');
    for (const w of resource.store.log) {
      say(`  ${w.writer.padEnd(2)} token ${w.token}  ${w.accepted ? 'accepted' : `REJECTED (highest seen ${w.highestBefore})`}  "${w.value}"`);
    }
  } finally {
    await resource.close();
    if (server !== undefined) await server.stop();
  }
}

async function scenario(connectString: string, lockPath: string, url: string, key: string): Promise<void> {
  const sessionTimeoutMs = 2000;
  const a = spawn(
    process.execPath,
    ['--conditions=@zk-recipes/source', '--import', 'tsx', here('./workers/fencedWriter.ts'), connectString, lockPath, url, key, String(sessionTimeoutMs), '1000', '100', 'A'],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const exited = new Promise<number | null>((resolve) => a.once('exit', (code) => resolve(code)));
  const waiting = new Set<{ test: (line: WriterLine) => boolean; resolve: (line: WriterLine) => void }>();
  const next = (test: (line: WriterLine) => boolean) => new Promise<WriterLine>((resolve) => waiting.add({ test, resolve }));
  createInterface({ input: a.stdout }).on('line', (text) => {
    const line = JSON.parse(text) as WriterLine;
    for (const w of waiting) if (w.test(line)) (waiting.delete(w), w.resolve(line));
  });

  const session = await ZkSession.connect({ connectString });
  let paused = false;
  try {
    const acquired = await next((l) => l.type === 'acquired');
    await next((l) => l.type === 'write' && l.accepted === true);
    say(`A (pid ${a.pid}) holds the lock with token ${acquired.token} and is writing`);

    const mutex = new InterProcessMutex(session, lockPath, { data: 'B' });
    const bAcquired = mutex.acquire();
    a.kill('SIGSTOP');
    paused = true;
    const pausedAt = Date.now();
    say(`A frozen (SIGSTOP), as a long GC pause would freeze it; B waits for the lock...`);

    const handle = await bAcquired;
    say(`B holds the lock after ${Date.now() - pausedAt} ms (A's ${sessionTimeoutMs} ms session expired), token ${handle.fencingToken}`);
    const written = await fencedWrite(url, { key, token: handle.fencingToken, value: 'B was here', writer: 'B' });
    say(`B writes with token ${handle.fencingToken}: ${written.accepted ? 'accepted' : 'rejected'}`);

    a.kill('SIGCONT');
    paused = false;
    say("A resumed (SIGCONT): it goes on writing without looking at its handle, as code already past its check would");
    const late = await next((l) => l.type === 'write' && l.accepted === false);
    say(`A writes with token ${late.token}: rejected (the resource has seen ${late.highest})`);
    say(`  (A's handle.signal was ${late.signalAborted === true ? 'already' : 'not yet'} aborted when that write went out)`);
    await handle.release();
    await exited;
  } finally {
    if (paused) a.kill('SIGCONT');
    if (a.exitCode === null) a.kill('SIGKILL');
    await session.close();
  }
}

await main();
