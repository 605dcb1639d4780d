import { InvalidArgumentError } from '../errors.js';
import { splitConnectString } from '../session/connectString.js';
import { createRequest } from '../session/requests.js';
import type { AclEntry } from '../session/types.js';
import type { ZkSession } from '../session/ZkSession.js';

/**
 * Refuses, before anything is created, a lock node the session would refuse to send (over its
 * `maxRequestBytes`): checked only at the create, the refusal would come after the lock directory
 * and its parents were made, and a container that never had a child is never reaped.
 *
 * @throws InvalidArgumentError (`INVALID_ARGUMENT`), as the session's own guard words it
 */
export function assertLockNodeFits(session: ZkSession, path: string, data: Uint8Array | null | undefined): void {
  // Every acquisition carries data (its owner, by default): encode the request again only when a
  // generous bound on its size comes near the limit, never on the common path.
  if (data === null || data === undefined || data.length === 0) return;
  const limit = session.options.maxRequestBytes;
  if (requestSizeBound(path, data, session.defaultAcl) <= limit) return;
  const chroot = splitConnectString(session.options.connectString).chroot || undefined;
  // The frame: its 8-byte header (xid, type) and the body, as the session measures it.
  const frameLength = 8 + createRequest(chroot, path, data, session.defaultAcl, 'ephemeral_sequential').body.length;
  if (frameLength > limit) {
    throw new InvalidArgumentError(
      `create: the request is ${frameLength} bytes, over the servers' limit of ${limit} (jute.maxbuffer; the session's maxRequestBytes): not sent, and no lock directory created`,
      { op: 'create', path },
    );
  }
}

/**
 * At least the size of a create request frame for `path` with `data` and `acl`: every string is
 * counted at 3 bytes a UTF-16 unit (UTF-8's most), every field with room to spare.
 */
function requestSizeBound(path: string, data: Uint8Array, acl: readonly AclEntry[]): number {
  let size = 64 + 3 * path.length + data.length;
  for (const entry of acl) size += 16 + 3 * (entry.scheme.length + entry.id.length);
  return size;
}
