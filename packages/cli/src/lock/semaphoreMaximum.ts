import type { ZkSession } from '@zk-recipes/core';
import { decodeCount } from '@zk-recipes/semaphore';
import { CliError } from './CliError.js';
import { dataOrNull } from './nodeReads.js';
import type { ReadLockOptions } from './LockSnapshot.js';

/**
 * A semaphore's maximum: the user's `--max-leases`, else the SharedCount at `--count`, else the
 * decimal a fixed `maxLeases` records in the lease directory's data; `null` when none says.
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
  return /^[1-9]\d{0,9}$/.test(text) ? Number(text) : null;
}
