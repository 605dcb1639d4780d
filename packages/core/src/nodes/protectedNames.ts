import { randomUUID } from 'node:crypto';
import { InvalidArgumentError } from '../errors.js';
import { invalidCharIndex } from './paths.js';

/**
 * Marker that starts a protected node name, the same as Curator's, so both libraries recognise
 * each other's nodes: `_c_` + 36-character UUID + `-` + the recipe's prefix.
 */
export const PROTECTED_PREFIX = '_c_';

/** Length of `_c_<uuid>-`, the part a protected name adds in front of the recipe's prefix. */
export const PROTECTED_HEADER_LENGTH = PROTECTED_PREFIX.length + 36 + 1;

/**
 * Whether the 36 characters of `s` from `at` are a canonical textual UUID (8-4-4-4-12 hex digits;
 * either case, because other writers may use upper case). A scan, not a regular expression on a
 * slice: every listing checks every child's name.
 */
function isUuidAt(s: string, at: number): boolean {
  for (let i = 0; i < 36; i++) {
    const c = s.charCodeAt(at + i);
    if (i === 8 || i === 13 || i === 18 || i === 23) {
      if (c !== 0x2d) return false;
    } else if (!((c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46))) {
      return false;
    }
  }
  return true;
}

/** A fresh protected node name and the GUID it carries. */
export interface ProtectedName {
  /** The random UUID (lower case) that identifies this create attempt. */
  guid: string;
  /** `_c_<guid>-<prefix>`: pass it to a sequential create; ZooKeeper appends the sequence. */
  name: string;
}

/**
 * Builds a protected name for `prefix` (e.g. `lock-`). The GUID lets a client that lost the reply
 * to its create find the node it may have created, by listing the parent.
 *
 * @throws InvalidArgumentError when `prefix` contains `/` or a character ZooKeeper refuses
 */
export function newProtectedName(prefix: string): ProtectedName {
  if (typeof prefix !== 'string' || prefix.includes('/') || invalidCharIndex(prefix) !== -1) {
    throw new InvalidArgumentError(
      `prefix must be a string without "/" or characters ZooKeeper refuses: ${JSON.stringify(prefix)}`,
    );
  }
  const guid = randomUUID();
  return { guid, name: `${PROTECTED_PREFIX}${guid}-${prefix}` };
}

/**
 * The GUID of a protected name, or `null` when `name` is not protected. Like Curator, a name
 * counts as protected only if something follows the `_c_<uuid>-` header.
 */
export function protectionGuidOf(name: string): string | null {
  if (name.length <= PROTECTED_HEADER_LENGTH) return null;
  if (!name.startsWith(PROTECTED_PREFIX)) return null;
  if (name.charCodeAt(PROTECTED_HEADER_LENGTH - 1) !== 0x2d /* '-' */) return null;
  return isUuidAt(name, PROTECTED_PREFIX.length) ? name.slice(PROTECTED_PREFIX.length, PROTECTED_HEADER_LENGTH - 1) : null;
}

/** True when `name` is a protected name carrying exactly `guid`. */
export function hasGuid(name: string, guid: string): boolean {
  return protectionGuidOf(name) === guid;
}

/** `name` without its `_c_<uuid>-` header; unprotected names are returned unchanged. */
export function withoutProtection(name: string): string {
  return protectionGuidOf(name) === null ? name : name.slice(PROTECTED_HEADER_LENGTH);
}
