import { encodeOwnerData, isZkError, parseOwnerData, type NodeOwner } from '@zk-recipes/core';
import { joinPath, type LockQueue } from '@zk-recipes/core/recipe-kit';

/** One participant of an election, as `getParticipants()` and `getLeader()` report it. */
export interface Participant {
  /**
   * Its id: its node's data as UTF-8 (what Curator's `Participant.getId()` reports too), or the
   * `id` its owner data carries (a participant made with `ownerData`).
   */
  readonly id: string;
  /** Whether it leads: the first participant, in sequence order, whose node still exists. */
  readonly isLeader: boolean;
  /** Its node's full path. */
  readonly node: string;
  /**
   * Who made it (host, pid, label), when its node's data is owner data: the default id, or an id
   * kept beside its owner (`ownerData`).
   */
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
    const { id, owner } = participantOf(read.data);
    participants.push({
      id,
      isLeader: participants.length === 0,
      node: joinPath(queue.path, entries[i]!.name),
      owner,
      sessionId: BigInt.asUintN(64, read.stat.ephemeralOwner).toString(16).padStart(16, '0'),
    });
  });
  return participants;
}

/**
 * The data of a participant's node: with no `id`, the owner data (the default id); the id alone, as
 * Curator writes it (what Curator's `getParticipants()` reports); or, `withOwner`, the owner data
 * with the id in it (docs/observability.md, "Owner data").
 */
export function participantData(ownerData: Uint8Array, id: string | undefined, withOwner: boolean): Uint8Array {
  if (id === undefined) return ownerData;
  if (!withOwner) return Buffer.from(id, 'utf8');
  return encodeOwnerData({ ...parseOwnerData(ownerData)!, id });
}

/** A participant's id and owner, from its node's data (whoever wrote it: anything is an id). */
export function participantOf(data: Uint8Array): Pick<Participant, 'id' | 'owner'> {
  const owner = parseOwnerData(data);
  if (owner?.id === undefined) return { id: Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('utf8'), owner };
  const { id, ...who } = owner;
  return { id, owner: who };
}
