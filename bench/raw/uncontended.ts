/**
 * Raw floors of the uncontended scenario: an EPHEMERAL_SEQUENTIAL create with the directory
 * listing pipelined behind it (both sent at once, timed until both replies are in: what an
 * uncontended lock acquire must at least do), and a plain delete (what a release must do).
 */
import { RawZk } from './rawZk.js';

export interface RawPair {
  /** create + getChildren, pipelined, in ns. */
  acquireNs: number;
  /** delete, in ns. */
  releaseNs: number;
}

/** One raw session doing create+list / delete pairs in one directory, one pair per call. */
export class RawUncontended {
  private constructor(
    private readonly zk: RawZk,
    private readonly dir: string,
  ) {}

  static async open(connectString: string, dir: string): Promise<RawUncontended> {
    const zk = await RawZk.connect(connectString);
    await zk.mkdirp(dir);
    return new RawUncontended(zk, dir);
  }

  async pair(): Promise<RawPair> {
    const t0 = process.hrtime.bigint();
    const [path] = await Promise.all([this.zk.createSequential(`${this.dir}/n-`), this.zk.getChildren(this.dir)]);
    const t1 = process.hrtime.bigint();
    await this.zk.delete(path);
    const t2 = process.hrtime.bigint();
    return { acquireNs: Number(t1 - t0), releaseNs: Number(t2 - t1) };
  }

  close(): void {
    this.zk.close();
  }
}
