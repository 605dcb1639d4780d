/**
 * costOfCycles against a real server: a window in which a lock directory was made again (as after
 * the container reaper removed it) is measured again; one in every window fails.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isZkError, ZkSession } from '@zk-recipes/core';
import { connectTallied, costOfCycles, type TalliedSession } from '../src/protocolCost.js';
import { testConnectString } from '../src/testConnectString.js';
import { uniqueRoot } from '../src/uniqueRoot.js';

const root = uniqueRoot('cost-of-cycles');
let t: TalliedSession;
let operator: ZkSession;
beforeAll(async () => {
  t = await connectTallied();
  operator = await ZkSession.connect({ connectString: testConnectString() });
  await operator.mkdirp(root);
});
afterAll(async () => {
  await t.close();
  await operator.close();
});

/** A lock's cycle in miniature: a node made in a container directory (made first if it is missing), then deleted. */
function cycleIn(dir: string): () => Promise<void> {
  return async () => {
    const node = await t.session.create(`${dir}/n-`, null, { mode: 'ephemeral_sequential' }).catch(async (err: unknown) => {
      if (!isZkError(err, 'NO_NODE')) throw err;
      await t.session.create(dir, null, { mode: 'container' });
      return t.session.create(`${dir}/n-`, null, { mode: 'ephemeral_sequential' });
    });
    await t.session.delete(node.path);
  };
}

describe('costOfCycles', () => {
  it('measures again a window in which a directory was removed and made again, and returns a clean one', async () => {
    const dir = `${root}/once`;
    const cycle = cycleIn(dir);
    await cycle(); // makes the directory
    let windows = 0;
    const tally = await costOfCycles(t, 5, async (i) => {
      if (i === 0) windows++;
      // In the first window only, the directory goes as the reaper would take it (empty).
      if (windows === 1 && i === 2) await operator.delete(dir);
      await cycle();
    });
    expect(windows).toBe(2);
    expect(tally.byOp).toEqual({ create2: 5, delete: 5 });
  });

  it('fails when every window makes a directory again, and counts them when told they are the cycle\'s own', async () => {
    const dir = `${root}/always`;
    const cycle = cycleIn(dir);
    await cycle();
    const removingFirst = async (): Promise<void> => {
      await operator.delete(dir);
      await cycle();
    };
    await expect(costOfCycles(t, 2, removingFirst)).rejects.toThrow(/made again in each of 5 windows/);
    const counted = await costOfCycles(t, 2, removingFirst, { remadeDirectories: 'counted' });
    expect(counted.byOp).toEqual({ create2: 4, createContainer: 2, delete: 2 });
  });
});
