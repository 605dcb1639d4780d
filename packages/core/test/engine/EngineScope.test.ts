/** The engine's per-session state: one per session, and its per-listing caches (pure logic, no server). */
import { describe, expect, it } from 'vitest';
import { EngineScope, engineScopeOf } from '../../src/engine/EngineScope.js';
import { hostname } from 'node:os';
import { parseOwnerData } from '../../src/nodes/ownerData.js';
import { SessionScope } from '../../src/session/sessionScope.js';
import type { ZkSession } from '../../src/session/ZkSession.js';

/** Just what the scope reads of a session before any request. */
function fakeSession(label?: string): ZkSession {
  const session = {} as ZkSession & { scope: SessionScope<ZkSession> };
  Object.assign(session, { scope: new SessionScope<ZkSession>(session), options: { label } });
  return session;
}

const GUID_A = '0f6e1c3a-5b7d-4e2f-9a1b-2c3d4e5f6a7b';
const GUID_B = '1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d';

describe('EngineScope', () => {
  it("encodes the owner data once per session, with the session's label, and uses it unless data is given", () => {
    const scope = new EngineScope(fakeSession('orders-worker'));
    expect(Buffer.from(scope.ownerData).toString()).toBe(`{"zkRecipes":1,"host":${JSON.stringify(hostname())},"pid":${process.pid},"label":"orders-worker"}`);
    expect(scope.nodeData(undefined)).toBe(scope.ownerData);
    expect(scope.nodeData(null)).toBe(scope.ownerData);
    const own = Buffer.from('mine');
    expect(scope.nodeData(own)).toBe(own);
    expect(parseOwnerData(new EngineScope(fakeSession()).ownerData)).toEqual({ host: hostname(), pid: process.pid });
  });

  it('is one per session, made on first use, and shares the session its fan-out', () => {
    const one = fakeSession();
    const other = fakeSession();
    const scope = one.scope.get(engineScopeOf);
    expect(one.scope.get(engineScopeOf)).toBe(scope);
    expect(other.scope.get(engineScopeOf)).not.toBe(scope);
    expect(scope.session).toBe(one);
    expect(new EngineScope(one).fanOut).toBe(scope.fanOut);
  });

  it('sorts a listing once for everyone deciding on it, by sequence, with each name\'s index', () => {
    const scope = new EngineScope(fakeSession());
    const listing = [`_c_${GUID_B}-lock-0000000003`, 'foreign-node', `_c_${GUID_A}-lock-0000000001`];
    const sorted = scope.sortedQueueOf(listing);
    expect(scope.sortedQueueOf(listing)).toBe(sorted);
    expect(sorted.queue.map((entry) => entry.name)).toEqual([`_c_${GUID_A}-lock-0000000001`, `_c_${GUID_B}-lock-0000000003`]);
    expect(sorted.indexOf.get(`_c_${GUID_B}-lock-0000000003`)).toBe(1);
    expect(listing[0]).toBe(`_c_${GUID_B}-lock-0000000003`); // the shared listing is not sorted in place
    // Another array with the same names is another listing.
    expect(scope.sortedQueueOf([...listing])).not.toBe(sorted);
  });

  it('finds a create\'s nodes by the GUID of their protected name, whatever its case', () => {
    const scope = new EngineScope(fakeSession());
    const listing = [`_c_${GUID_A}-lock-0000000001`, `_c_${GUID_B}-lock-0000000002`, `_c_${GUID_A.toUpperCase()}-lock-0000000004`];
    expect(scope.namesWithGuid(listing, GUID_A)).toEqual([listing[0], listing[2]]);
    expect(scope.namesWithGuid(listing, GUID_B.toUpperCase())).toEqual([listing[1]]);
    expect(scope.namesWithGuid(listing, '99999999-9999-4999-8999-999999999999')).toEqual([]);
  });

  it("finds the nodes a create made by its GUID and its kind: a downgrade's read node, same GUID, another kind, is not one of them", () => {
    const scope = new EngineScope(fakeSession());
    for (const [write, read] of [['write-', 'read-'], ['__WRIT__', '__READ__']] as const) {
      const made = [`_c_${GUID_A}-${write}0000000005`, `_c_${GUID_A}-${write}0000000007`, `_c_${GUID_A}-${write}-2147483648`];
      const listing = [made[0]!, `_c_${GUID_A}-${read}0000000005`, `_c_${GUID_B}-${write}0000000006`, made[1]!, made[2]!];
      expect(scope.namesCreatedAs(listing, `_c_${GUID_A}-${write}`)).toEqual(made);
      expect(scope.namesCreatedAs(listing, `_c_${GUID_A}-${read}`)).toEqual([listing[1]]);
      expect(scope.namesCreatedAs(listing, `_c_${GUID_B}-${read}`)).toEqual([]);
    }
    expect(scope.namesCreatedAs([`_c_${GUID_A}-lock-0000000001`], 'lock-')).toEqual([]); // not a protected name
  });

  it('marks a seat of ours as keeping its place, and only a seat of ours', () => {
    const scope = new EngineScope(fakeSession());
    scope.seats.set('/locks/a/_c_x-write-0000000001', { held: true });
    scope.keepPlace('/locks/a/_c_x-write-0000000001');
    scope.keepPlace('/locks/a/not-ours');
    expect(scope.seats.get('/locks/a/_c_x-write-0000000001')?.keepsPlace).toBe(true);
    expect(scope.seats.has('/locks/a/not-ours')).toBe(false);
  });
});
