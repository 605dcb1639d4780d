import { describe, expect, it } from 'vitest';
import { invalid } from '../support/invalid.js';
import { decodeLockKey, encodeLockKey, lockKeyName, lockKeyPath, MAX_LOCK_KEY_NAME_LENGTH } from '../../src/nodes/lockKeys.js';
import { validateNodeName } from '../../src/nodes/paths.js';

/** A seeded generator (mulberry32): the same keys on every run. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A random string of UTF-16 units drawn from the classes a key may hold: unreserved, ASCII, '%', controls, BMP, surrogates (paired or lone). */
function randomKey(next: () => number): string {
  const pools = [
    () => 'aZ09-._~'[Math.floor(next() * 8)]!,
    () => String.fromCharCode(Math.floor(next() * 0x80)),
    () => '%',
    () => '/',
    () => '.',
    () => String.fromCharCode(0x80 + Math.floor(next() * 0x780)),
    () => String.fromCharCode(0x800 + Math.floor(next() * 0xf800)),
    () => String.fromCharCode(0xd800 + Math.floor(next() * 0x800)),
    () => String.fromCodePoint(0x10000 + Math.floor(next() * 0x100000)),
  ];
  let key = '';
  const length = 1 + Math.floor(next() * 12);
  for (let i = 0; i < length; i++) key += pools[Math.floor(next() * pools.length)]!();
  return key;
}

describe('encodeLockKey', () => {
  it('leaves a key of letters, digits, "-", ".", "_" and "~" as it is (Curator on <base>/<key> is the same lock)', () => {
    for (const key of ['order-42', 'Tenant_7', 'a.b.c', '~home', '0000000042', '...', 'x'.repeat(MAX_LOCK_KEY_NAME_LENGTH)]) {
      expect(encodeLockKey(key)).toBe(key);
    }
  });

  it('escapes every other character as %XX per UTF-8 byte, in upper case', () => {
    expect(encodeLockKey('a/b')).toBe('a%2Fb');
    expect(encodeLockKey('100%')).toBe('100%25');
    expect(encodeLockKey('a b')).toBe('a%20b');
    expect(encodeLockKey('line\nbreak\u0000')).toBe('line%0Abreak%00');
    expect(encodeLockKey('é')).toBe('%C3%A9');
    expect(encodeLockKey('名')).toBe('%E5%90%8D');
    expect(encodeLockKey('😀')).toBe('%F0%9F%98%80');
    expect(encodeLockKey('\ud800')).toBe('%ED%A0%80'); // a lone surrogate: its 3-byte form
    expect(encodeLockKey('/zookeeper')).toBe('%2Fzookeeper');
  });

  it('escapes the relative segments "." and "..", and nothing else made of dots', () => {
    expect(encodeLockKey('.')).toBe('%2E');
    expect(encodeLockKey('..')).toBe('%2E%2E');
    expect(encodeLockKey('...')).toBe('...');
    expect(encodeLockKey('../..')).toBe('..%2F..');
  });

  it('makes one valid node name of every key, and the key back from it (2,000 seeded random keys)', () => {
    const next = random(7);
    for (let i = 0; i < 2_000; i++) {
      const key = randomKey(next);
      const name = encodeLockKey(key);
      expect(validateNodeName(name)).toBe(name);
      expect(name).not.toContain('/');
      expect(decodeLockKey(name)).toBe(key);
    }
  });

  it('never gives two keys one name: keys that differ by escapes, case, dots, surrogates', () => {
    const keys = ['a/b', 'a%2Fb', 'a%2fb', 'A/b', '.', '%2E', '..', '%2E%2E', '%', '%25', '\ud83d\ude00', '😀', '\ud83d', '\ude00', '\ude00\ud83d', 'é', 'e\u0301'];
    const next = random(11);
    for (let i = 0; i < 5_000; i++) keys.push(randomKey(next));
    const byName = new Map<string, string>();
    for (const key of keys) {
      const name = encodeLockKey(key);
      const other = byName.get(name);
      if (other !== undefined) expect(other, `two keys share the name ${name}`).toBe(key);
      byName.set(name, key);
    }
  });

  it('refuses an empty key, a key that is not a string, and a key whose name would be too long, saying why', () => {
    expect(invalid(() => encodeLockKey('')).message).toMatch(/invalid key: a key must not be empty/);
    expect(invalid(() => encodeLockKey(42 as unknown as string)).message).toMatch(/invalid key: a key must be a string, got number/);
    expect(invalid(() => encodeLockKey(null as unknown as string)).message).toMatch(/got null/);
    // Long in characters, or long once escaped.
    expect(invalid(() => encodeLockKey('x'.repeat(MAX_LOCK_KEY_NAME_LENGTH + 1))).message).toMatch(/node name would be at least 1025 characters, over the limit of 1024/);
    expect(invalid(() => encodeLockKey('/'.repeat(400))).message).toMatch(/node name would be 1200 characters, over the limit of 1024.*shorter key/);
    expect(invalid(() => encodeLockKey('😀'.repeat(86))).message).toMatch(/would be 1032 characters/);
    expect(encodeLockKey('😀'.repeat(85))).toHaveLength(1020);
    // The message names who asked.
    expect(invalid(() => lockKeyName('', 'MutexSet.acquire')).message).toMatch(/^MutexSet\.acquire: invalid key/);
  });
});

describe('decodeLockKey', () => {
  it('answers null for any name that is not the name of a key', () => {
    for (const name of ['', 'a%2fb', '%41', '%2', '%zz', 'a b', 'a/b', '.', '..', '%C3', '%C0%AF', '%ED%A0%BD%ED%B8%80', '%F4%90%80%80', '%FF', 'x'.repeat(MAX_LOCK_KEY_NAME_LENGTH + 1)]) {
      expect(decodeLockKey(name), name).toBeNull();
    }
  });
});

describe('lockKeyPath', () => {
  it("is the key's directory under the base path", () => {
    expect(lockKeyPath('/locks/orders', 'order-42')).toBe('/locks/orders/order-42');
    expect(lockKeyPath('/locks/orders', '../../zookeeper')).toBe('/locks/orders/..%2F..%2Fzookeeper');
    expect(invalid(() => lockKeyPath('locks', 'a')).message).toMatch(/absolute/);
  });
});
