import { InvalidArgumentError } from '../errors.js';

/**
 * Index of the first UTF-16 code unit ZooKeeper refuses in a path, or -1. ZooKeeper rejects
 * U+0000, the C0 and C1 control ranges (U+0001-U+001F, U+007F-U+009F), U+D800-U+F8FF (which
 * includes every surrogate, so no character outside the BMP) and U+FFF0-U+FFFF.
 */
export function invalidCharIndex(s: string): number {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (
      c <= 0x1f ||
      (c >= 0x7f && c <= 0x9f) ||
      (c >= 0xd800 && c <= 0xf8ff) ||
      c >= 0xfff0
    ) {
      return i;
    }
  }
  return -1;
}

function describeChar(s: string, i: number): string {
  return `U+${s.charCodeAt(i).toString(16).toUpperCase().padStart(4, '0')} at index ${i}`;
}

/**
 * Checks that `path` is a znode path ZooKeeper accepts: absolute, no empty, `.` or `..` segment,
 * no trailing slash (except the root `/`), no character ZooKeeper refuses.
 *
 * @param what - how the path is named in the error message, e.g. `lockPath`
 * @returns `path`, unchanged
 * @throws InvalidArgumentError naming `what` and the rule broken
 */
export function validatePath(path: unknown, what = 'path'): string {
  // Every lock step joins and checks paths: a valid one is checked in one pass, allocating nothing.
  if (typeof path === 'string' && isValidPath(path)) return path;
  return explainInvalidPath(path, what);
}

/** One pass over `path`: what {@link explainInvalidPath} checks rule by rule, true when none is broken. */
function isValidPath(path: string): boolean {
  const n = path.length;
  if (n === 0 || path.charCodeAt(0) !== 0x2f) return false;
  if (n === 1) return true;
  let segmentStart = 1;
  for (let i = 1; i <= n; i++) {
    const c = i < n ? path.charCodeAt(i) : 0x2f;
    if (c === 0x2f) {
      const length = i - segmentStart;
      // Empty (also a trailing "/"), "." or "..".
      if (length === 0) return false;
      if (path.charCodeAt(segmentStart) === 0x2e && (length === 1 || (length === 2 && path.charCodeAt(segmentStart + 1) === 0x2e))) return false;
      segmentStart = i + 1;
    } else if (c <= 0x1f || (c >= 0x7f && c <= 0x9f) || (c >= 0xd800 && c <= 0xf8ff) || c >= 0xfff0) {
      return false;
    }
  }
  return true;
}

/** Whether `name` can be one segment of a path, in one pass (see {@link validateNodeName}). */
function isValidName(name: string): boolean {
  const n = name.length;
  if (n === 0 || name === '.' || name === '..') return false;
  for (let i = 0; i < n; i++) {
    const c = name.charCodeAt(i);
    if (c === 0x2f || c <= 0x1f || (c >= 0x7f && c <= 0x9f) || (c >= 0xd800 && c <= 0xf8ff) || c >= 0xfff0) return false;
  }
  return true;
}

/** The rule `path` breaks, thrown (or `path` itself, should it break none). */
function explainInvalidPath(path: unknown, what: string): string {
  const fail = (rule: string): never => {
    throw new InvalidArgumentError(`${what} ${rule}: ${JSON.stringify(path)}`, {
      ...(typeof path === 'string' ? { path } : {}),
    });
  };
  if (typeof path !== 'string') return fail('must be a string');
  if (path.length === 0) return fail('must not be empty');
  if (path.charCodeAt(0) !== 0x2f) return fail('must be absolute (start with "/")');
  if (path === '/') return path;
  if (path.endsWith('/')) return fail('must not end with "/"');
  const bad = invalidCharIndex(path);
  if (bad !== -1) return fail(`contains a character ZooKeeper refuses (${describeChar(path, bad)})`);
  // Skip the leading empty segment before the first "/".
  const segments = path.split('/');
  for (let i = 1; i < segments.length; i++) {
    const segment = segments[i];
    if (segment === '') return fail('must not contain an empty segment ("//")');
    if (segment === '.' || segment === '..') return fail(`must not contain a relative segment ("${segment}")`);
  }
  return path;
}

/**
 * Checks a lock's (or semaphore's) path: a valid path (see {@link validatePath}) that can hold a
 * lock's directory: not the root (ZooKeeper's own tree lives there, and the directory would
 * never go), and not under `/zookeeper` (the server's own tree: quotas and configuration).
 *
 * @throws InvalidArgumentError saying which rule the path breaks
 */
export function validateLockPath(path: unknown, what = 'lock path'): string {
  const valid = validatePath(path, what);
  if (valid === '/') throw new InvalidArgumentError(`${what} must not be the root "/": name a directory for the lock's nodes`, { path: valid });
  if (valid === '/zookeeper' || valid.startsWith('/zookeeper/')) {
    throw new InvalidArgumentError(`${what} must not be in ZooKeeper's own tree (/zookeeper): ${JSON.stringify(valid)}`, { path: valid });
  }
  return valid;
}

/**
 * Checks that `name` can be one segment of a path (non-empty, no `/`, not `.` or `..`, no refused
 * character).
 *
 * @throws InvalidArgumentError naming `what`
 */
export function validateNodeName(name: unknown, what = 'name'): string {
  if (typeof name === 'string' && isValidName(name)) return name;
  if (typeof name !== 'string' || name.length === 0) {
    throw new InvalidArgumentError(`${what} must be a non-empty string: ${JSON.stringify(name)}`);
  }
  if (name.includes('/')) throw new InvalidArgumentError(`${what} must not contain "/": ${JSON.stringify(name)}`);
  validatePath(`/${name}`, what);
  return name;
}

/**
 * `parent` + `/` + `child`, where `child` is a single node name.
 *
 * @throws InvalidArgumentError when `parent` is not a valid path or `child` not a valid name
 */
export function joinPath(parent: string, child: string): string {
  validatePath(parent, 'parent');
  validateNodeName(child, 'child');
  return parent === '/' ? `/${child}` : `${parent}/${child}`;
}

/**
 * The parent of `path`: `/a/b` → `/a`, `/a` → `/`.
 *
 * @throws InvalidArgumentError for an invalid path or the root, which has no parent
 */
export function parentOf(path: string): string {
  validatePath(path);
  if (path === '/') throw new InvalidArgumentError('path "/" has no parent', { path });
  const slash = path.lastIndexOf('/');
  return slash === 0 ? '/' : path.slice(0, slash);
}

/**
 * The last segment of `path`: `/a/b` → `b`; the root's name is the empty string.
 *
 * @throws InvalidArgumentError for an invalid path
 */
export function nameOf(path: string): string {
  validatePath(path);
  return path.slice(path.lastIndexOf('/') + 1);
}
