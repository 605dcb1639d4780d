/** What a participant's node says (pure): the data it writes for each kind of id, and how it is read back. */
import { encodeOwnerData } from '@zk-recipes/core';
import { describe, expect, it } from 'vitest';
import { participantData, participantOf } from '../src/participants.js';

const owner = { host: 'web-1', pid: 4242, label: 'scheduler' };
const ownerData = encodeOwnerData(owner);
const utf8 = (bytes: Uint8Array) => Buffer.from(bytes).toString('utf8');

describe('participantData', () => {
  it('no id: the owner data is the id', () => {
    expect(participantData(ownerData, undefined, false)).toBe(ownerData);
    expect(participantData(ownerData, undefined, true)).toBe(ownerData);
  });

  it("an id: the id alone, Curator's data (what Curator's getParticipants() reports)", () => {
    expect(utf8(participantData(ownerData, 'scheduler-a', false))).toBe('scheduler-a');
  });

  it('an id with ownerData: the owner data with the id as its last key', () => {
    expect(utf8(participantData(ownerData, 'scheduler-a', true))).toBe('{"zkRecipes":1,"host":"web-1","pid":4242,"label":"scheduler","id":"scheduler-a"}');
  });
});

describe('participantOf', () => {
  it('reads back each kind: the owner data as id, an id alone, an id beside its owner', () => {
    expect(participantOf(ownerData)).toEqual({ id: utf8(ownerData), owner });
    expect(participantOf(Buffer.from('scheduler-a'))).toEqual({ id: 'scheduler-a', owner: undefined });
    expect(participantOf(participantData(ownerData, 'scheduler-a', true))).toEqual({ id: 'scheduler-a', owner });
  });

  it("anyone's data is an id as it is: Curator's empty default, foreign JSON, an owner record with an id that is not a string", () => {
    for (const text of ['', '{"id":"x"}', '{"zkRecipes":1,"host":"h","pid":1,"id":5}', '{"zkRecipes":1,"host":"h","pid":1,"id":"x"']) {
      expect(participantOf(Buffer.from(text)), text).toEqual({ id: text, owner: undefined });
    }
  });
});
