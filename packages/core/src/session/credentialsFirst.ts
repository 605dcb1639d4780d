/**
 * The credentials before the requests that wait for a connection (docs/architecture.md, "The wire
 * client's sharp edges", 9).
 *
 * On each new connection the wire client queues its `AUTH` packets (and `SET_WATCHES`) behind
 * the requests already queued while it was disconnected, so those went out first and were served
 * unauthenticated: a read of a node only our credentials may read got `NO_AUTH`, a create with
 * the `auth` scheme `INVALID_ACL`, after every reconnection of a session with digest
 * credentials. As ZooKeeper's Java client does, the connection is primed first: the waiting
 * requests are put back behind what the wire client queued for the new connection.
 */
import type { ConnectionManager } from './wire.js';

/** Installs the reordering on every connection `cm` makes. Must run before `cm.connect()`. */
export function installCredentialsFirst(cm: ConnectionManager): void {
  const original = cm.onSocketConnected;
  cm.onSocketConnected = function onSocketConnectedCredentialsFirst(this: ConnectionManager): void {
    // Nothing is written before the connect response (the queue is flushed when it comes), so
    // the queue's order is the order on the wire.
    const waiting = this.packetQueue.queue.splice(0);
    original.call(this);
    this.packetQueue.queue.push(...waiting);
  };
}
