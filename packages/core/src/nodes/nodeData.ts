/*
 * What a queue node's data says (docs/architecture.md, "What a node's data says"): the caller's
 * own data (by default, owner data naming this process), or a revocation request written over it.
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
