import { digestId, type AclEntry } from '@zk-recipes/core';

/** ZooKeeper's digest identity for `user:password`: `user:base64(sha1(user:password))` (core's `digestId`). */
export const digestIdOf: (credentials: string) => string = digestId;

/** One ACL entry. */
export function aclEntry(perms: number, scheme: string, id: string): AclEntry {
  return { perms, scheme, id };
}
