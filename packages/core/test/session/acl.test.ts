/** What an ACL grants whom (docs/security.md, "ACLs"): the session's own ACL and a lock directory's. */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { adminForAnyone, foreignGrants, formatAcl, isOpenAcl, LOCK_TAKEOVER, missingLockPermissions } from '../../src/session/acl.js';
import { digestId, sessionIdentities, type SessionIdentities } from '../../src/session/identities.js';
import { parseZkSessionOptions } from '../../src/session/options.js';

const anyone = (perms: number) => ({ perms, scheme: 'world', id: 'anyone' });
const alice = digestId('alice:secret');
const digest = (id: string, perms = 31) => ({ perms, scheme: 'digest', id });
const as = (...credentials: string[]): SessionIdentities => ({ digests: credentials.map(digestId) });
const nobody: SessionIdentities = { digests: [] };

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
  it('finds ADMIN for anyone in an ACL that is not open otherwise (connect() refuses it)', () => {
    expect(adminForAnyone([digest(alice), anyone(16)])).toBe(true);
    expect(adminForAnyone([digest(alice), anyone(1 | 16)])).toBe(true);
    expect(adminForAnyone([anyone(31)])).toBe(false);
    expect(adminForAnyone([digest(alice), anyone(1)])).toBe(false);
  });
});

describe('missingLockPermissions', () => {
  it('names each of READ, CREATE and DELETE that no entry grants us', () => {
    expect(missingLockPermissions([anyone(31)], nobody)).toEqual([]);
    expect(missingLockPermissions([{ perms: 31 & ~8, scheme: 'auth', id: '' }], as('alice:secret')).map((m) => m.name)).toEqual(['DELETE']);
    expect(missingLockPermissions([anyone(1)], nobody).map((m) => m.name)).toEqual(['CREATE', 'DELETE']);
  });
  it('counts digest entries of our own credentials only', () => {
    expect(missingLockPermissions([digest(alice)], as('alice:secret'))).toEqual([]);
    expect(missingLockPermissions([digest(digestId('bob:x')), anyone(1)], as('alice:secret')).map((m) => m.name)).toEqual(['CREATE', 'DELETE']);
    // Granted piecewise: READ to anyone, the rest to us.
    expect(missingLockPermissions([anyone(1), digest(alice, 4 | 8)], as('alice:secret'))).toEqual([]);
  });
  it('counts auth only for a session that authenticates somehow (the server refuses it otherwise)', () => {
    const auth = [{ perms: 31, scheme: 'auth', id: '' }];
    expect(missingLockPermissions(auth, nobody).map((m) => m.name)).toEqual(['READ', 'CREATE', 'DELETE']);
    expect(missingLockPermissions(auth, { digests: [], sasl: 'alice' })).toEqual([]);
  });
  it("judges sasl entries against the session's SASL user", () => {
    const bob = [{ perms: 31, scheme: 'sasl', id: 'bob' }];
    expect(missingLockPermissions(bob, { digests: [], sasl: 'alice' }).map((m) => m.name)).toEqual(['READ', 'CREATE', 'DELETE']);
    expect(missingLockPermissions(bob, { digests: [], sasl: 'bob' })).toEqual([]);
    expect(missingLockPermissions(bob, nobody)).toHaveLength(3);
  });
  it("judges x509 entries against the certificate's subject, in any order and spacing", () => {
    const x509 = (id: string) => [{ perms: 31, scheme: 'x509', id }];
    const alice = { digests: [], x509: { text: 'CN=alice,O=Acme\\, Inc', attributes: [{ type: 'CN', value: 'alice' }, { type: 'O', value: 'Acme, Inc' }], comparable: true } };
    expect(missingLockPermissions(x509('CN=alice,O=Acme\\, Inc'), alice)).toEqual([]);
    expect(missingLockPermissions(x509('O=Acme\\, Inc, cn=alice'), alice)).toEqual([]);
    expect(missingLockPermissions(x509('CN=bob,O=Acme\\, Inc'), alice)).toHaveLength(3);
    expect(missingLockPermissions(x509('CN=alice'), alice)).toHaveLength(3);
    expect(missingLockPermissions(x509('CN=alice'), nobody)).toHaveLength(3);
    // A subject Java would print with OIDs: not judged.
    expect(missingLockPermissions(x509('CN=bob'), { digests: [], x509: { ...alice.x509, comparable: false } })).toEqual([]);
  });
  it('never refuses schemes it cannot judge from here (ip, custom providers)', () => {
    for (const scheme of ['ip', 'ldap']) expect(missingLockPermissions([{ perms: 31, scheme, id: 'x' }], nobody)).toEqual([]);
  });
});

describe('foreignGrants', () => {
  // What the server stores on a node we create with [auth:cdrwa, world:anyone r]: auth expanded.
  const own = [digest(alice), anyone(1)];
  const us = as('alice:secret');
  const foreign = (acl: ReturnType<typeof digest>[], ownAcl = own, ids = us) => foreignGrants(acl, ownAcl, ids, LOCK_TAKEOVER);
  it('finds CREATE, DELETE or ADMIN for anyone', () => {
    expect(foreign([anyone(31)]).foreign).toEqual([anyone(31)]);
    expect(foreign([digest(alice), anyone(4)]).foreign).toEqual([anyone(4)]);
    expect(foreign([digest(alice), anyone(16)]).foreign).toEqual([anyone(16)]);
  });
  it('finds them for an identity that is not ours, whatever the scheme', () => {
    const bob = digest(digestId('bob:x'), 8);
    const mallory = { perms: 4, scheme: 'x509', id: 'CN=mallory' };
    expect(foreign([digest(alice), bob, mallory]).foreign).toEqual([bob, mallory]);
  });
  it('accepts our own identities, and READ or WRITE for anyone else', () => {
    expect(foreign([digest(alice), anyone(1)])).toEqual({ foreign: [], unverifiable: false });
    expect(foreign([digest(alice), digest(digestId('bob:x'), 3)]).foreign).toEqual([]);
    const x509 = [{ perms: 31, scheme: 'x509', id: 'CN=app' }];
    expect(foreign(x509, x509, nobody).foreign).toEqual([]);
  });
  it('knows our digest ids from our credentials when our own node shows them masked', () => {
    expect(foreign([digest(alice)], [digest('alice:x')]).foreign).toEqual([]);
  });
  it('counts a masked digest id (user:x) with CREATE, DELETE or ADMIN as foreign: it cannot be told from anyone claiming the name', () => {
    // Anyone may addauth digest alice:evil; a session without ADMIN sees that entry as alice:x too.
    const evil = digest(digestId('alice:evil'));
    expect(foreign([digest(alice), evil]).foreign).toEqual([evil]);
    expect(foreign([digest('alice:x'), anyone(1)])).toEqual({ foreign: [digest('alice:x')], unverifiable: true });
    expect(foreign([digest('alice:x', 1 | 2), anyone(1)])).toEqual({ foreign: [], unverifiable: false });
  });
  it('never counts world:anyone as ours, even when our own ACL names it', () => {
    expect(foreign([anyone(31)], [anyone(31), digest(alice)]).foreign).toEqual([anyone(31)]);
  });
  it('asks about the rights it is given (a shared count: WRITE too)', () => {
    const writer = digest(digestId('bob:x'), 2);
    expect(foreignGrants([digest(alice), writer], own, us, 2 | 8 | 16).foreign).toEqual([writer]);
  });
});

describe('sessionIdentities', () => {
  it('computes digest ids, and takes the SASL user', () => {
    expect(sessionIdentities({ auth: [{ scheme: 'digest', credentials: 'alice:secret' }], sasl: { username: 'bob' } })).toMatchObject({ digests: [alice], sasl: 'bob', x509: undefined });
  });
  it('does not judge x509 entries when the certificate cannot be read', () => {
    const ids = sessionIdentities({ auth: [], tls: { cert: 'not a certificate' } });
    expect(ids.x509Unknown).toBe(true);
    expect(missingLockPermissions([{ perms: 31, scheme: 'x509', id: 'CN=bob' }], ids)).toEqual([]);
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
  it('refuses ADMIN for anyone in an ACL that is otherwise restrictive', () => {
    expect(() => parseZkSessionOptions({ connectString: 'h:1', auth, acl: [{ perms: 31, scheme: 'auth', id: '' }, anyone(1 | 16)] })).toThrow(/acl: grants world:anyone ADMIN/);
  });
  it("refuses a sasl ACL that names only another user, naming each missing permission", () => {
    const sasl = { mechanism: 'DIGEST-MD5' as const, username: 'alice', password: 'p' };
    expect(() => parseZkSessionOptions({ connectString: 'h:1', sasl, acl: [{ perms: 31, scheme: 'sasl', id: 'bob' }] })).toThrow(/no READ permission.*no CREATE permission.*no DELETE permission/);
    expect(parseZkSessionOptions({ connectString: 'h:1', sasl, acl: [{ perms: 31, scheme: 'sasl', id: 'alice' }] }).acl).toHaveLength(1);
  });
  it('refuses an ACL entry with an unknown field', () => {
    expect(() => parseZkSessionOptions({ connectString: 'h:1', auth, acl: [{ perms: 31, scheme: 'auth', id: '', perm: 1 }] })).toThrow(/acl\.0: Unrecognized key/);
  });
  it('accepts the secure setup and the open default, with aclCheck on unless turned off', () => {
    const secure = parseZkSessionOptions({ connectString: 'h:1', auth, acl: [{ perms: 31, scheme: 'auth', id: '' }, anyone(1)] });
    expect(secure.aclCheck).toBe('on');
    expect(parseZkSessionOptions({ connectString: 'h:1', aclCheck: 'off' }).aclCheck).toBe('off');
    expect(() => parseZkSessionOptions({ connectString: 'h:1', aclCheck: 'maybe' })).toThrow(/aclCheck/);
  });
});
