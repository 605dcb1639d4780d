/**
 * What every demo worker process shares (examples/demo/processes.ts is the other side): it reports
 * events as JSON lines on stdout, each stamped with `process.hrtime.bigint()` (CLOCK_MONOTONIC, the
 * same clock in every process of the machine, so the demo can compare sections across processes),
 * and takes commands as lines on stdin. A closed stdin means the demo is gone: the worker exits.
 */
import { createInterface } from 'node:readline';
import { ZkSession } from '@zk-recipes/core';

/** This worker's name (`mutex-2`, `reader-1`...): the demo's lane label and the session's label. */
export const name = process.env.DEMO_WORKER_NAME ?? `pid-${process.pid}`;

export const now = (): bigint => process.hrtime.bigint();

/** Prints one event line: `{ type, name, at, ...fields }` (bigints as decimal strings). */
export function report(type: string, fields: Record<string, unknown> = {}): void {
  const line = { type, name, at: now(), ...fields };
  process.stdout.write(`${JSON.stringify(line, (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value))}\n`);
}

const received = new Set<string>();
const waiting = new Map<string, () => void>();
const input = createInterface({ input: process.stdin });
input.on('line', (text) => {
  const command = text.trim();
  received.add(command);
  waiting.get(command)?.();
});
input.on('close', () => process.exit(0));

/** Resolves once the demo has sent `command` (at once if it already has). */
export function command(command: string): Promise<void> {
  if (received.has(command)) return Promise.resolve();
  return new Promise((resolve) => waiting.set(command, resolve));
}

/** Connects a session of its own, reports `ready` (pid, session id, negotiated timeout) and waits for `go`. */
export async function connectAndWait(connectString: string, sessionTimeoutMs = 10_000): Promise<ZkSession> {
  const session = await ZkSession.connect({ connectString, sessionTimeoutMs, label: name });
  report('ready', { pid: process.pid, session: session.sessionId, timeoutMs: session.negotiatedSessionTimeoutMs });
  await command('go');
  return session;
}

/** Closes the session, says `done` and exits (stdin would keep the process alive). */
export async function finish(session: ZkSession): Promise<never> {
  await session.close();
  report('done');
  process.exit(0);
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
