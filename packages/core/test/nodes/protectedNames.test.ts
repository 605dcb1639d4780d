import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../../src/errors.js';
import {
  PROTECTED_HEADER_LENGTH,
  hasGuid,
  newProtectedName,
  protectionGuidOf,
  withoutProtection,
} from '../../src/nodes/index.js';

// Shaped like a name Curator 5.4's InterProcessMutex writes (observed in the Curator interop test).
const GUID = '3f0a3c6e-8b1d-4c5e-9f2a-7d6b5c4e3a21';
const CURATOR_LOCK = `_c_${GUID}-lock-0000000007`;

describe('newProtectedName', () => {
  it('writes _c_<uuid>-<prefix>, like Curator', () => {
    const { guid, name } = newProtectedName('lock-');
    expect(guid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(name).toBe(`_c_${guid}-lock-`);
    expect(PROTECTED_HEADER_LENGTH).toBe(40);
  });

  it('uses a fresh GUID each time', () => {
    const guids = new Set(Array.from({ length: 100 }, () => newProtectedName('x').guid));
    expect(guids.size).toBe(100);
  });

  it('accepts Curator\'s read/write prefixes and the empty prefix', () => {
    expect(newProtectedName('__READ__').name.endsWith('-__READ__')).toBe(true);
    expect(newProtectedName('').name).toHaveLength(40);
  });

  it('rejects prefixes that cannot be part of a node name', () => {
    expect(() => newProtectedName('a/b')).toThrow(InvalidArgumentError);
    expect(() => newProtectedName('a\u0000')).toThrow(InvalidArgumentError);
    expect(() => newProtectedName(7 as never)).toThrow(InvalidArgumentError);
  });
});

describe('protectionGuidOf / hasGuid / withoutProtection', () => {
  it('reads the GUID of a protected name, including a sequential one', () => {
    expect(protectionGuidOf(CURATOR_LOCK)).toBe(GUID);
    const { guid, name } = newProtectedName('read-');
    expect(protectionGuidOf(`${name}0000000001`)).toBe(guid);
    expect(hasGuid(`${name}0000000001`, guid)).toBe(true);
    expect(hasGuid(CURATOR_LOCK, guid)).toBe(false);
  });

  it('accepts an upper-case UUID (another writer may use one)', () => {
    expect(protectionGuidOf(`_c_${GUID.toUpperCase()}-lock-0000000001`)).toBe(GUID.toUpperCase());
  });

  it('is null for names that are not protected', () => {
    for (const name of [
      'lock-0000000003',
      '__READ__0000000001',
      '_c_',
      `_c_${GUID}-`, // nothing after the header: not protected (as in Curator)
      `_c_${GUID}`,
      `_c_${GUID}_lock-0000000001`, // wrong separator
      `_x_${GUID}-lock-0000000001`,
      `_c_${GUID.replace('-', '')}--lock-0000000001`, // not a UUID shape
      `_c_zzzzzzzz-8b1d-4c5e-9f2a-7d6b5c4e3a21-lock-0000000001`, // not hex
      'a1b2c3d4e5f60718293a4b5c6d7e8f90__lock__0000000001', // kazoo's style
      '',
    ]) {
      expect(protectionGuidOf(name), name).toBeNull();
      expect(withoutProtection(name), name).toBe(name);
    }
  });

  it('strips the header', () => {
    expect(withoutProtection(CURATOR_LOCK)).toBe('lock-0000000007');
    expect(withoutProtection(`_c_${GUID}-x`)).toBe('x');
  });
});

describe('protectionGuidOf, scanned', () => {
  const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
  it('agrees with the canonical UUID pattern (either case) at every position of the header', () => {
    const guid = '3f0a3c6e-8b1d-4c5e-9f2a-7d6b5c4e3a21';
    const variants = [guid, guid.toUpperCase()];
    for (let i = 0; i < guid.length; i++) {
      for (const c of ['-', 'g', 'G', '0', 'f', 'F', '/', ' ', 'é']) variants.push(guid.slice(0, i) + c + guid.slice(i + 1));
    }
    for (const candidate of variants) {
      const name = `_c_${candidate}-lock-0000000001`;
      expect(protectionGuidOf(name), candidate).toBe(UUID_RE.test(candidate) ? candidate : null);
    }
  });
});
