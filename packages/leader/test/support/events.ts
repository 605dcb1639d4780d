import type { EventEmitter } from 'eventemitter3';
import type { LeaderEvents } from '@zk-recipes/leader';

/** The arguments of `emitter`'s next `event` (a latch's or a selector's). */
export function nextEvent<E extends keyof LeaderEvents>(emitter: EventEmitter<LeaderEvents>, event: E): Promise<Parameters<LeaderEvents[E]>> {
  return new Promise((resolve) => {
    (emitter as unknown as EventEmitter).once(event, (...args: unknown[]) => resolve(args as Parameters<LeaderEvents[E]>));
  });
}
