/**
 * What a run cost the ZooKeeper servers, read from their own counters before and after (no proxy
 * in the path: a proxy would add a hop to every request and change the timings being measured).
 * - requests: `mntr` zk_packets_received, summed over the servers (client packets only; quorum
 *   traffic between servers is not counted there). Includes pings and each session's close.
 * - notifications: zk_packets_sent - zk_packets_received: every request gets one reply, so what
 *   the servers sent beyond that were watch notifications.
 * - writes: the growth of the zxid (`srvr`), which counts every transaction once: creates,
 *   deletes, setData, multi, and the sessions' closes, which the caller deducts.
 * The bench's own four-letter words are counted as packets too (a handful per run).
 */
import { fourLetterWord } from '@zk-recipes/testing';

export interface ServerCounters {
  packetsReceived: number;
  packetsSent: number;
  zxid: number;
}

async function readOne(address: string): Promise<ServerCounters> {
  const [host, port] = address.split('/')[0]!.split(':') as [string, string];
  const mntr = await fourLetterWord(host, Number(port), 'mntr');
  const srvr = await fourLetterWord(host, Number(port), 'srvr');
  const num = (re: RegExp, text: string): number => Number(re.exec(text)?.[1] ?? Number.NaN);
  return {
    packetsReceived: num(/^zk_packets_received\s+(\d+)/m, mntr),
    packetsSent: num(/^zk_packets_sent\s+(\d+)/m, mntr),
    // The low 32 bits count transactions within an epoch (the high ones change only on election).
    zxid: Number(BigInt(/^Zxid:\s*(0x[0-9a-fA-F]+)/m.exec(srvr)?.[1] ?? '0') & 0xffffffffn),
  };
}

/** Every server's counters, summed (packets) or the highest (zxid). */
export async function readServerCounters(connectString: string): Promise<ServerCounters> {
  const all = await Promise.all(connectString.split(',').map(readOne));
  return {
    packetsReceived: all.reduce((s, c) => s + c.packetsReceived, 0),
    packetsSent: all.reduce((s, c) => s + c.packetsSent, 0),
    zxid: Math.max(...all.map((c) => c.zxid)),
  };
}

/** Requests, writes and notifications between two reads; `sessionsClosed` closes are deducted from the writes and requests. */
export function serverCost(before: ServerCounters, after: ServerCounters, sessionsClosed: number): { requests: number; writes: number; notifications: number } {
  const received = after.packetsReceived - before.packetsReceived;
  return {
    requests: received - sessionsClosed,
    writes: after.zxid - before.zxid - sessionsClosed,
    notifications: after.packetsSent - before.packetsSent - received,
  };
}
