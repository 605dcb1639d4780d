import { z } from 'zod';
import { InvalidArgumentError } from '../errors.js';
import { joinPath } from './paths.js';

/*
 * A lock set's keys as node names (docs/mutex.md, "Key encoding"): any non-empty string becomes
 * one path segment that cannot leave the base path, and no two keys become the same segment.
 */

/**
 * The longest node name a key may be encoded to, in characters. A key of letters, digits, `-`,
 * `.`, `_` and `~` is its own name; any other character takes 3 characters per UTF-8 byte (`%2F`),
 * so up to 12 for one outside the Basic Multilingual Plane.
 */
export const MAX_LOCK_KEY_NAME_LENGTH = 1024;

const HEX = '0123456789ABCDEF';

const keySchema = z.string({ error: (issue) => `a key must be a string, got ${issue.input === null ? 'null' : typeof issue.input}` }).min(1, 'a key must not be empty');

/** Whether the UTF-16 unit `c` stands for itself in a name: RFC 3986's unreserved characters. */
function isUnreserved(c: number): boolean {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39) || c === 0x2d || c === 0x2e || c === 0x5f || c === 0x7e;
}

/** `%XX` for each UTF-8 byte of the code point `cp` (a lone surrogate too, as its 3-byte form). */
function escapeCodePoint(cp: number): string {
  if (cp < 0x80) return escapeByte(cp);
  if (cp < 0x800) return escapeByte(0xc0 | (cp >> 6)) + escapeByte(0x80 | (cp & 0x3f));
  if (cp < 0x10000) return escapeByte(0xe0 | (cp >> 12)) + escapeByte(0x80 | ((cp >> 6) & 0x3f)) + escapeByte(0x80 | (cp & 0x3f));
  return escapeByte(0xf0 | (cp >> 18)) + escapeByte(0x80 | ((cp >> 12) & 0x3f)) + escapeByte(0x80 | ((cp >> 6) & 0x3f)) + escapeByte(0x80 | (cp & 0x3f));
}

function escapeByte(b: number): string {
  return `%${HEX[b >> 4]!}${HEX[b & 0x0f]!}`;
}

/** The name of a key known to be a non-empty string (no length check). */
function encodeValidKey(key: string): string {
  // `.` and `..` are relative segments: ZooKeeper refuses them, and they must never mean a parent.
  if (key === '.' || key === '..') return key.replaceAll('.', '%2E');
  let i = 0;
  while (i < key.length && isUnreserved(key.charCodeAt(i))) i++;
  if (i === key.length) return key; // the common case: the key is its own name
  let name = key.slice(0, i);
  while (i < key.length) {
    const c = key.charCodeAt(i);
    if (isUnreserved(c)) {
      name += key[i]!;
      i++;
      continue;
    }
    // A surrogate pair is one code point; a lone surrogate is escaped as itself (WTF-8), so that
    // every string has a name and two strings never share one.
    const cp = key.codePointAt(i)!;
    name += escapeCodePoint(cp);
    i += cp > 0xffff ? 2 : 1;
  }
  return name;
}

/**
 * The node name of a lock set's `key`, checked at the public boundary: a non-empty string whose
 * name is at most {@link MAX_LOCK_KEY_NAME_LENGTH} characters.
 *
 * @param where - who asks, for the error message (e.g. `MutexSet.acquire`)
 * @throws InvalidArgumentError (`INVALID_ARGUMENT`) for anything else, saying why
 */
export function lockKeyName(key: unknown, where: string): string {
  if (typeof key !== 'string' || key.length === 0) {
    const parsed = keySchema.safeParse(key);
    const problem = parsed.success ? 'a key must be a non-empty string' : parsed.error.issues.map((issue) => issue.message).join('; ');
    throw new InvalidArgumentError(`${where}: invalid key: ${problem}`);
  }
  // Every UTF-16 unit becomes at least one character: a key this long cannot fit.
  const name = key.length > MAX_LOCK_KEY_NAME_LENGTH ? undefined : encodeValidKey(key);
  if (name === undefined || name.length > MAX_LOCK_KEY_NAME_LENGTH) {
    const length = name?.length ?? `at least ${key.length}`;
    throw new InvalidArgumentError(
      `${where}: invalid key ${JSON.stringify(key.length > 40 ? `${key.slice(0, 40)}…` : key)} (${key.length} UTF-16 units): its node name would be ${length} characters, ` +
        `over the limit of ${MAX_LOCK_KEY_NAME_LENGTH} (characters other than letters, digits, "-", ".", "_" and "~" take 3 characters per UTF-8 byte); ` +
        `use a shorter key, such as a hash of this one`,
    );
  }
  return name;
}

/**
 * The node name a lock set (`MutexSet`) gives `key`: the key itself when it is made of ASCII
 * letters, digits, `-`, `.`, `_` and `~` (so `order-42` is `order-42`, and Curator's
 * `InterProcessMutex` on `<base>/order-42` is the same lock); otherwise each other character as
 * `%XX` per UTF-8 byte, upper-case hex (`a/b` is `a%2Fb`, `%` is `%25`), and the keys `.` and `..`
 * as `%2E` and `%2E%2E`. A lone surrogate is encoded as its 3-byte form, so every string has a name
 * and no two share one. The name never contains `/` and is never `.` or `..`: no key leaves the
 * base path.
 *
 * @throws InvalidArgumentError (`INVALID_ARGUMENT`) for a key that is not a string, is empty, or
 *   whose name would be longer than {@link MAX_LOCK_KEY_NAME_LENGTH}
 */
export function encodeLockKey(key: string): string {
  return lockKeyName(key, 'encodeLockKey');
}

/**
 * The full path of `key`'s lock directory under a lock set's `basePath` (what `MutexSet` locks,
 * and what `zk-recipes inspect` takes).
 *
 * @throws InvalidArgumentError (`INVALID_ARGUMENT`) for an invalid base path or key
 */
export function lockKeyPath(basePath: string, key: string): string {
  return joinPath(basePath, lockKeyName(key, 'lockKeyPath'));
}

/**
 * The key whose name {@link encodeLockKey} made `name`, or `null` when no key has this name (a
 * lower-case escape, a character that should have been escaped or should not, bytes that are no
 * UTF-8): exactly the inverse of {@link encodeLockKey}.
 */
export function decodeLockKey(name: string): string | null {
  if (typeof name !== 'string' || name.length === 0 || name.length > MAX_LOCK_KEY_NAME_LENGTH) return null;
  let key = '';
  let i = 0;
  const byteAt = (at: number): number => {
    if (at + 2 >= name.length || name.charCodeAt(at) !== 0x25) return -1;
    const hi = HEX.indexOf(name[at + 1]!);
    const lo = HEX.indexOf(name[at + 2]!);
    return hi < 0 || lo < 0 ? -1 : (hi << 4) | lo;
  };
  while (i < name.length) {
    const c = name.charCodeAt(i);
    if (c !== 0x25) {
      if (!isUnreserved(c)) return null;
      key += name[i]!;
      i++;
      continue;
    }
    const lead = byteAt(i);
    const length = lead < 0 ? 0 : lead < 0x80 ? 1 : lead >= 0xc0 && lead < 0xe0 ? 2 : lead >= 0xe0 && lead < 0xf0 ? 3 : lead >= 0xf0 && lead < 0xf8 ? 4 : 0;
    if (length === 0) return null;
    let cp = length === 1 ? lead : lead & (0x7f >> length);
    for (let k = 1; k < length; k++) {
      const next = byteAt(i + 3 * k);
      if (next < 0x80 || next > 0xbf) return null;
      cp = (cp << 6) | (next & 0x3f);
    }
    if (cp > 0x10ffff) return null;
    key += String.fromCodePoint(cp);
    i += 3 * length;
  }
  // Overlong forms, escapes of characters that stand for themselves, a pair written as two
  // surrogates: each decodes, but is not the name the key has.
  return encodeValidKey(key) === name ? key : null;
}
