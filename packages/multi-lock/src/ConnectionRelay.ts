import type { MultiLockMember } from './MultiLockMember.js';

/** A member that reports its connection (every QueueLock does, while it is held). */
interface EmittingMember {
  on(event: 'suspended' | 'reconnected' | 'lost', listener: () => void): unknown;
  off(event: 'suspended' | 'reconnected' | 'lost', listener: () => void): unknown;
}

function emits(member: MultiLockMember): member is MultiLockMember & EmittingMember {
  const candidate = member as Partial<EmittingMember>;
  return typeof candidate.on === 'function' && typeof candidate.off === 'function';
}

/**
 * Folds the members' `suspended` / `reconnected` events into one pair for the multi-lock:
 * `suspended` when the first member's connection drops, `reconnected` when the last one is back
 * (never once a member was lost).
 * Members sharing one session would otherwise report the same drop once each.
 */
export class ConnectionRelay {
  private readonly suspended = new Set<MultiLockMember>();
  private readonly detachers: Array<() => void> = [];

  constructor(
    private readonly members: readonly MultiLockMember[],
    private readonly emit: (event: 'suspended' | 'reconnected') => void,
  ) {}

  /** Starts listening to every member that emits connection events. */
  attach(): void {
    for (const member of this.members) {
      if (!emits(member)) continue;
      const onSuspended = () => {
        this.suspended.add(member);
        if (this.suspended.size === 1) this.emit('suspended');
      };
      const onBack = () => {
        if (this.suspended.delete(member) && this.suspended.size === 0) this.emit('reconnected');
      };
      // A lost member never comes back: the multi-lock is not whole again, so no more
      // `reconnected` (nor `suspended`: `lost` is what matters now).
      const onLost = () => {
        this.suspended.add(member);
      };
      member.on('suspended', onSuspended);
      member.on('reconnected', onBack);
      member.on('lost', onLost);
      this.detachers.push(() => {
        member.off('suspended', onSuspended);
        member.off('reconnected', onBack);
        member.off('lost', onLost);
      });
    }
  }

  /** Stops listening. */
  detach(): void {
    for (const detach of this.detachers.splice(0)) detach();
    this.suspended.clear();
  }
}
