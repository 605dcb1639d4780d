/*
 * What a queue node's data says (docs/architecture.md, "What a node's data says"): the caller's
 * own data, a holder's announcement in front of it, or a revocation request written over it.
 */
/**
 * Node data given as an option, as bytes of the lock's own: a string as UTF-8, bytes copied, so
 * that a caller who reuses its buffer after building the lock does not change what the lock writes.
 */
export function nodeDataOf(data: string | Uint8Array | undefined): Uint8Array | null {
  if (data === undefined) return null;
  return typeof data === 'string' ? Buffer.from(data, 'utf8') : Uint8Array.from(data);
}

/**
 * A holder's announcement (docs/architecture.md, "Holder announcement"): once granted after
 * waiting, an exclusive holder writes this to its own node so that the waiter behind it knows, when
 * the node goes, that it went as the holder. Only an announcement the waiter can attribute to the
 * node's own session counts: anyone may write a node (an operator's `set`, Curator's revocation
 * marker), and a write read as an announcement would hand the lock over while the holder holds.
 *
 * Layout: `zkr:holds:<16 hex digits of the writer's session id>\n` followed by the node's own data.
 */
const PREFIX = 'zkr:holds:';
const HEADER_LENGTH = PREFIX.length + 16 + 1;

/** The data a holder of session `sessionIdHex` writes to announce itself. */
export function announcementOf(sessionIdHex: string, data: Uint8Array | null | undefined): Buffer {
  const header = Buffer.from(`${PREFIX}${sessionIdHex}\n`, 'latin1');
  return data == null || data.length === 0 ? header : Buffer.concat([header, data]);
}

/**
 * Whether `data` is an announcement written by the session that owns the node: the header names
 * the node's `ephemeralOwner` (read with the data, from its stat).
 */
export function isAnnouncement(data: Uint8Array, ephemeralOwner: bigint): boolean {
  if (data.length < HEADER_LENGTH) return false;
  const header = Buffer.from(data.buffer, data.byteOffset, HEADER_LENGTH).toString('latin1');
  if (!header.startsWith(PREFIX) || header[HEADER_LENGTH - 1] !== '\n') return false;
  const owner = BigInt.asUintN(64, ephemeralOwner).toString(16).padStart(16, '0');
  return header.slice(PREFIX.length, HEADER_LENGTH - 1) === owner;
}

/**
 * Curator's revocation protocol (its `Revoker`): whoever wants a lock holder to let go writes this
 * marker as the data of the holder's node; a holder that listens for it (Curator's
 * `makeRevocable`, our `acquire({ onRevoke })`) is asked to release. It is a request, never a
 * forced release: only the holder deletes its node.
 */
export const REVOCATION_MARKER = '__REVOKE__';

const MARKER_BYTES = Buffer.from(REVOCATION_MARKER, 'utf8');

/** The data that asks a node's holder to release (a fresh copy: the caller may keep it). */
export function revocationRequest(): Buffer {
  return Buffer.from(MARKER_BYTES);
}

/** Whether `data` is Curator's revocation marker. */
export function isRevocationRequest(data: Uint8Array | null | undefined): boolean {
  return data != null && MARKER_BYTES.equals(data);
}

/** `data` without a holder's announcement in front of it, if it carries one (any session's). */
export function withoutAnnouncement(data: Uint8Array): Uint8Array {
  if (data.length < HEADER_LENGTH) return data;
  const header = Buffer.from(data.buffer, data.byteOffset, HEADER_LENGTH).toString('latin1');
  if (!ANNOUNCEMENT_HEADER.test(header)) return data;
  return data.subarray(HEADER_LENGTH);
}

const ANNOUNCEMENT_HEADER = /^zkr:holds:[0-9a-f]{16}\n$/;
