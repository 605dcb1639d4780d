import type { Stat } from '../session/types.js';

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
 * Whether `data` (read with `stat`) is an announcement written by the session that owns the node:
 * the header names the node's `ephemeralOwner`.
 */
export function isAnnouncement(data: Uint8Array, stat: Pick<Stat, 'ephemeralOwner'>): boolean {
  if (data.length < HEADER_LENGTH) return false;
  const header = Buffer.from(data.buffer, data.byteOffset, HEADER_LENGTH).toString('latin1');
  if (!header.startsWith(PREFIX) || header[HEADER_LENGTH - 1] !== '\n') return false;
  const owner = BigInt.asUintN(64, stat.ephemeralOwner).toString(16).padStart(16, '0');
  return header.slice(PREFIX.length, HEADER_LENGTH - 1) === owner;
}
