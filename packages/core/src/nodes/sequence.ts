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

/**
 * The number written in the `count` decimal digits of `s` from `at`, or -1 if any is not a digit.
 * (Scanned, not matched: every listing parses every child's name.)
 */
function digitsAt(s: string, at: number, count: number): number {
  let value = 0;
  for (let i = at; i < at + count; i++) {
    const d = s.charCodeAt(i) - 0x30;
    if (d < 0 || d > 9) return -1;
    value = value * 10 + d;
  }
  return value;
}

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
  const n = name.length;
  // `%010d` of -1000000000..-2147483648 grows to eleven characters: a sign, 1 or 2, nine digits.
  if (n >= 11 && name.charCodeAt(n - 11) === 0x2d && (name.charCodeAt(n - 10) === 0x31 || name.charCodeAt(n - 10) === 0x32)) {
    const magnitude = digitsAt(name, n - 10, 10);
    if (magnitude >= 0) {
      const head = name.slice(0, n - 11);
      if (magnitude <= MAX_SEQUENCE + 1 && (magnitude > MAX_SEQUENCE || head.endsWith('-'))) {
        return { head, sequence: -magnitude };
      }
    }
  }
  if (n < 10) return null;
  const value = digitsAt(name, n - 10, 10);
  if (value >= 0) return value <= MAX_SEQUENCE ? { head: name.slice(0, n - 10), sequence: value } : null;
  // `%010d` of -1..-999999999: a sign and nine digits, ten characters in all.
  if (name.charCodeAt(n - 10) === 0x2d) {
    const magnitude = digitsAt(name, n - 9, 9);
    // "-000000000" is not something %010d writes.
    if (magnitude >= 0) return magnitude === 0 ? null : { head: name.slice(0, n - 10), sequence: -magnitude };
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
 * The name a sequential create asked for, given the name it made: `name` without its sequence.
 * `_c_<uuid>-lock-0000000003` → `_c_<uuid>-lock-`. A name without a sequence is returned unchanged.
 */
export function withoutSequence(name: string): string {
  return splitSequence(name)?.head ?? name;
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
