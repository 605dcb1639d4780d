/** ZooKeeper's SASL request and reply records, byte by byte. */
import { describe, expect, it } from 'vitest';
import { JuteWriter } from '../../src/session/frames.js';
import { decodeSaslReply, saslRequestFrame } from '../../src/session/sasl/saslPacket.js';

function saslReply(xid: number, err: number, token: string | null): Buffer {
  const w = new JuteWriter().int(xid).int(0).int(0).int(err);
  return (token === null ? w.int(-1) : w.buffer(Buffer.from(token, 'latin1'))).frame();
}

describe('SASL packets', () => {
  it('request: length, xid, opcode 102, the token as a jute buffer', () => {
    expect(saslRequestFrame(3, Buffer.from('ab')).toString('hex')).toBe('0000000e' + '00000003' + '00000066' + '00000002' + '6162');
  });

  it('reply: xid, error and token; a null buffer or a bare header is no token', () => {
    expect(decodeSaslReply(saslReply(4, 0, 'tok'))).toEqual({ xid: 4, err: 0, token: Buffer.from('tok') });
    expect(decodeSaslReply(saslReply(4, -115, null))).toEqual({ xid: 4, err: -115, token: null });
    expect(decodeSaslReply(new JuteWriter().int(4).int(0).int(0).int(-115).frame())).toEqual({ xid: 4, err: -115, token: null });
    expect(() => decodeSaslReply(saslReply(4, 0, 'token').subarray(0, 26))).toThrow(RangeError);
  });
});
