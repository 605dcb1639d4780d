/**
 * Node data given as an option, as bytes of the lock's own: a string as UTF-8, bytes copied, so
 * that a caller who reuses its buffer after building the lock does not change what the lock writes.
 */
export function nodeDataOf(data: string | Uint8Array | undefined): Uint8Array | null {
  if (data === undefined) return null;
  return typeof data === 'string' ? Buffer.from(data, 'utf8') : Uint8Array.from(data);
}
