/**
 * FaultProxy against a tiny framed echo server (no ZooKeeper needed): it must understand the
 * framing well enough to cut at exact protocol points.
 */
import net from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FaultProxy } from '../../../testing/src/FaultProxy.js';

function frame(body: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeInt32BE(body.length);
  return Buffer.concat([len, body]);
}
/** A request frame: xid, type, payload. */
function request(xid: number, type: number, payload = Buffer.alloc(0)): Buffer {
  const h = Buffer.alloc(8);
  h.writeInt32BE(xid, 0);
  h.writeInt32BE(type, 4);
  return frame(Buffer.concat([h, payload]));
}

let upstream: net.Server;
let upstreamPort: number;
let received: Buffer[];
let proxy: FaultProxy;

beforeEach(async () => {
  received = [];
  // Echo server: answers the first frame with a 'connect response', others with a reply carrying
  // the same xid and a body as long as the request's payload.
  upstream = net.createServer((sock) => {
    let buf = Buffer.alloc(0);
    let first = true;
    sock.on('data', (d: Buffer) => {
      buf = Buffer.concat([buf, d]);
      while (buf.length >= 4 && buf.length >= 4 + buf.readInt32BE(0)) {
        const f = buf.subarray(0, 4 + buf.readInt32BE(0));
        buf = buf.subarray(f.length);
        received.push(f);
        if (first) {
          first = false;
          sock.write(frame(Buffer.alloc(36)));
        } else {
          const xid = f.readInt32BE(4);
          const rh = Buffer.alloc(16);
          rh.writeInt32BE(xid, 0);
          sock.write(frame(Buffer.concat([rh, f.subarray(12)])));
        }
      }
    });
    sock.on('error', () => undefined);
  });
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', () => r()));
  upstreamPort = (upstream.address() as net.AddressInfo).port;
  proxy = await FaultProxy.start({ targetPort: upstreamPort });
});

afterEach(async () => {
  await proxy.close();
  await new Promise<void>((r) => upstream.close(() => r()));
});

interface TestClient {
  sock: net.Socket;
  frames: Buffer[];
  bytes: () => number;
  closed: Promise<void>;
}

async function client(): Promise<TestClient> {
  const sock = net.connect(proxy.port, '127.0.0.1');
  await new Promise<void>((r) => sock.once('connect', () => r()));
  const frames: Buffer[] = [];
  let raw = Buffer.alloc(0);
  let total = 0;
  sock.on('data', (d: Buffer) => {
    total += d.length;
    raw = Buffer.concat([raw, d]);
    while (raw.length >= 4 && raw.length >= 4 + raw.readInt32BE(0)) {
      const f = raw.subarray(0, 4 + raw.readInt32BE(0));
      raw = raw.subarray(f.length);
      frames.push(f);
    }
  });
  sock.on('error', () => undefined);
  const closed = new Promise<void>((r) => sock.once('close', () => r()));
  sock.write(frame(Buffer.alloc(44))); // connect request
  await until(() => frames.length === 1);
  return { sock, frames, bytes: () => total, closed };
}

async function until(cond: () => boolean, ms = 3000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error('timeout');
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('FaultProxy', () => {
  it('forwards frames and records them with xid and type', async () => {
    const c = await client();
    c.sock.write(request(1, 4, Buffer.from('abc')));
    await until(() => c.frames.length === 2);
    expect(c.frames[1]!.readInt32BE(4)).toBe(1);
    const reqs = proxy.frames.filter((f) => f.direction === 'request');
    expect(reqs.map((f) => [f.xid, f.type])).toEqual([
      [undefined, undefined],
      [1, 4],
    ]);
    c.sock.destroy();
  });

  it('blackhole holds traffic both ways and delivers it in order on heal', async () => {
    const c = await client();
    void proxy.blackhole();
    c.sock.write(request(1, 4));
    c.sock.write(request(2, 4));
    await until(() => proxy.frames.filter((f) => f.direction === 'request').length === 3);
    expect(received).toHaveLength(1);
    proxy.heal();
    await until(() => c.frames.length === 3);
    expect(c.frames.slice(1).map((f) => f.readInt32BE(4))).toEqual([1, 2]);
    c.sock.destroy();
  });

  it('blackhole(ms) heals by itself', async () => {
    const c = await client();
    const healed = proxy.blackhole(50);
    c.sock.write(request(7, 3));
    await healed;
    await until(() => c.frames.length === 2);
    c.sock.destroy();
  });

  it('cutMidNextReply forwards part of the next large reply, then closes', async () => {
    const c = await client();
    const cut = proxy.cutMidNextReply({ minLength: 100 });
    c.sock.write(request(1, 4, Buffer.alloc(10))); // small reply: forwarded whole
    await until(() => c.frames.length === 2);
    c.sock.write(request(2, 4, Buffer.alloc(200)));
    await cut;
    await c.closed;
    const replyLength = 4 + 16 + 200;
    const before = 36 + 4 + (4 + 16 + 10);
    expect(c.bytes() - before).toBe(Math.floor(replyLength / 2));
    expect(c.frames).toHaveLength(2);
  });

  it('cutAfterNextRequest forwards the request, swallows its reply and cuts', async () => {
    const c = await client();
    const cut = proxy.cutAfterNextRequest(15);
    c.sock.write(request(1, 4));
    c.sock.write(request(2, 15, Buffer.from('create')));
    await cut;
    await c.closed;
    expect(received.map((f) => (f.length >= 12 ? f.readInt32BE(8) : null)).slice(1)).toEqual([4, 15]);
    expect(c.frames.map((f) => f.readInt32BE(4)).slice(1)).toEqual([1]);
  });

  it('dropNextRequest swallows the next request of its opcode and cuts (true); disarmed by its signal first, it lets it through (false)', async () => {
    const c = await client();
    const disarm = new AbortController();
    const disarmed = proxy.dropNextRequest(15, { signal: disarm.signal });
    disarm.abort();
    expect(await disarmed).toBe(false);
    c.sock.write(request(1, 15, Buffer.from('create')));
    await until(() => c.frames.length === 2);
    const dropped = proxy.dropNextRequest(15, { signal: new AbortController().signal });
    c.sock.write(request(2, 4));
    c.sock.write(request(3, 15, Buffer.from('create')));
    expect(await dropped).toBe(true);
    await c.closed;
    // The server saw the first create and the read, never the second create.
    expect(received.map((f) => (f.length >= 12 ? f.readInt32BE(8) : null)).slice(1)).toEqual([15, 4]);
    expect(await proxy.dropNextRequest(15, { signal: AbortSignal.abort() })).toBe(false);
  });

  it('dropConnections and refuseConnections', async () => {
    const c = await client();
    proxy.dropConnections();
    await c.closed;
    proxy.refuseConnections();
    const s = net.connect(proxy.port, '127.0.0.1');
    s.on('error', () => undefined);
    await new Promise<void>((r) => s.once('close', () => r()));
    proxy.refuseConnections(false);
    const again = await client();
    expect(proxy.connectionCount).toBe(1);
    again.sock.destroy();
  });
});
