import { InvalidArgumentError } from '../errors.js';
import { splitConnectString } from '../session/connectString.js';
import { createRequest } from '../session/requests.js';
import type { ZkSession } from '../session/ZkSession.js';

/**
 * Refuses, before anything is created, a lock node the session would refuse to send (over its
 * `maxRequestBytes`): checked only at the create, the refusal would come after the lock directory
 * and its parents were made, and a container that never had a child is never reaped.
 *
 * @throws InvalidArgumentError (`INVALID_ARGUMENT`), as the session's own guard words it
 */
export function assertLockNodeFits(session: ZkSession, path: string, data: Uint8Array | null | undefined): void {
  // Without data a lock node's request is a few hundred bytes: not worth encoding twice.
  if (data === null || data === undefined || data.length === 0) return;
  const chroot = splitConnectString(session.options.connectString).chroot || undefined;
  // The frame: its 8-byte header (xid, type) and the body, as the session measures it.
  const frameLength = 8 + createRequest(chroot, path, data, session.defaultAcl, 'ephemeral_sequential').body.length;
  const limit = session.options.maxRequestBytes;
  if (frameLength > limit) {
    throw new InvalidArgumentError(
      `create: the request is ${frameLength} bytes, over the servers' limit of ${limit} (jute.maxbuffer; the session's maxRequestBytes): not sent, and no lock directory created`,
      { op: 'create', path },
    );
  }
}
