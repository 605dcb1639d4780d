import { describe, expect, it } from 'vitest';
import { sumTallies, tallyDelta, WireCounter } from '../src/wireTally.js';

/** A frame: length prefix, then the given 32-bit integers. */
function frame(...ints: number[]): Buffer {
  const b = Buffer.alloc(4 + 4 * ints.length);
  b.writeInt32BE(4 * ints.length, 0);
  ints.forEach((v, i) => b.writeInt32BE(v, 4 + 4 * i));
  return b;
}

describe('WireCounter', () => {
  it('counts requests by opcode and writes; pings apart; other negative xids not at all', () => {
    const c = new WireCounter();
    c.request(1, 15); // create2
    c.request(2, 12); // getChildren2
    c.request(3, 2); // delete
    c.request(4, 14); // multi: one write
    c.request(-2, 11); // ping
    c.request(-8, 101); // setWatches
    expect(c.snapshot()).toEqual({
      requests: 4,
      writes: 3,
      byOp: { create2: 1, getChildren2: 1, delete: 1, multi: 1 },
      notifications: 0,
      notificationsByType: {},
      pings: 1,
    });
  });

  it('counts notifications (xid -1) by event type, not replies', () => {
    const c = new WireCounter();
    // xid, zxid (2 ints), err, then the event's type and state.
    c.serverFrame(frame(-1, -1, -1, 0, 2, 3));
    c.serverFrame(frame(-1, -1, -1, 0, 3, 3));
    c.serverFrame(frame(7, 0, 42, 0));
    c.serverFrame(frame(-2, 0, 42, 0));
    const t = c.snapshot();
    expect(t.notifications).toBe(2);
    expect(t.notificationsByType).toEqual({ nodeDeleted: 1, nodeDataChanged: 1 });
  });

  it('tallyDelta and sumTallies leave zero counts out', () => {
    const c = new WireCounter();
    c.request(1, 4);
    const mark = c.snapshot();
    c.request(2, 5);
    const delta = tallyDelta(c.snapshot(), mark);
    expect(delta).toEqual({ requests: 1, writes: 1, byOp: { setData: 1 }, notifications: 0, notificationsByType: {}, pings: 0 });
    expect(sumTallies([delta, mark]).byOp).toEqual({ setData: 1, getData: 1 });
  });
});
