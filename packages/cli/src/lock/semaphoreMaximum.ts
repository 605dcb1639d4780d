import type { ZkSession } from '@zk-recipes/core';
import { decodeCount } from '@zk-recipes/semaphore';
import { CliError } from './CliError.js';
import { dataOrNull } from './nodeReads.js';
import type { ReadLockOptions } from './LockSnapshot.js';

/** The most a semaphore's `maxLeases` can be (the recipes' bound), and so the most its record says. */
const MAX_RECORDED = 2 ** 31 - 1;

/**
 * A semaphore's maximum: the user's `--max-leases`, else the SharedCount at `--count`, else the
 * decimal a fixed `maxLeases` records in the lease directory's data (as the recipe writes it: 1 to
 * 2^31-1, no sign, no leading zero); `null` when none says.
 */
export async function maximumOf(session: ZkSession, leaseDirectory: string, options: ReadLockOptions): Promise<number | null> {
  if (options.maxLeases !== undefined) return options.maxLeases;
  if (options.countPath !== undefined) {
    const count = await dataOrNull(session, options.countPath, options.watcher);
    if (count === null) throw new CliError('NO_NODE', `no SharedCount node at ${options.countPath}`);
    return decodeCount(count.data);
  }
  const record = await dataOrNull(session, leaseDirectory, options.watcher);
  const text = record?.data.toString('utf8') ?? '';
  return /^[1-9]\d{0,9}$/.test(text) && Number(text) <= MAX_RECORDED ? Number(text) : null;
}
