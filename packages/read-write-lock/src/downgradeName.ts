import { PROTECTED_HEADER_LENGTH, protectionGuidOf } from '@zk-recipes/core/recipe-kit';
import type { ReadWriteNaming } from './naming.js';

/**
 * The name of the read node a downgrade of the write node `writeName` creates: the same name with
 * the read kind in place of the write kind (same GUID, same sequence), e.g.
 * `_c_<uuid>-write-0000000005` → `_c_<uuid>-read-0000000005`. Being known in advance, it can be
 * watched for creation by the writers queued behind (see `rules.ts`). `null` for a name this
 * library does not write (unprotected, or of another kind): such a node is never downgraded by us.
 */
export function downgradeNameOf(writeName: string, naming: ReadWriteNaming): string | null {
  if (protectionGuidOf(writeName) === null || !writeName.startsWith(naming.write, PROTECTED_HEADER_LENGTH)) return null;
  return writeName.slice(0, PROTECTED_HEADER_LENGTH) + naming.read + writeName.slice(PROTECTED_HEADER_LENGTH + naming.write.length);
}
