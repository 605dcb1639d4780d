/**
 * `ZkSession.mkdirp`: a path and its missing ancestors, all creates pipelined (one round trip),
 * tolerating NODE_EXISTS races.
 */
import { ZkRecipesError } from '../errors.js';
import { pathAndAncestors } from '../nodes/pathAndAncestors.js';
import { assertPath } from './requests.js';
import type { CreateOptions, CreateResult, MkdirpOptions } from './types.js';

/** The one call mkdirp needs of the session. */
export interface Creator {
  create(path: string, data: Uint8Array | null, options: CreateOptions): Promise<CreateResult>;
}

/** How often an ancestor that vanished between creates (a reaped container) is tried again. */
const REAPED_RETRIES = 3;

export async function mkdirp(session: Creator, path: string, mode: 'persistent' | 'container', options: MkdirpOptions): Promise<void> {
  assertPath('mkdirp', path);
  if (path === '/') return;
  const prefixes = pathAndAncestors(path);
  const ancestors = options.ancestors ?? mode;
  const createOne = (p: string): Promise<CreateResult> =>
    p === path ? session.create(p, options.data ?? null, { mode }) : session.create(p, null, { mode: ancestors });
  for (let attempt = 0; ; attempt++) {
    const results = await Promise.allSettled(prefixes.map(createOne));
    const failure = results.find(
      (r): r is PromiseRejectedResult => r.status === 'rejected' && !(r.reason instanceof ZkRecipesError && r.reason.code === 'NODE_EXISTS'),
    );
    if (!failure) return;
    const err = failure.reason as unknown;
    // NO_NODE: an ancestor vanished between creates (a reaped container): try again.
    if (err instanceof ZkRecipesError && err.code === 'NO_NODE' && attempt < REAPED_RETRIES) continue;
    throw err;
  }
}
