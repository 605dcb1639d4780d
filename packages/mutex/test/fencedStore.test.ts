/** The fenced resource's rule (examples/fencedResource.ts), without a server. */
import { describe, expect, it } from 'vitest';
import { FencedStore, fencedWrite, startFencedResource } from '../../../examples/fencedResource.js';

describe('FencedStore', () => {
  it('accepts equal and higher tokens per key and rejects a lower one', () => {
    const store = new FencedStore();
    expect(store.write('k', 5n, 'a')).toEqual({ accepted: true, highest: 5n });
    expect(store.write('k', 5n, 'b')).toEqual({ accepted: true, highest: 5n });
    expect(store.write('k', 4n, 'c')).toMatchObject({ accepted: false, highest: 5n });
    expect(store.write('other', 1n, 'd')).toEqual({ accepted: true, highest: 1n });
    expect(store.write('k', 9n, 'e')).toEqual({ accepted: true, highest: 9n });
    expect(store.read('k')).toEqual({ token: 9n, value: 'e' });
    expect(store.log.map((w) => w.accepted)).toEqual([true, true, false, true, true]);
  });
});

describe('startFencedResource / fencedWrite', () => {
  it('serve the rule over HTTP on 127.0.0.1: 200 for a current token, 409 for a stale one', async () => {
    const resource = await startFencedResource();
    try {
      expect(resource.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(await fencedWrite(resource.url, { key: 'k', token: 10n, value: 'a', writer: 'w1' })).toEqual({ accepted: true, highest: 10n });
      expect(await fencedWrite(resource.url, { key: 'k', token: 7n, value: 'b', writer: 'w2' })).toMatchObject({ accepted: false, highest: 10n });
      expect(resource.store.read('k')).toEqual({ token: 10n, value: 'a' });
      expect(resource.store.log.map((w) => [w.writer, w.accepted])).toEqual([
        ['w1', true],
        ['w2', false],
      ]);
    } finally {
      await resource.close();
    }
  });
});
