/**
 * A request we encoded ourselves (`requests.ts`), queued through the wire client like its own, but
 * whose reply `wireHardening.ts` hands to our decoder instead of the wire client's
 * (docs/architecture.md, "The session").
 */
import { InvalidArgumentError } from '../errors.js';
import type { ReplyCode } from './errorMapping.js';
import { JuteWriter, type JuteReader, type ReplyHeader } from './frames.js';
import type { WireRequest } from './wire.js';

/** Bytes in front of a request's body: its length prefix, xid and opcode. */
const PREFIX = 12;

/**
 * A request's opcode and body, the body written after room for the prefix the wire adds (length,
 * xid, opcode), so that sending it copies nothing.
 */
export class RequestBody {
  constructor(
    readonly type: number,
    /** {@link PREFIX} bytes of room, then the body. */
    readonly frame: Buffer,
  ) {}

  /** What follows the xid and the opcode. */
  get body(): Buffer {
    return this.frame.subarray(PREFIX);
  }

  /** A writer for a request's body, with room for its prefix in front. */
  static writer(): JuteWriter {
    return new JuteWriter(PREFIX);
  }

  /** The request `writer` (from {@link writer}) wrote. */
  static of(type: number, writer: JuteWriter): RequestBody {
    return new RequestBody(type, writer.written());
  }
}

/**
 * Reads a reply body (the reader positioned after the ReplyHeader) into the call's result; an
 * `Error` or a {@link ReplyCode} returned rejects the call with it (mapped to our errors by the
 * session).
 */
export type ReplyDecoder<T = unknown> = (reader: JuteReader, header: ReplyHeader) => T | Error | ReplyCode;

export class OwnRequest implements WireRequest {
  readonly header: { xid: number; type: number };
  // null: the wire client must not touch our (already chrooted) payload.
  readonly payload = null;
  /** The opcode. */
  readonly type: number;
  /** Room for the prefix, then the body (see {@link RequestBody}). */
  private readonly frame: Buffer;

  constructor(
    request: RequestBody,
    /** Decodes a success reply. */
    readonly decode: ReplyDecoder,
    /** When true, `decode` also sees error replies (a failed multi still carries per-op results). */
    readonly decodesErrors = false,
  ) {
    this.type = request.type;
    this.frame = request.frame;
    this.header = { xid: 0, type: request.type };
  }

  /** The body: what follows the xid and the opcode. */
  get body(): Buffer {
    return this.frame.subarray(PREFIX);
  }

  /** The frame's length as its 4-byte prefix states it (what the server checks against jute.maxbuffer). */
  get frameLength(): number {
    return this.frame.length - 4;
  }

  /**
   * Reads the reply to this request into the call's result (see {@link ReplyDecoder}). A request
   * that sets a watch registers it here, once the reply says the server set it.
   */
  read(reader: JuteReader, header: ReplyHeader): unknown {
    return this.decode(reader, header);
  }

  /**
   * The whole frame, written in place: the wire client assigns the xid right before it calls this,
   * and a request is sent again (after a reconnection, with a new xid) only once the socket that
   * had it is gone.
   */
  toBuffer(): Buffer {
    const frame = this.frame;
    frame.writeInt32BE(frame.length - 4, 0);
    frame.writeInt32BE(this.header.xid, 4);
    frame.writeInt32BE(this.header.type, 8);
    return frame;
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
