/**
 * `@zk-recipes/core/internal`: for this repository's tests and `@zk-recipes/testing` only. NOT
 * public API: anything here may change or go in any release (docs/packaging.md).
 */
export { sessionInternals, type SessionInternals } from './session/sessionInternals.js';
