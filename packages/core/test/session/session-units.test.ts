import { describe, expect, it } from 'vitest';
import { PendingCalls } from '../../src/session/pendingCalls.js';
import { WatchRegistry, WireWatchTable } from '../../src/session/watchRegistry.js';
import { fromZkCode, toZkError, ReplyCode } from '../../src/session/errorMapping.js';
import { parseZkSessionOptions, ZK_SESSION_DEFAULTS } from '../../src/session/options.js';
import { InvalidArgumentError, SessionLostError, ZooKeeperError } from '../../src/errors.js';
import { WIRE_CLIENT_VERSION } from '../../src/session/wire.js';

describe('PendingCalls', () => {
  it('settles once and fails everything still pending', async () => {
    const calls = new PendingCalls();
    const results: string[] = [];
    const a = calls.track<string>('getData', '/a', (v) => results.push(`ok:${v}`), (e) => results.push(`err:${e.message}`));
    calls.track<string>('create', '/b', (v) => results.push(`ok:${v}`), (e) => results.push(`err:${e.message}`));
    expect(calls.size).toBe(2);
    a.resolve('x');
    a.reject(new Error('late'));
    calls.failAll((c) => new Error(`lost ${c.op} ${c.path}`));
    expect(results).toEqual(['ok:x', 'err:lost create /b']);
    expect(calls.size).toBe(0);
  });
});

describe('WatchRegistry', () => {
  it('one entry per (kind, path); fans out asynchronously; skips removed watchers; catches throws', async () => {
    const errors: Error[] = [];
    const reg = new WatchRegistry((e) => errors.push(e));
    const seen: string[] = [];
    reg.add('data', '/p', () => seen.push('a'));
    reg.add('data', '/p', () => {
      throw new Error('boom');
    });
    reg.add('data', '/p', () => seen.push('c'));
    const removed = () => seen.push('removed');
    reg.add('data', '/p', removed);
    reg.add('child', '/p', () => seen.push('child'));
    expect(reg.keys).toBe(2);
    expect(reg.watchers).toBe(5);
    reg.remove('/p', removed);
    expect(reg.watchers).toBe(4);
    reg.notified({ type: 'dataChanged', path: '/p' });
    expect(seen).toEqual([]); // not synchronously
    await new Promise((r) => setImmediate(r));
    expect(seen).toEqual(['a', 'c']);
    expect(errors.map((e) => e.message)).toEqual(['boom']);
    expect(reg.keys).toBe(1);
    reg.dropAll();
    reg.notified({ type: 'childrenChanged', path: '/p' });
    await new Promise((r) => setImmediate(r));
    expect(seen).toEqual(['a', 'c']);
  });

  it('an event fires the watches the server fires for it: creation and data change the data and existence watches, deletion the data and child watches, a change of children the child watch', async () => {
    const cases = [
      ['created', ['data', 'exist']],
      ['dataChanged', ['data', 'exist']],
      ['deleted', ['data', 'child']],
      ['childrenChanged', ['child']],
    ] as const;
    for (const [type, fired] of cases) {
      const reg = new WatchRegistry((e) => {
        throw e;
      });
      const seen: string[] = [];
      const arrived: string[] = [];
      for (const kind of ['data', 'exist', 'child'] as const) {
        reg.add(kind, '/p', Object.assign(() => seen.push(kind), { onArrival: () => arrived.push(kind) }));
        reg.add(kind, '/other', () => seen.push(`other ${kind}`));
      }
      reg.notified({ type, path: '/p' });
      expect(arrived, type).toEqual([...fired]); // at once, while the frame is handled
      await new Promise((r) => setImmediate(r));
      expect(seen, type).toEqual([...fired]);
      expect(reg.keys, type).toBe(6 - fired.length);
    }
  });

  it('is the table the wire client sets watches again from after a reconnection: one path per watch the server holds', () => {
    const reg = new WatchRegistry(() => undefined);
    const table = new WireWatchTable(reg);
    expect(table.isEmpty()).toBe(true);
    const w = () => undefined;
    reg.add('data', '/a', w);
    reg.add('data', '/a', () => undefined);
    reg.add('exist', '/b', w);
    reg.add('child', '/c', w);
    reg.add('child', '/d', w);
    reg.remove('/d', w); // no watcher left, but the server's watch stays until it fires
    expect(table.isEmpty()).toBe(false);
    expect([table.getDataWatcherPaths(), table.getExistenceWatcherPaths(), table.getChildWatcherPaths().sort()]).toEqual([['/a'], ['/b'], ['/c', '/d']]);
    reg.notified({ type: 'deleted', path: '/c' });
    expect(table.getChildWatcherPaths()).toEqual(['/d']);
    expect(reg.takeIfIdle('/d', w).map((t) => t.watchClass)).toEqual(['child']);
    expect(table.getChildWatcherPaths()).toEqual([]);
  });
});

describe('error mapping', () => {
  it('maps known codes to stable codes, keeping zkCode, op and path', () => {
    const e = fromZkCode(-101, 'getData', '/x');
    expect(e).toBeInstanceOf(ZooKeeperError);
    expect(e).toMatchObject({ code: 'NO_NODE', zkCode: -101, op: 'getData', path: '/x' });
    expect(fromZkCode(-112, 'create', '/y')).toBeInstanceOf(SessionLostError);
  });
  it('maps unknown codes to ZOOKEEPER_ERROR with the raw code', () => {
    expect(toZkError(new ReplyCode(-999), 'create', '/q')).toMatchObject({ code: 'ZOOKEEPER_ERROR', zkCode: -999 });
    expect(toZkError(new ReplyCode(-125), 'create', '/q').message).toMatch(/QUOTA_EXCEEDED/);
  });
  it("maps the wire client's own Exception objects (numeric code)", () => {
    expect(toZkError({ code: -4, getCode: () => -4 }, 'exists', '/')).toMatchObject({ code: 'CONNECTION_LOSS', zkCode: -4 });
  });
});

describe('options', () => {
  it('applies defaults from one place', () => {
    const o = parseZkSessionOptions({ connectString: '127.0.0.1:2181' });
    expect(o.sessionTimeoutMs).toBe(ZK_SESSION_DEFAULTS.sessionTimeoutMs);
    expect(o.connectionTimeoutMs).toBe(ZK_SESSION_DEFAULTS.connectionTimeoutMs);
    expect(o.acl).toEqual([{ perms: 31, scheme: 'world', id: 'anyone' }]);
    expect(o.auth).toEqual([]);
  });
  it('takes a label of 1 to 128 characters (none by default)', () => {
    expect(parseZkSessionOptions({ connectString: 'h:1' }).label).toBeUndefined();
    expect(parseZkSessionOptions({ connectString: 'h:1', label: 'orders-worker' }).label).toBe('orders-worker');
    expect(parseZkSessionOptions({ connectString: 'h:1', label: 'x'.repeat(128) }).label).toHaveLength(128);
    expect(() => parseZkSessionOptions({ connectString: 'h:1', label: '' })).toThrow(/label: label must not be empty/);
    expect(() => parseZkSessionOptions({ connectString: 'h:1', label: 'x'.repeat(129) })).toThrow(/label: label must be at most 128 characters/);
    expect(() => parseZkSessionOptions({ connectString: 'h:1', label: 7 })).toThrow(InvalidArgumentError);
  });
  it('accepts several hosts, IPv6 and a chroot', () => {
    expect(() => parseZkSessionOptions({ connectString: 'a:1,b.example:2,[::1]:3/app/locks' })).not.toThrow();
  });
  it('lists every problem in an InvalidArgumentError', () => {
    let err: unknown;
    try {
      parseZkSessionOptions({ connectString: 'localhost', sessionTimeoutMs: 0, auth: [{ scheme: 'digest', credentials: 'nocolon' }], retryPolicy: {} });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(InvalidArgumentError);
    const msg = (err as Error).message;
    expect(msg).toMatch(/connectString/);
    expect(msg).toMatch(/sessionTimeoutMs/);
    expect(msg).toMatch(/auth\.0\.credentials/);
    expect(msg).toMatch(/retryPolicy/);
    for (const bad of ['', 'h:1/', 'h:1/a/', 'h:99999', 'h:1,,h:2']) {
      expect(() => parseZkSessionOptions({ connectString: bad })).toThrow(InvalidArgumentError);
    }
  });
  it('names what is wrong with a chroot, apart from the host list', () => {
    const message = (connectString: string): string => {
      try {
        parseZkSessionOptions({ connectString });
      } catch (e) {
        return (e as Error).message;
      }
      return 'accepted';
    };
    expect(message('h:1/a//b')).toMatch(/connectString: chroot must not contain an empty segment \("\/\/"\): "\/a\/\/b"/);
    expect(message('h:1/a//b')).not.toMatch(/host:port/);
    expect(message('h:1/')).toMatch(/chroot "\/" is the root/);
    expect(message('h:1/a/')).toMatch(/chroot must not end with "\/"/);
    expect(message('localhost/a')).toMatch(/connectString must be host:port/);
  });
  it('auth entries are strict: a misspelt or extra field is refused', () => {
    expect(() => parseZkSessionOptions({ connectString: 'h:1', auth: [{ scheme: 'digest', credentials: 'u:p', password: 'p' }] as never })).toThrow(/auth\.0.*password/);
  });
  it('pins the wire client version', () => {
    expect(WIRE_CLIENT_VERSION).toBe('1.1.3');
  });
});
