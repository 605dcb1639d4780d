/**
 * A key of a {@link SessionScope} slot: the function that makes the slot's value on first use.
 * The function itself is the key, so a slot is private to the module that holds its function.
 */
export type ScopeKey<Owner, T> = (owner: Owner) => T;

/**
 * What the layers above keep per session (docs/architecture.md, "Per-session state"): one slot per
 * key, made on first use and dropped with the session. The session knows nothing of what is kept:
 * the lock-queue engine keeps its local seats and caches here, passed down from its queue, instead
 * of in module-level maps keyed by session.
 */
export class SessionScope<Owner> {
  private readonly slots = new Map<ScopeKey<Owner, unknown>, unknown>();

  constructor(private readonly owner: Owner) {}

  /** The slot of `key`, made now if this is its first use. */
  get<T>(key: ScopeKey<Owner, T>): T {
    let value = this.slots.get(key) as T | undefined;
    if (value === undefined) {
      value = key(this.owner);
      this.slots.set(key, value);
    }
    return value;
  }
}
