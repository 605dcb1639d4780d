/**
 * A fenced resource: a tiny key/value store that remembers, per key, the highest fencing token
 * that has written it and refuses any write carrying a lower one.
 *
 * Why: a lock holder can be paused (a GC pause, SIGSTOP, a swapped-out VM) for longer than its
 * ZooKeeper session. The server then expires the session, deletes the lock node, and the next
 * contender takes the lock; when the paused process wakes, it still believes it holds the lock
 * and its next write goes out before it has had a chance to notice. No client-side check can close
 * that window (the pause can fall between the check and the write). The resource can: every
 * holder sends its `handle.fencingToken` (the lock node's `czxid`, which only grows), and the
 * resource rejects a token older than one it has already accepted.
 *
 * `FencedStore` is the rule, in memory; `startFencedResource()` serves it over HTTP on 127.0.0.1
 * (so that other processes can write to it); `fencedWrite()` is the client.
 */
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One write as the store saw it. */
export interface FencedWriteRecord {
  key: string;
  token: bigint;
  value: string;
  /** Who wrote (free text, for logs). */
  writer: string;
  accepted: boolean;
  /** The highest token accepted for the key before this write. */
  highestBefore: bigint | undefined;
}

/** The store's answer to a write. */
export type FencedWriteResult =
  | { accepted: true; highest: bigint }
  | { accepted: false; highest: bigint; reason: string };

/** The rule: per key, accept a token only if it is not lower than the highest accepted so far. */
export class FencedStore {
  private readonly values = new Map<string, { token: bigint; value: string }>();
  /** Every write, accepted or not, in arrival order. */
  readonly log: FencedWriteRecord[] = [];

  write(key: string, token: bigint, value: string, writer = ''): FencedWriteResult {
    const current = this.values.get(key);
    const highestBefore = current?.token;
    // Equal tokens are accepted: one holder writes many times under one token.
    const accepted = highestBefore === undefined || token >= highestBefore;
    this.log.push({ key, token, value, writer, accepted, highestBefore });
    if (!accepted) {
      return { accepted: false, highest: highestBefore, reason: `token ${token} is older than ${highestBefore}, already seen for ${key}` };
    }
    this.values.set(key, { token, value });
    return { accepted: true, highest: token };
  }

  read(key: string): { token: bigint; value: string } | undefined {
    return this.values.get(key);
  }
}

/** A running {@link FencedStore} behind HTTP. */
export interface FencedResource {
  /** e.g. `http://127.0.0.1:40123` */
  readonly url: string;
  readonly store: FencedStore;
  close(): Promise<void>;
}

/**
 * Serves a {@link FencedStore} on 127.0.0.1 (an ephemeral port unless `port` is given).
 * `POST /write` with a JSON body `{ key, token, value, writer? }` (token as a decimal string):
 * 200 `{ accepted: true, highest }`, or 409 `{ accepted: false, highest, reason }` for a stale token.
 */
export async function startFencedResource(options: { port?: number } = {}): Promise<FencedResource> {
  const store = new FencedStore();
  const server = createServer((req, res) => {
    void handle(store, req, res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    store,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}

async function handle(store: FencedStore, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const reply = (status: number, body: object) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body, (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value)));
  };
  if (req.method !== 'POST' || req.url !== '/write') return reply(404, { error: 'POST /write only' });
  let body: { key?: unknown; token?: unknown; value?: unknown; writer?: unknown };
  try {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as typeof body;
  } catch {
    return reply(400, { error: 'body must be JSON' });
  }
  const { key, token, value, writer } = body;
  if (typeof key !== 'string' || typeof token !== 'string' || !/^\d+$/.test(token) || typeof value !== 'string') {
    return reply(400, { error: 'want { key: string, token: decimal string, value: string, writer?: string }' });
  }
  const result = store.write(key, BigInt(token), value, typeof writer === 'string' ? writer : '');
  reply(result.accepted ? 200 : 409, result);
}

/**
 * Writes `value` under `key` with a fencing token; resolves with the resource's verdict. Each write
 * uses a fresh connection: a kept-alive one may have been closed by the server while this process
 * was paused, which is exactly when the write matters.
 */
export function fencedWrite(
  url: string,
  write: { key: string; token: bigint; value: string; writer?: string },
): Promise<FencedWriteResult> {
  const body = JSON.stringify({ ...write, token: write.token.toString() });
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}/write`,
      { method: 'POST', agent: false, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          try {
            const answer = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { accepted?: boolean; highest?: string; reason?: string; error?: string };
            if ((res.statusCode !== 200 && res.statusCode !== 409) || answer.highest === undefined) {
              throw new Error(`fenced resource: HTTP ${res.statusCode}: ${answer.error ?? ''}`);
            }
            resolve(
              answer.accepted === true
                ? { accepted: true, highest: BigInt(answer.highest) }
                : { accepted: false, highest: BigInt(answer.highest), reason: answer.reason ?? '' },
            );
          } catch (err) {
            reject(err as Error);
          }
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
