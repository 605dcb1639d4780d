import { PROTECTED_HEADER_LENGTH, protectionGuidOf, withoutProtection } from './protectedNames.js';

/** Largest sequence ZooKeeper can write: the counter is the parent's signed 32-bit `cversion`. */
export const MAX_SEQUENCE = 2 ** 31 - 1;

/** A child of a lock directory, parsed. */
export interface QueueEntry {
  /** The child's name as listed (no parent path). */
  name: string;
  /** The sequence ZooKeeper appended. */
  sequence: number;
  /** What lies between the protection header and the sequence, e.g. `lock-` or `__READ__`. */
  kind: string;
  /** The protection GUID, or `null` for a name written without protection. */
  guid: string | null;
}

const POSITIVE_RE = /(\d{10})$/;
// `%010d` of -1..-999999999: a sign and nine digits, ten characters in all.
const SHORT_NEGATIVE_RE = /-(\d{9})$/;
// `%010d` of -1000000000..-2147483648 grows to eleven characters.
const LONG_NEGATIVE_RE = /-([12]\d{9})$/;

/**
 * Splits a sequential name into the text before the sequence and the sequence, or `null`.
 *
 * ZooKeeper appends `String.format("%010d", cversion)` of the parent's signed 32-bit counter. After
 * 2^31 child changes under one parent it wraps to negative values: `-2147483648` (eleven
 * characters) up to `-000000001` (ten). A sign followed by ten digits is ambiguous with a prefix
 * that ends in `-` followed by a positive sequence (`lock-1500000000`); we read it as positive
 * unless the positive reading is impossible (above 2^31-1) or the prefix would end in `--`
 * (our prefixes and Curator's `lock-` end in a single `-`, so `lock--1500000000` is a wrapped
 * `lock-` node).
 */
function splitSequence(name: string): { head: string; sequence: number } | null {
  const longNeg = LONG_NEGATIVE_RE.exec(name);
  if (longNeg !== null) {
    const magnitude = Number(longNeg[1]);
    const head = name.slice(0, name.length - 11);
    if (magnitude <= MAX_SEQUENCE + 1 && (magnitude > MAX_SEQUENCE || head.endsWith('-'))) {
      return { head, sequence: -magnitude };
    }
  }
  const pos = POSITIVE_RE.exec(name);
  if (pos !== null) {
    const value = Number(pos[1]);
    return value <= MAX_SEQUENCE ? { head: name.slice(0, name.length - 10), sequence: value } : null;
  }
  const shortNeg = SHORT_NEGATIVE_RE.exec(name);
  if (shortNeg !== null) {
    const value = -Number(shortNeg[1]);
    // "-000000000" is not something %010d writes.
    return value === 0 ? null : { head: name.slice(0, name.length - 10), sequence: value };
  }
  return null;
}

/**
 * The sequence ZooKeeper appended to a sequential node's name, or `null` when `name` carries none
 * (or one ZooKeeper cannot have written, such as ten digits above 2^31-1).
 *
 * @example sequenceOf('_c_0f6c…-lock-0000000042') // 42
 */
export function sequenceOf(name: string): number | null {
  return splitSequence(name)?.sequence ?? null;
}

/**
 * The recipe's prefix in a node name: what lies between the protection header (if any) and the
 * sequence (if any). `_c_<uuid>-lock-0000000003` → `lock-`; `__READ__0000000001` → `__READ__`.
 * A name without a sequence yields its whole unprotected remainder.
 */
export function kindOf(name: string): string {
  const unprotected = withoutProtection(name);
  const split = splitSequence(unprotected);
  return split === null ? unprotected : split.head;
}

/**
 * Parses and orders the children of a lock directory: by sequence, then by name (two parents'
 * worth of nodes can share a sequence only after a directory was recreated, but the order must
 * still be total). Names without a sequence, e.g. files of other tools, are left out.
 */
export function sortedChildren(children: readonly string[]): QueueEntry[] {
  const entries: QueueEntry[] = [];
  for (const name of children) {
    const guid = protectionGuidOf(name);
    const rest = guid === null ? name : name.slice(PROTECTED_HEADER_LENGTH);
    const split = splitSequence(rest);
    if (split === null) continue;
    entries.push({ name, sequence: split.sequence, kind: split.head, guid });
  }
  entries.sort((a, b) => a.sequence - b.sequence || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return entries;
}
