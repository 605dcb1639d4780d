/** The diagnostics channels core publishes on (docs/observability.md, "Diagnostics channels"). */
export const ACQUIRE_TRACING_CHANNEL = 'zk-recipes:acquire';
export const RELEASE_CHANNEL = 'zk-recipes:release';
export const LOST_CHANNEL = 'zk-recipes:lost';
export const SESSION_CHANNEL = 'zk-recipes:session';
