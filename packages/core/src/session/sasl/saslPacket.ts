/**
 * ZooKeeper's SASL request and reply on the wire: a request header with OpCode `sasl` (102) and
 * the jute record GetSASLRequest (one buffer, the client's token); the reply is a ReplyHeader and
 * SetSASLResponse (one buffer, the server's token; null after a failure). The server answers it
 * at once, outside its request pipeline (docs/security.md).
 */
import { JuteReader, JuteWriter, readReplyHeader } from '../frames.js';

/** ZooDefs.OpCode.sasl */
export const OP_SASL = 102;

/** The whole frame (length prefix included) of a SASL request carrying `token`. */
export function saslRequestFrame(xid: number, token: Uint8Array): Buffer {
  return new JuteWriter().int(xid).int(OP_SASL).buffer(token).frame();
}

/** A SASL reply: its xid, the server's error code (0: none) and its token (null when absent). */
export interface SaslReply {
  xid: number;
  err: number;
  token: Buffer | null;
}

/** Reads a SASL reply frame (length prefix included). Throws a RangeError when it is truncated. */
export function decodeSaslReply(frame: Buffer): SaslReply {
  const { xid, err } = readReplyHeader(frame);
  // A refusal may end right after the header; a null buffer is length -1.
  if (frame.length === 20 || frame.readInt32BE(20) < 0) return { xid, err, token: null };
  return { xid, err, token: new JuteReader(frame, 20).buffer() };
}
