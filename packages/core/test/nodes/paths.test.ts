import { describe, expect, it } from 'vitest';
import { invalid } from '../support/invalid.js';
import { InvalidArgumentError } from '../../src/errors.js';
import { joinPath, nameOf, parentOf, validateNodeName, validatePath } from '../../src/nodes/index.js';

describe('validatePath', () => {
  it('accepts valid absolute paths and returns them', () => {
    for (const p of ['/', '/a', '/locks/orders', '/a/b/c/d', '/with space', '/ünïcødé/名前', '/a.b', '/...', '/_c_x-lock-']) {
      expect(validatePath(p)).toBe(p);
    }
  });

  it('rejects non-strings and the empty string', () => {
    invalid(() => validatePath(undefined));
    invalid(() => validatePath(42));
    invalid(() => validatePath(''));
  });

  it('rejects relative paths', () => {
    expect(invalid(() => validatePath('locks/a')).message).toMatch(/absolute/);
  });

  it('rejects a trailing slash except for the root', () => {
    expect(invalid(() => validatePath('/a/')).message).toMatch(/end with/);
    expect(invalid(() => validatePath('//')).message).toMatch(/end with|empty/);
  });

  it('rejects empty, . and .. segments', () => {
    expect(invalid(() => validatePath('/a//b')).message).toMatch(/empty segment/);
    expect(invalid(() => validatePath('/a/./b')).message).toMatch(/relative segment/);
    expect(invalid(() => validatePath('/a/..')).message).toMatch(/relative segment/);
    expect(invalid(() => validatePath('/.')).message).toMatch(/relative segment/);
  });

  it('rejects every character ZooKeeper refuses, at the range borders', () => {
    const refused = [0x0000, 0x0001, 0x000a, 0x001f, 0x007f, 0x0085, 0x009f, 0xd800, 0xdfff, 0xe000, 0xf8ff, 0xfff0, 0xfffe, 0xffff];
    for (const c of refused) {
      const err = invalid(() => validatePath(`/a${String.fromCharCode(c)}b`));
      expect(err.message).toContain(`U+${c.toString(16).toUpperCase().padStart(4, '0')}`);
    }
    const accepted = [0x0020, 0x007e, 0x00a0, 0xd7ff, 0xf900, 0xffef];
    for (const c of accepted) expect(validatePath(`/a${String.fromCharCode(c)}b`)).toBeTypeOf('string');
  });

  it('the one-pass check agrees with the rules on every short path of the characters that matter', () => {
    // Every string of up to 5 characters over an alphabet of the characters the rules look at that
    // starts with "/" (a path's rules all look past that first character; its tail is every name
    // of up to 4 characters), and every string of up to 3 characters (for the first character).
    const alphabet = ['/', '.', 'a', '\u0000', '\u007f', '\ud800', '\ufff0', 'é'];
    const byRules = (p: string): boolean => {
      if (p.length === 0 || !p.startsWith('/')) return false;
      if (p === '/') return true;
      if (p.endsWith('/')) return false;
      if ([...p].some((_, i) => { const c = p.charCodeAt(i); return c <= 0x1f || (c >= 0x7f && c <= 0x9f) || (c >= 0xd800 && c <= 0xf8ff) || c >= 0xfff0; })) return false;
      return p.split('/').slice(1).every((s) => s !== '' && s !== '.' && s !== '..');
    };
    const stringsUpTo = (length: number, prefix: string): string[] => {
      const all = [prefix];
      for (let from = 0; all[from]!.length < length; from++) for (const c of alphabet) all.push(all[from] + c);
      return all;
    };
    // Each refusal is a thrown error: collect the disagreements and assert once.
    const verdict = (fn: () => string, s: string): boolean | string => {
      try {
        return fn() === s;
      } catch (err) {
        return err instanceof InvalidArgumentError ? false : `threw ${String(err)}`;
      }
    };
    const disagreements: string[] = [];
    const paths = new Set([...stringsUpTo(5, '/'), ...stringsUpTo(3, '')]);
    for (const p of paths) {
      const path = verdict(() => validatePath(p), p);
      if (path !== byRules(p)) disagreements.push(`validatePath(${JSON.stringify(p)}): ${String(path)}, the rules say ${byRules(p)}`);
    }
    for (const name of stringsUpTo(4, '')) {
      const expected = name.length > 0 && !name.includes('/') && byRules(`/${name}`);
      const named = verdict(() => validateNodeName(name), name);
      if (named !== expected) disagreements.push(`validateNodeName(${JSON.stringify(name)}): ${String(named)}, the rules say ${expected}`);
    }
    // 1 + 8 + ... + 8^4 strings from "/", and the 8^0 + ... + 8^3 others not starting with it.
    expect(paths.size).toBe(4681 + 585 - 73);
    expect(disagreements.slice(0, 20), `${disagreements.length} disagreements`).toEqual([]);
  });

  it('rejects characters outside the BMP (they are surrogate pairs)', () => {
    invalid(() => validatePath('/lock-😀'));
  });

  it('names the argument and carries the path', () => {
    const err = invalid(() => validatePath('relative', 'lockPath'));
    expect(err.message).toMatch(/^lockPath /);
    expect(err.path).toBe('relative');
    expect(err.code).toBe('INVALID_ARGUMENT');
  });
});

describe('validateNodeName', () => {
  it('accepts names and rejects slashes, empties, dots, control chars', () => {
    expect(validateNodeName('lock-')).toBe('lock-');
    invalid(() => validateNodeName(''));
    invalid(() => validateNodeName('a/b'));
    invalid(() => validateNodeName('..'));
    invalid(() => validateNodeName('a\u0007'));
  });
});

describe('joinPath', () => {
  it('joins a parent and a child name', () => {
    expect(joinPath('/', 'a')).toBe('/a');
    expect(joinPath('/locks', 'leases')).toBe('/locks/leases');
    expect(joinPath('/a/b', '_c_x-lock-0000000001')).toBe('/a/b/_c_x-lock-0000000001');
  });

  it('rejects a bad parent or a child that is not a single name', () => {
    expect(invalid(() => joinPath('a', 'b')).message).toMatch(/^parent/);
    expect(invalid(() => joinPath('/a', 'b/c')).message).toMatch(/^child/);
    expect(invalid(() => joinPath('/a', '')).message).toMatch(/^child/);
    expect(invalid(() => joinPath('/a', '.')).message).toMatch(/^child/);
  });
});

describe('parentOf / nameOf', () => {
  it('splits paths', () => {
    expect(parentOf('/a')).toBe('/');
    expect(parentOf('/a/b')).toBe('/a');
    expect(parentOf('/a/b/c')).toBe('/a/b');
    expect(nameOf('/a')).toBe('a');
    expect(nameOf('/a/b/c')).toBe('c');
    expect(nameOf('/')).toBe('');
  });

  it('round-trips with joinPath', () => {
    for (const p of ['/a', '/a/b', '/x/y/z']) expect(joinPath(parentOf(p), nameOf(p))).toBe(p);
  });

  it('the root has no parent; invalid paths are refused', () => {
    invalid(() => parentOf('/'));
    invalid(() => parentOf('/a/'));
    invalid(() => nameOf('a'));
  });
});
