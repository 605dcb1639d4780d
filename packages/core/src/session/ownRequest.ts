/**
 * A request we encoded ourselves (`requests.ts`), queued through the wire client like its own, but
 * whose reply `wireHardening.ts` hands to our decoder instead of the wire client's
 * (docs/architecture.md, "The session").
 */
import { InvalidArgumentError } from '../errors.js';
import type { JuteReader, ReplyHeader } from './frames.js';
import type { WireRequest } from './wire.js';

/** A request's opcode and body (without the length prefix and xid that the wire adds). */
export interface RequestBody {
  type: number;
  body: Buffer;
}

/**
 * Reads a reply body (the reader positioned after the ReplyHeader) into the call's result; an
 * `Error` returned rejects the call with it (mapped to our errors by the session).
 */
export type ReplyDecoder<T = unknown> = (reader: JuteReader, header: ReplyHeader) => T | Error;

export class OwnRequest implements WireRequest {
  readonly header: { xid: number; type: number };
  // null: the wire client must not touch our (already chrooted) payload.
  readonly payload = null;
  /** The opcode. */
  readonly type: number;
  /** The body: what follows the xid and the opcode. */
  readonly body: Buffer;

  constructor(
    request: RequestBody,
    /** Decodes a success reply. */
    readonly decode: ReplyDecoder,
    /** When true, `decode` also sees error replies (a failed multi still carries per-op results). */
    readonly decodesErrors = false,
  ) {
    this.type = request.type;
    this.body = request.body;
    this.header = { xid: 0, type: request.type };
  }

  /** The frame's length as its 4-byte prefix states it (what the server checks against jute.maxbuffer). */
  get frameLength(): number {
    return 8 + this.body.length;
  }

  toBuffer(): Buffer {
    // xid is assigned by the wire client right before this is called.
    const out = Buffer.allocUnsafe(4 + 8 + this.body.length);
    out.writeInt32BE(8 + this.body.length, 0);
    out.writeInt32BE(this.header.xid, 4);
    out.writeInt32BE(this.header.type, 8);
    this.body.copy(out, 12);
    return out;
  }
}

/**
 * @throws InvalidArgumentError when `request` is over the servers' limit (jute.maxbuffer; the
 * session's `maxRequestBytes`): the server would drop the connection, and the call would repeat.
 */
export function assertRequestFits(op: string, path: string | undefined, request: OwnRequest, maxRequestBytes: number): void {
  if (request.frameLength <= maxRequestBytes) return;
  throw new InvalidArgumentError(
    `${op}: the request is ${request.frameLength} bytes, over the servers' limit of ${maxRequestBytes} (jute.maxbuffer; the session's maxRequestBytes): not sent`,
    { op, ...(path === undefined ? {} : { path }) },
  );
}
