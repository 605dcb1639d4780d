/**
 * Deadlines that hold while the server stalls (docs/architecture.md, "Deadlines"): with the
 * server stopped (SIGSTOP), every InterProcessMutex acquisition settles by its deadline or abort
 * plus the documented slack (50 ms), none is granted, and no node is left once the server resumes.
 */
import { InterProcessMutex } from '@zk-recipes/mutex';
import { uniqueRoot } from '@zk-recipes/testing';
import { describeUnderStall, type StallRecipe } from '../../core/test/support/stalledServer.js';

const root = uniqueRoot('mutex-stalled-server');
const mutex: StallRecipe = {
  acquire: (session, path, options) => new InterProcessMutex(session, path).acquire(options),
  queueDir: (path) => path,
};

describeUnderStall('InterProcessMutex', mutex, root);
