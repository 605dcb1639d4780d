/** Small helpers for the testing package's own tests (raw wire client, process checks, polling). */
import { createRawClient, type RawClient } from '../src/rawClient.js';

/** Whether a process with this PID exists (a zombie counts as gone for our purposes once reaped). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Polls `fn` every 25 ms until it returns true; throws after `timeoutMs`. */
export async function until(fn: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await fn())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** A connected raw node-zookeeper-client. */
export async function connectRaw(connectString: string, sessionTimeout = 4_000): Promise<RawClient> {
  const client = createRawClient(connectString, { sessionTimeout, spinDelay: 50 });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`raw client: no connection to ${connectString}`)), 15_000);
    client.on('connected', () => {
      clearTimeout(timer);
      resolve();
    });
    client.connect();
  });
  return client;
}

/** Promise wrappers over the raw client's callbacks. */
export function rawCreate(client: RawClient, path: string, mode: number): Promise<string> {
  return new Promise((resolve, reject) => client.create(path, null, mode, (err, p) => (err ? reject(err) : resolve(p ?? path))));
}

export function rawExists(client: RawClient, path: string): Promise<boolean> {
  return new Promise((resolve, reject) => client.exists(path, (err, stat) => (err ? reject(err) : resolve(stat !== null && stat !== undefined))));
}

/** Creates each missing ancestor of `path` (persistent), then nothing else. */
export async function rawMkdirs(client: RawClient, path: string): Promise<void> {
  const parts = path.split('/').filter(Boolean);
  for (let i = 1; i <= parts.length; i++) {
    const p = `/${parts.slice(0, i).join('/')}`;
    if (!(await rawExists(client, p))) {
      await rawCreate(client, p, 0).catch(async (err: unknown) => {
        if (!(await rawExists(client, p))) throw err;
      });
    }
  }
}

/** Rejects with `what` in the message if `promise` takes longer than `ms` (says which step hung). */
export function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what}: no result within ${ms} ms`)), ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (err: unknown) => {
        clearTimeout(timer);
        reject(err);
      },
    );
  });
}

/** Attaches a fresh raw client to an existing session: 'expired' if the server says so, else 'connected' (then closes). */
export function attach(connectString: string, creds: { sessionId: Buffer; password: Buffer }): Promise<'expired' | 'connected'> {
  const client = createRawClient(connectString, { sessionId: creds.sessionId, sessionPassword: creds.password, sessionTimeout: 4_000, spinDelay: 50 });
  return new Promise((resolve) => {
    client.on('expired', () => resolve('expired'));
    client.on('connected', () => {
      client.close();
      resolve('connected');
    });
    client.connect();
  });
}
