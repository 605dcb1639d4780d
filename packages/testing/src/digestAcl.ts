import { createHash } from 'node:crypto';
import type { AclEntry } from '@zk-recipes/core';

/** ZooKeeper's digest identity for `user:password`: `user:base64(sha1(user:password))`. */
export function digestIdOf(credentials: string): string {
  return `${credentials.split(':')[0]}:${createHash('sha1').update(credentials).digest('base64')}`;
}

/** One ACL entry. */
export function aclEntry(perms: number, scheme: string, id: string): AclEntry {
  return { perms, scheme, id };
}
