import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ZkSession } from '@zk-recipes/core';
import { FaultProxy } from '../src/FaultProxy.js';
import { Operator, OperatorError, REVOKE_MARKER } from '../src/operator.js';
import { testConnectString } from '../src/testConnectString.js';
import { uniqueRoot } from '../src/uniqueRoot.js';

const root = uniqueRoot('operator');
let owner: ZkSession;
let operator: Operator;

beforeAll(async () => {
  owner = await ZkSession.connect({ connectString: testConnectString() });
  operator = await Operator.connect(testConnectString());
});
afterAll(async () => {
  await operator.close();
  await owner.close();
});

/** A lock directory with `n` ephemeral sequential children of `owner`, in creation order. */
async function lockDir(name: string, n: number): Promise<{ dir: string; nodes: string[] }> {
  const dir = `${root}/${name}`;
  await owner.mkdirp(dir);
  const nodes: string[] = [];
  for (let i = 0; i < n; i++) nodes.push((await owner.create(`${dir}/lock-`, null, { mode: 'ephemeral_sequential' })).path);
  return { dir, nodes };
}

describe('Operator', () => {
  it('deletes one node of another session; a node already gone is reported, not thrown', async () => {
    const { dir, nodes } = await lockDir('one', 2);
    const r = await operator.deleteNode(nodes[0]!);
    expect(r).toMatchObject({ path: nodes[0], deleted: true });
    expect(r.done).toBeGreaterThanOrEqual(r.start);
    expect((await owner.getChildren(dir)).children).toEqual([nodes[1]!.split('/').pop()]);
    expect(await operator.deleteNode(nodes[0]!)).toMatchObject({ deleted: false });
  });

  it('lists children oldest first with their stats', async () => {
    const { dir, nodes } = await lockDir('age', 3);
    const listed = await operator.childrenByAge(dir);
    expect(listed.map((c) => c.path)).toEqual(nodes);
    expect(listed[0]!.stat.ephemeralOwner).toBe(owner.sessionIdBigInt);
    expect(await operator.childrenByAge(`${root}/nothing-here`)).toEqual([]);
  });

  it.each([
    ['youngest-first', (nodes: string[]) => [...nodes].reverse()],
    ['oldest-first', (nodes: string[]) => nodes],
  ] as const)('deleteAll %s deletes the children in that order, then the directory', async (order, expected) => {
    const { dir, nodes } = await lockDir(order, 4);
    const records = await operator.deleteAll(dir, { order });
    expect(records.map((r) => r.path)).toEqual([...expected(nodes), dir]);
    expect(records.every((r) => r.deleted)).toBe(true);
    expect(await owner.exists(dir)).toBeNull();
  });

  it('deleteAll random: a permutation that the seed replays', async () => {
    const a = await lockDir('random-a', 6);
    const b = await lockDir('random-b', 6);
    const ra = (await operator.deleteAll(a.dir, { order: 'random', seed: 99, includeSelf: false })).map((r) => r.path);
    const rb = (await operator.deleteAll(b.dir, { order: 'random', seed: 99, includeSelf: false })).map((r) => r.path);
    expect([...ra].sort()).toEqual([...a.nodes].sort());
    // Same seed, same listing shape: the same positions in the same order.
    expect(ra.map((p) => a.nodes.indexOf(p))).toEqual(rb.map((p) => b.nodes.indexOf(p)));
    expect(ra).not.toEqual(a.nodes);
    // includeSelf: false keeps the directory.
    expect(await owner.exists(a.dir)).not.toBeNull();
  });

  it('deleteAll goes down nested directories, children before parents', async () => {
    const dir = `${root}/nested`;
    await owner.mkdirp(`${dir}/leases/deep`);
    await owner.create(`${dir}/leases/deep/x`, null, { mode: 'ephemeral' });
    await owner.create(`${dir}/lock-`, null, { mode: 'ephemeral_sequential' });
    const records = await operator.deleteAll(dir);
    const order = records.map((r) => r.path);
    expect(order.indexOf(`${dir}/leases/deep/x`)).toBeLessThan(order.indexOf(`${dir}/leases/deep`));
    expect(order.indexOf(`${dir}/leases/deep`)).toBeLessThan(order.indexOf(`${dir}/leases`));
    expect(order.at(-1)).toBe(dir);
    expect(await owner.exists(dir)).toBeNull();
  });

  it('writes arbitrary bytes and the revocation marker to a node it does not own', async () => {
    const { nodes } = await lockDir('write', 1);
    const bytes = Buffer.from([0, 255, 7, 0x80]);
    const w = await operator.writeData(nodes[0]!, bytes);
    expect(w).toMatchObject({ written: true });
    const after = await owner.getData(nodes[0]!);
    expect(after.data).toEqual(bytes);
    expect(after.stat.version).toBe(1);
    await operator.revoke(nodes[0]!);
    expect((await owner.getData(nodes[0]!)).data.toString('utf8')).toBe(REVOKE_MARKER);
    await owner.delete(nodes[0]!);
    expect(await operator.revoke(nodes[0]!)).toMatchObject({ written: false });
  });

  describe('when the answer to a delete is lost', () => {
    /** The opcode of a delete on the wire. */
    const OP_DELETE = 2;
    let proxy: FaultProxy;
    let cut: Operator;

    beforeAll(async () => {
      const [host, port] = testConnectString().split(',')[0]!.split('/')[0]!.split(':') as [string, string];
      proxy = await FaultProxy.start({ targetHost: host, targetPort: Number(port) });
      cut = await Operator.connect({ connectString: proxy.connectString, sessionTimeoutMs: 6000 }, { patienceMs: 1500 });
    });
    afterAll(async () => {
      proxy.refuseConnections(false);
      await cut.close();
      await proxy.close();
    });

    it('sends it again once connected and reports the node deleted, uncertain about by whom', async () => {
      const { dir, nodes } = await lockDir('lost-answer', 2);
      // The server applies the delete; the connection dies before its answer.
      const lost = proxy.cutAfterNextRequest(OP_DELETE);
      const record = cut.deleteNode(nodes[0]!);
      await lost;
      expect(await record).toMatchObject({ path: nodes[0], deleted: true, uncertain: true });
      expect((await owner.getChildren(dir)).children).toEqual([nodes[1]!.split('/').pop()]);
    });

    it('a deleteall cut off half-way rejects with every delete it sent, the last one possibly applied', async () => {
      const { dir, nodes } = await lockDir('half-way', 4);
      // Two deletes go through, the third is applied but its answer never comes, and no server
      // can be reached again within the operator's patience.
      const lost = proxy.cutAfterNextRequest(OP_DELETE, 2);
      const deleting = cut.deleteAll(dir, { order: 'oldest-first' });
      await lost;
      proxy.refuseConnections(true);
      const err = await deleting.then(
        () => expect.unreachable('deleteall cannot finish without a server'),
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(OperatorError);
      expect((err as OperatorError).message).toMatch(/gave up after 1500 ms without a server/);
      const records = (err as OperatorError).records;
      expect(records.map((r) => r.path)).toEqual(nodes.slice(0, 3));
      expect(records.map((r) => [r.deleted, r.uncertain])).toEqual([
        [true, undefined],
        [true, undefined],
        [true, true],
      ]);
      expect((await owner.getChildren(dir)).children).toEqual([nodes[3]!.split('/').pop()]);
      proxy.refuseConnections(false);
    });
  });
});
