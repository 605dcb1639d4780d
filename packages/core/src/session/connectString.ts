/**
 * The one parser of a connect string (`host:port[,host:port...][/chroot]`) on our side: the
 * options' validation and `connect()`'s count of servers read it the same way. The wire client
 * parses it again for itself (its own copy, which we do not patch).
 */
import { validatePath } from '../nodes/paths.js';

// host:port; host may be a name, IPv4, or [IPv6].
const HOST_PORT = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):\d{1,5}$/;

export interface ConnectStringParts {
  /** `host:port` entries, trimmed, in order (duplicates kept). */
  hosts: string[];
  /** `''` or the chroot as written, from its `/`. */
  chroot: string;
}

export function splitConnectString(s: string): ConnectStringParts {
  const slash = s.indexOf('/');
  const hosts = slash === -1 ? s : s.slice(0, slash);
  return { hosts: hosts.split(',').map((part) => part.trim()), chroot: slash === -1 ? '' : s.slice(slash) };
}

/** `a:1, b:2 /chroot ` → `a:1,b:2/chroot`: spaces around the parts of a connect string mean nothing. */
export function normalizedConnectString(s: string): string {
  const { hosts, chroot } = splitConnectString(s.trim());
  return hosts.join(',') + chroot;
}

/** What is wrong with the host list, or `undefined`. */
export function hostListIssue(s: string): string | undefined {
  const { hosts } = splitConnectString(s);
  const valid = hosts.every((p) => HOST_PORT.test(p) && Number(p.split(':').pop()) <= 65535);
  return valid ? undefined : 'connectString must be host:port[,host:port...][/chroot]';
}

/**
 * What is wrong with the chroot, or `undefined`: a znode path other than `/` (no `//`, no `.`
 * segments, nothing ZooKeeper refuses), named in the message, since the wire client would only
 * throw an AssertionError on it.
 */
export function chrootIssue(s: string): string | undefined {
  const { chroot } = splitConnectString(s);
  if (chroot === '') return undefined;
  if (chroot === '/') return 'chroot "/" is the root: leave it out of the connectString';
  try {
    validatePath(chroot, 'chroot');
    return undefined;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

/** The distinct servers (`host:port`) of a (valid) connect string, in order. */
export function distinctServers(s: string): string[] {
  return [...new Set(splitConnectString(s).hosts)];
}
