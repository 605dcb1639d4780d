/** What an ACL grants whom (docs/security.md, "ACLs"): the session's own ACL and a lock directory's. */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { digestId, foreignTakeoverGrants, formatAcl, isOpenAcl, missingLockPermissions } from '../../src/session/acl.js';
import { parseZkSessionOptions } from '../../src/session/options.js';

const anyone = (perms: number) => ({ perms, scheme: 'world', id: 'anyone' });
const alice = digestId('alice:secret');
const digest = (id: string, perms = 31) => ({ perms, scheme: 'digest', id });

describe('digestId', () => {
  it("is ZooKeeper's user:base64(sha1(user:password))", () => {
    expect(alice).toBe(`alice:${createHash('sha1').update('alice:secret').digest('base64')}`);
    expect(digestId('bob:pa:ss')).toBe(`bob:${createHash('sha1').update('bob:pa:ss').digest('base64')}`);
  });
});

describe('isOpenAcl', () => {
  it('is open when anyone may create or delete; READ for anyone is not', () => {
    expect(isOpenAcl([anyone(31)])).toBe(true);
    expect(isOpenAcl([digest(alice), anyone(4)])).toBe(true);
    expect(isOpenAcl([digest(alice), anyone(8)])).toBe(true);
    expect(isOpenAcl([digest(alice), anyone(1)])).toBe(false);
    expect(isOpenAcl([{ perms: 31, scheme: 'auth', id: '' }])).toBe(false);
  });
});

describe('missingLockPermissions', () => {
  it('names each of READ, CREATE and DELETE that no entry grants us', () => {
    expect(missingLockPermissions([anyone(31)], [])).toEqual([]);
    expect(missingLockPermissions([{ perms: 31 & ~8, scheme: 'auth', id: '' }], ['alice:secret']).map((m) => m.name)).toEqual(['DELETE']);
    expect(missingLockPermissions([anyone(1)], []).map((m) => m.name)).toEqual(['CREATE', 'DELETE']);
  });
  it('counts digest entries of our own credentials only', () => {
    expect(missingLockPermissions([digest(alice)], ['alice:secret'])).toEqual([]);
    expect(missingLockPermissions([digest(digestId('bob:x')), anyone(1)], ['alice:secret']).map((m) => m.name)).toEqual(['CREATE', 'DELETE']);
    // Granted piecewise: READ to anyone, the rest to us.
    expect(missingLockPermissions([anyone(1), digest(alice, 4 | 8)], ['alice:secret'])).toEqual([]);
  });
  it('never refuses schemes it cannot judge from here (ip, x509, sasl)', () => {
    for (const scheme of ['ip', 'x509', 'sasl']) expect(missingLockPermissions([{ perms: 31, scheme, id: 'x' }], [])).toEqual([]);
  });
});

describe('foreignTakeoverGrants', () => {
  // What the server stores on a node we create with [auth:cdrwa, world:anyone r]: auth expanded.
  const own = [digest(alice), anyone(1)];
  it('finds CREATE, DELETE or ADMIN for anyone', () => {
    expect(foreignTakeoverGrants([anyone(31)], own)).toEqual([anyone(31)]);
    expect(foreignTakeoverGrants([digest(alice), anyone(4)], own)).toEqual([anyone(4)]);
    expect(foreignTakeoverGrants([digest(alice), anyone(16)], own)).toEqual([anyone(16)]);
  });
  it('finds them for an identity that is not ours, whatever the scheme', () => {
    const bob = digest(digestId('bob:x'), 8);
    const mallory = { perms: 4, scheme: 'x509', id: 'CN=mallory' };
    expect(foreignTakeoverGrants([digest(alice), bob, mallory], own)).toEqual([bob, mallory]);
  });
  it('accepts our own identities, and READ or WRITE for anyone else', () => {
    expect(foreignTakeoverGrants([digest(alice), anyone(1)], own)).toEqual([]);
    expect(foreignTakeoverGrants([digest(alice), digest(digestId('bob:x'), 3)], own)).toEqual([]);
    const x509 = [{ perms: 31, scheme: 'x509', id: 'CN=app' }];
    expect(foreignTakeoverGrants(x509, x509)).toEqual([]);
  });
  it('matches a digest id the server masked (user:x, for a session without ADMIN) by its user name', () => {
    const appMasked = digest('alice:x');
    expect(foreignTakeoverGrants([appMasked, anyone(1)], own)).toEqual([]);
    expect(foreignTakeoverGrants([digest(alice)], [appMasked])).toEqual([]);
    expect(foreignTakeoverGrants([digest('bob:x')], own)).toEqual([digest('bob:x')]);
  });
  it('never counts world:anyone as ours, even when our own ACL names it', () => {
    expect(foreignTakeoverGrants([anyone(31)], [anyone(31), digest(alice)])).toEqual([anyone(31)]);
  });
});

describe('formatAcl', () => {
  it("shows each entry with zkCli's letters", () => {
    expect(formatAcl([anyone(31), digest('a:b', 1 | 4)])).toBe('world:anyone=cdrwa, digest:a:b=cr');
  });
});

describe('the session refuses an ACL that locks itself out', () => {
  const auth = [{ scheme: 'digest' as const, credentials: 'alice:secret' }];
  it('without DELETE: INVALID_ARGUMENT naming the permission', () => {
    expect(() => parseZkSessionOptions({ connectString: 'h:1', auth, acl: [{ perms: 31 & ~8, scheme: 'auth', id: '' }] })).toThrow(/acl: grants this session no DELETE permission/);
  });
  it("with only another user's digest: CREATE, DELETE and READ are all missing", () => {
    const err = (() => {
      try {
        parseZkSessionOptions({ connectString: 'h:1', auth, acl: [digest(digestId('bob:x'))] });
      } catch (e) {
        return e as Error & { code: string };
      }
      return undefined;
    })();
    expect(err?.code).toBe('INVALID_ARGUMENT');
    for (const name of ['READ', 'CREATE', 'DELETE']) expect(err?.message).toContain(`no ${name} permission`);
  });
  it('accepts the secure setup and the open default, with aclCheck on unless turned off', () => {
    const secure = parseZkSessionOptions({ connectString: 'h:1', auth, acl: [{ perms: 31, scheme: 'auth', id: '' }, anyone(1)] });
    expect(secure.aclCheck).toBe('on');
    expect(parseZkSessionOptions({ connectString: 'h:1', aclCheck: 'off' }).aclCheck).toBe('off');
    expect(() => parseZkSessionOptions({ connectString: 'h:1', aclCheck: 'maybe' })).toThrow(/aclCheck/);
  });
});
