import { parseArgs } from 'node:util';
import { lockKeyPath, SessionLostError, type ZkSession } from '@zk-recipes/core';
import { validatePath } from '@zk-recipes/core/recipe-kit';
import { readLockSnapshot, type ReadLockOptions } from '../lock/readLockSnapshot.js';
import type { LockSnapshot } from '../lock/LockSnapshot.js';
import { CONNECTION_HELP, CONNECTION_OPTIONS, positiveInteger } from '../options/connectionOptions.js';
import { UsageError } from '../options/UsageError.js';
import { inspectText } from '../render/inspectText.js';
import { PRINT_LIMITS } from '../text/limits.js';
import { printable, printableJson } from '../text/printable.js';
import type { Io } from './Io.js';
import type { Command } from './Command.js';
import { watchLock } from './watchLock.js';

export const INSPECT_HELP = `Usage: zk-recipes inspect <path> --connect <host:port,...> [--json] [--watch] [--election] [--key <key>]

Every contender of the lock at <path>, in queue order: a mutex, a read/write lock (zk-recipes'
or Curator's names) or a semaphore (queue or Curator layout) alike. For each node: its name, kind
(lock/read/write/lease), role (holder/waiter, decided by the recipe's own rule; for a semaphore
with the leases it holds or asks for), the session that owns it, its age, and the owner data it
carries (host, pid, label). A leader election (LeaderLatch's latch- nodes, zk-recipes' or
Curator's) shows its leader and participants, each with its id.

Options:
  --json               one JSON object per snapshot (docs/observability.md documents it)
  -w, --watch          print a new snapshot on every change of what it shows (ZooKeeper
                       watches, no polling; Ctrl-C ends)
  --max-leases <n>     a semaphore's maximum, when its directory records none
  --count <path>       the SharedCount node that gives a semaphore's maximum
  --election           read a lock- queue as a LeaderSelector's election (its leader and
                       participants with their ids): it is a mutex's queue to look at
  --key <key>          <path> is a lock set's base path (a MutexSet's): inspect the lock of
                       <key>, at <path>/<the key encoded as MutexSet encodes it>

${CONNECTION_HELP}

What the nodes say (names, owner data) is printed escaped (\\n, \\x1b, \\u202e...) and cut to a
bound, ending in …; --json keeps it whole (owner data up to what a zk-recipes process writes).

Exit codes: 0 done, 1 ZooKeeper failed or nothing is at <path>, 2 usage error.`;

const OPTIONS = {
  ...CONNECTION_OPTIONS,
  json: { type: 'boolean' },
  watch: { type: 'boolean', short: 'w' },
  'max-leases': { type: 'string' },
  count: { type: 'string' },
  election: { type: 'boolean' },
  key: { type: 'string' },
} as const;

export const inspect: Command = {
  name: 'inspect',
  help: INSPECT_HELP,
  parse(argv) {
    const { values, positionals } = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
    if (values.help === true) return { help: true, connection: values };
    if (positionals.length !== 1) throw new UsageError(`inspect takes one lock path, got ${positionals.length === 0 ? 'none' : positionals.join(' ')}`, 'inspect');
    const given = validatePath(positionals[0]!, 'path');
    const path = values.key === undefined ? given : lockKeyPath(given, values.key);
    const read: ReadLockOptions = {};
    if (values['max-leases'] !== undefined) read.maxLeases = positiveInteger('--max-leases', values['max-leases'], 'inspect');
    if (values.count !== undefined) read.countPath = validatePath(values.count, '--count');
    if (values.election === true) read.election = true;
    const json = values.json === true;
    const watch = values.watch === true;
    return {
      connection: values,
      run: (session: ZkSession, io: Io) => (watch ? watchInspect(session, path, read, json, io) : inspectOnce(session, path, read, json, io)),
    };
  },
};

async function inspectOnce(session: ZkSession, path: string, read: ReadLockOptions, json: boolean, io: Io): Promise<void> {
  const snapshot = await readLockSnapshot(session, path, read);
  io.stdout.write(`${json ? printableJson(snapshot) : inspectText(snapshot)}\n`);
}

async function watchInspect(session: ZkSession, path: string, read: ReadLockOptions, json: boolean, io: Io): Promise<void> {
  const tty = !json && io.stdout.isTTY === true;
  let shown: string | undefined;
  let last: LockSnapshot | undefined;
  const draw = (snapshot: LockSnapshot, staleSince?: string) => {
    if (json) io.stdout.write(`${printableJson(snapshot)}\n`);
    else if (tty) {
      const heading = staleSince === undefined ? snapshot.takenAt : `STALE: not connected to ZooKeeper since ${staleSince}; as read at ${snapshot.takenAt}`;
      io.stdout.write(`\x1b[2J\x1b[H${heading}\n${inspectText(snapshot)}\n`);
    } else io.stdout.write(`--- ${snapshot.takenAt}\n${inspectText(snapshot)}\n\n`);
  };
  const show = (snapshot: LockSnapshot) => {
    last = snapshot;
    // A change that changes nothing shown (a write to a node's data that leaves its owner as it
    // was) is not drawn again.
    const content = JSON.stringify({ ...snapshot, takenAt: undefined, contenders: snapshot.contenders.map((c) => ({ ...c, ageMs: undefined })) });
    if (content === shown) return;
    shown = content;
    draw(snapshot);
  };
  // What is shown is true only while the session is: say when it stops being, and end with the
  // session (its watches went with it; the holders shown may have too).
  const sessionEnded = new AbortController();
  const onState = (state: string) => {
    if (state === 'suspended') {
      const since = new Date().toISOString();
      io.stderr.write(`zk-recipes: the connection to ZooKeeper was lost at ${since}: the view is stale until it is back\n`);
      if (tty && last !== undefined) draw(last, since);
    } else if (state === 'reconnected') {
      shown = undefined; // drawn again, current, once read again
      io.stderr.write('zk-recipes: reconnected: reading the lock again\n');
    } else if (state === 'lost') {
      sessionEnded.abort();
    }
  };
  session.on('state', onState);
  try {
    await watchLock(session, path, read, AbortSignal.any([io.signal, sessionEnded.signal]), show, (message) => io.stderr.write(`zk-recipes: ${printable(message, PRINT_LIMITS.message)}\n`));
  } finally {
    session.off('state', onState);
  }
  if (sessionEnded.signal.aborted && !io.signal.aborted) {
    throw new SessionLostError('inspect --watch: the ZooKeeper session was lost, and every watch with it: the view above is no longer current');
  }
}
