/**
 * Raw floor of a lock hand-off: one session deletes a node, another session's data watch on it
 * fires. Timed from just before the delete is sent to the watch callback (both sessions live in
 * this process, so one clock).
 */
import { RawZk } from './rawZk.js';

export async function rawDeleteToWatch(connectString: string, dir: string, n: number, warmup: number): Promise<number[]> {
  const [deleter, watcher] = await Promise.all([RawZk.connect(connectString), RawZk.connect(connectString)]);
  try {
    await deleter.mkdirp(dir);
    const samples: number[] = [];
    for (let i = 0; i < warmup + n; i++) {
      const path = await deleter.createSequential(`${dir}/h-`);
      let fired!: () => void;
      const watchFired = new Promise<void>((resolve) => (fired = resolve));
      let firedAt = 0n;
      const exists = await watcher.existsWatch(path, () => {
        firedAt = process.hrtime.bigint();
        fired();
      });
      if (!exists) throw new Error(`rawDeleteToWatch: ${path} vanished before the watch was set`);
      const t0 = process.hrtime.bigint();
      await Promise.all([deleter.delete(path), watchFired]);
      if (i >= warmup) samples.push(Number(firedAt - t0));
    }
    return samples;
  } finally {
    deleter.close();
    watcher.close();
  }
}
