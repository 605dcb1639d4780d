/**
 * @zk-recipes/semaphore: a distributed counting semaphore with leases (herd-free FIFO `queue`
 * layout, or Curator's InterProcessSemaphoreV2 layout) and a SharedCount for a run-time maximum.
 *
 * @module @zk-recipes/semaphore
 */
export { InterProcessSemaphore } from './InterProcessSemaphore.js';
export type { Lease } from './Lease.js';
export type { Leases } from './Leases.js';
export type { SemaphoreOptions, SemaphoreLayout } from './options.js';
export {
  SharedCount,
  encodeCount,
  decodeCount,
  type SharedCountOptions,
  type SharedCountEvents,
  type VersionedCount,
} from './SharedCount.js';
export { leaseQueueRule, curatorCountRule } from './rules.js';
export { LEASE_KIND, leaseKind, weightOfKind } from './leaseKinds.js';
export type { AcquireOptions } from '@zk-recipes/core';
