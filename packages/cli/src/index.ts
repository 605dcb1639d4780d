/**
 * @zk-recipes/cli: the `zk-recipes` command (inspect, ls, revoke), and the same reads for programs:
 * every contender of a lock with its role, session, age and owner; the locks under a root.
 *
 * @module @zk-recipes/cli
 */
export { main, EXIT, HELP } from './main.js';
export type { Io } from './commands/Io.js';
export { readLockSnapshot, type ReadLockOptions } from './lock/readLockSnapshot.js';
export { findLocks } from './lock/findLocks.js';
export { watchLock } from './commands/watchLock.js';
export { CliError } from './lock/CliError.js';
export { UsageError } from './options/UsageError.js';
export type { Contender, ContenderKind, ContenderOwner, LockSnapshot, Recipe, Role } from './lock/LockSnapshot.js';
export type { LockListing, LockSummary } from './render/lsText.js';
