import { InconsistentMaxLeasesError } from '@zk-recipes/core';
import type { DirectoryRecord } from '@zk-recipes/core/recipe-kit';

/**
 * A fixed `maxLeases`, recorded as decimal text in the data of the directory that holds the lease
 * nodes (`path`, or `<path>/leases` in Curator's layout). The engine writes it when it creates the
 * directory, claims an empty one, and checks it once per incarnation of the directory: a container
 * the server removed when the last lease went is recorded again by whoever comes next
 * (docs/semaphore.md, "maxLeases consistency").
 */
export function maxLeasesRecord(path: string, maxLeases: number): DirectoryRecord {
  const encoded = String(maxLeases);
  return {
    data: Buffer.from(encoded),
    mismatch: (found) =>
      new InconsistentMaxLeasesError(`semaphore ${path} records maxLeases ${JSON.stringify(found.toString('utf8'))}, this client says ${encoded}`, { path }),
  };
}
