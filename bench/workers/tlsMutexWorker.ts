/**
 * One contender of `bench/tls.ts`'s hand-off scenario: loops acquire → hold → release on one
 * InterProcessMutex with its own session, over TLS when `ZKR_BENCH_TLS` holds `{ ca, cert, key }`
 * (JSON), in plaintext otherwise; one JSON line per critical section, as the mutex worker does.
 * Usage: tlsMutexWorker.ts <connectString> <lockPath> <iterations> <holdMs>
 */
import { ZkSession, type TlsOptions } from '@zk-recipes/core';
import { InterProcessMutex } from '@zk-recipes/mutex';
import { report, workerName, workerReady } from '@zk-recipes/testing';

const [connectString, lockPath, iterationsArg, holdMsArg] = process.argv.slice(2);
if (connectString === undefined || lockPath === undefined) throw new Error('usage: tlsMutexWorker.ts <connectString> <lockPath> <iterations> <holdMs>');
const iterations = Number(iterationsArg ?? 20);
const holdMs = Number(holdMsArg ?? 1);
const worker = workerName();
const tlsJson = process.env['ZKR_BENCH_TLS'];
const tls = tlsJson === undefined || tlsJson === '' ? undefined : (JSON.parse(tlsJson) as TlsOptions);

const session = await ZkSession.connect({ connectString, sessionTimeoutMs: 10_000, ...(tls === undefined ? {} : { tls }) });
const mutex = new InterProcessMutex(session, lockPath);
await workerReady();
for (let i = 0; i < iterations; i++) {
  const handle = await mutex.acquire();
  const start = process.hrtime.bigint();
  if (holdMs > 0) await new Promise((resolve) => setTimeout(resolve, holdMs));
  const end = process.hrtime.bigint();
  await handle.release();
  report({ type: 'section', worker, start, end });
}
await session.close();
report({ type: 'done', worker });
