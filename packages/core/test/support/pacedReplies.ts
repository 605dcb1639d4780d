/**
 * A TCP proxy in front of one ZooKeeper server that hands the client each server frame on its own,
 * `gapMs` after the previous one: the client reads every reply and watch event in a chunk of its
 * own, in a later turn of its event loop than the frame before (everything the client does on a
 * frame, setImmediate callbacks included, is done before it reads the next). Requests pass as they
 * come. For the races that need the server's frames of one batch read apart.
 */
import net from 'node:net';

export interface PacedProxy {
  readonly connectString: string;
  close(): Promise<void>;
}

export async function pacedReplies(target: { host: string; port: number }, gapMs: number): Promise<PacedProxy> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(target.port, target.host);
    sockets.add(client).add(upstream);
    const end = (): void => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
    client.pipe(upstream);
    let pending = Buffer.alloc(0);
    const frames: Buffer[] = [];
    let pacing = false;
    const next = (): void => {
      const frame = frames.shift();
      if (frame === undefined) {
        pacing = false;
        return;
      }
      client.write(frame);
      setTimeout(next, gapMs);
    };
    upstream.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      while (pending.length >= 4 && pending.length >= 4 + pending.readInt32BE(0)) {
        const length = 4 + pending.readInt32BE(0);
        frames.push(pending.subarray(0, length));
        pending = pending.subarray(length);
      }
      if (!pacing) {
        pacing = true;
        next();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    connectString: `127.0.0.1:${port}`,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
