/**
 * A set that usually holds one member: the first lives in a field and a `Set` is made only for a
 * second. Ten thousand queued waiters each own a few of these (one watcher per watched node, one
 * stop listener per acquisition); an empty `Set` with its hash table costs about 200 bytes.
 */
export class SmallSet<T> {
  private first: T | undefined;
  private more: Set<T> | undefined;

  add(member: T): void {
    if (this.first === undefined && this.more === undefined) this.first = member;
    else if (this.first !== member) (this.more ??= new Set()).add(member);
  }

  delete(member: T): void {
    if (this.first === member) this.first = undefined;
    else this.more?.delete(member);
  }

  has(member: T): boolean {
    return this.first === member || this.more?.has(member) === true;
  }

  get size(): number {
    return (this.first === undefined ? 0 : 1) + (this.more?.size ?? 0);
  }

  /** The members now, as an array (safe to iterate while members are removed). */
  toArray(): T[] {
    const all: T[] = this.first === undefined ? [] : [this.first];
    if (this.more !== undefined) all.push(...this.more);
    return all;
  }
}
