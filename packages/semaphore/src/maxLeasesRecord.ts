import { InconsistentMaxLeasesError, isZkError, parentOf, type ZkSession } from '@zk-recipes/core';

/**
 * Makes sure the semaphore node at `path` records `maxLeases` in its data: creates it PERSISTENT
 * with the value (a container would be reaped when idle and forget the record), or claims it with
 * a versioned write if it
 * has no data yet (the engine, or Curator, may have created it empty). Creation and claim are
 * compare-and-set, so two clients with different values cannot both win.
 *
 * @throws InconsistentMaxLeasesError when the node records another value
 */
export async function ensureMaxLeasesRecorded(session: ZkSession, path: string, maxLeases: number): Promise<void> {
  const encoded = String(maxLeases);
  for (let attempt = 0; attempt < 10; attempt++) {
    let found: { data: Buffer; stat: { version: number } };
    try {
      found = await session.getData(path);
    } catch (err) {
      if (!isZkError(err, 'NO_NODE')) throw err;
      try {
        await session.mkdirp(parentOf(path), 'container');
        await session.create(path, Buffer.from(encoded), { mode: 'persistent' });
        return;
      } catch (createErr) {
        if (isZkError(createErr, 'NODE_EXISTS') || isZkError(createErr, 'NO_NODE')) continue;
        throw createErr;
      }
    }
    const recorded = found.data.toString('utf8');
    if (recorded === encoded) return;
    if (found.data.length === 0) {
      try {
        await session.setData(path, Buffer.from(encoded), found.stat.version);
        return;
      } catch (err) {
        if (isZkError(err, 'BAD_VERSION')) continue;
        throw err;
      }
    }
    throw new InconsistentMaxLeasesError(
      `semaphore ${path} was created with maxLeases ${JSON.stringify(recorded)}, this client says ${maxLeases}`,
      { path },
    );
  }
  throw new InconsistentMaxLeasesError(`semaphore ${path}: could not record maxLeases ${maxLeases} (node kept changing)`, { path });
}
