import { isZkError, parseOwnerData, type NodeOwner } from '@zk-recipes/core';
import { joinPath, type LockQueue } from '@zk-recipes/core/recipe-kit';

/** One participant of an election, as `getParticipants()` and `getLeader()` report it. */
export interface Participant {
  /** Its id: its node's data as UTF-8 (what Curator's `Participant.getId()` reports too). */
  readonly id: string;
  /** Whether it leads: the first participant, in sequence order, whose node still exists. */
  readonly isLeader: boolean;
  /** Its node's full path. */
  readonly node: string;
  /** The owner data its id carries (host, pid, label), when its id is owner data (the default id). */
  readonly owner: NodeOwner | undefined;
  /** The ZooKeeper session that owns its node (its `ephemeralOwner`, 16 hex digits). */
  readonly sessionId: string;
}

/**
 * Every participant of the election, in sequence order, the leader first: lists the directory,
 * reads each node's data (pipelined), and drops those gone since the listing. Curator's rule: the
 * first node still there leads.
 */
export async function readParticipants(queue: LockQueue): Promise<Participant[]> {
  const entries = await queue.participants();
  const reads = await Promise.all(
    entries.map((entry) =>
      queue.session.getData(joinPath(queue.path, entry.name)).catch((err: unknown) => {
        if (isZkError(err, 'NO_NODE')) return null;
        throw err;
      }),
    ),
  );
  const participants: Participant[] = [];
  reads.forEach((read, i) => {
    if (read === null) return;
    const data = read.data;
    participants.push({
      id: Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('utf8'),
      isLeader: participants.length === 0,
      node: joinPath(queue.path, entries[i]!.name),
      owner: parseOwnerData(data),
      sessionId: BigInt.asUintN(64, read.stat.ephemeralOwner).toString(16).padStart(16, '0'),
    });
  });
  return participants;
}
