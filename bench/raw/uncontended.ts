/**
 * Raw floors of the uncontended scenario: an EPHEMERAL_SEQUENTIAL create with the directory
 * listing pipelined behind it (both sent at once, timed until both replies are in: what an
 * uncontended lock acquire must at least do), and a plain delete (what a release must do).
 */
import { RawZk } from './rawZk.js';

export interface RawUncontendedSamples {
  /** create + getChildren, pipelined, in ns. */
  createAndListNs: number[];
  /** delete, in ns. */
  deleteNs: number[];
}

export async function rawUncontended(connectString: string, dir: string, n: number, warmup: number): Promise<RawUncontendedSamples> {
  const zk = await RawZk.connect(connectString);
  try {
    await zk.mkdirp(dir);
    const out: RawUncontendedSamples = { createAndListNs: [], deleteNs: [] };
    for (let i = 0; i < warmup + n; i++) {
      const t0 = process.hrtime.bigint();
      const [path] = await Promise.all([zk.createSequential(`${dir}/n-`), zk.getChildren(dir)]);
      const t1 = process.hrtime.bigint();
      await zk.delete(path);
      const t2 = process.hrtime.bigint();
      if (i >= warmup) {
        out.createAndListNs.push(Number(t1 - t0));
        out.deleteNs.push(Number(t2 - t1));
      }
    }
    return out;
  } finally {
    zk.close();
  }
}
