import { parseArgs } from 'node:util';
import { isZkError, parseOwnerData, REVOCATION_MARKER, type Stat, type ZkSession } from '@zk-recipes/core';
import { nameOf, sortedChildren, validatePath } from '@zk-recipes/core/recipe-kit';
import { CliError } from '../lock/CliError.js';
import { dataOrNull, sessionIdOf } from '../lock/nodeReads.js';
import { isLockKind } from '../lock/recipeOfKinds.js';
import { CONNECTION_HELP, CONNECTION_OPTIONS } from '../options/connectionOptions.js';
import { UsageError } from '../options/UsageError.js';
import { PRINT_LIMITS } from '../text/limits.js';
import { printable } from '../text/printable.js';
import type { Command } from './Command.js';
import type { Io } from './Io.js';

export const REVOKE_HELP = `Usage: zk-recipes revoke <node> --connect <host:port,...>

Asks the holder of the lock node <node> (a full path, as \`inspect\` shows it) to release it,
by Curator's revocation protocol: writes __REVOKE__ as the node's data. A holder that listens
(zk-recipes' acquire({ onRevoke }), Curator's makeRevocable) releases; one that does not keeps
the lock; a waiter is told once it holds. Nobody's node is ever deleted.

It writes only to a lock node: an ephemeral node whose name is a lock recipe's (zk-recipes' or
Curator's: lock-, read-/write-, __READ__/__WRIT__, lease-, lease-w<n>-) with a sequence. Anything
else (a directory, an election member, another tool's node) is refused: NOT_A_LOCK_NODE, exit 2.

${CONNECTION_HELP}

Exit codes: 0 request written, 1 ZooKeeper failed or no such node, 2 usage error or not a lock node.`;

/** Writes tried, each after checking the node again, when its data changes between check and write. */
const WRITE_ATTEMPTS = 5;

export const revoke: Command = {
  name: 'revoke',
  help: REVOKE_HELP,
  parse(argv) {
    const { values, positionals } = parseArgs({ args: argv, options: CONNECTION_OPTIONS, allowPositionals: true, strict: true });
    if (values.help === true) return { help: true, connection: values };
    if (positionals.length !== 1) throw new UsageError(`revoke takes one lock node path, got ${positionals.length === 0 ? 'none' : positionals.join(' ')}`, 'revoke');
    const node = validatePath(positionals[0]!, 'node');
    return { connection: values, run: (session: ZkSession, io: Io) => revokeNode(session, node, io) };
  },
};

/**
 * Writes the revocation request (what core's `requestRevocation` writes, with a version) to `node`
 * once it is checked to be a lock node. ZooKeeper cannot make the check and the write one step:
 * the write carries the data version read with the check, so a node changed since (rewritten, or
 * deleted and made again and written) is refused by the server and checked again.
 */
async function revokeNode(session: ZkSession, node: string, io: Io): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const read = await dataOrNull(session, node, undefined);
    if (read === null) throw new CliError('NO_NODE', `no node at ${node}: nothing to revoke`);
    const sessionId = assertLockNode(node, read.stat);
    try {
      await session.setData(node, Buffer.from(REVOCATION_MARKER), read.stat.version);
    } catch (err) {
      if (isZkError(err, 'NO_NODE')) throw new CliError('NO_NODE', `${node} went before the request was written: nothing to revoke`);
      if (isZkError(err, 'BAD_VERSION') && attempt < WRITE_ATTEMPTS) continue;
      throw err;
    }
    const owner = parseOwnerData(read.data);
    const whose =
      owner === undefined
        ? ''
        : `, host ${printable(owner.host, PRINT_LIMITS.host)} pid ${owner.pid}${owner.label === undefined ? '' : ` label ${printable(owner.label, PRINT_LIMITS.label)}`}`;
    io.stdout.write(
      `revocation requested: wrote ${REVOCATION_MARKER} to ${printable(node, PRINT_LIMITS.path)} (session ${sessionId}${whose}).\n` +
        `The holder releases it if it listens for revocation; nothing was deleted.\n`,
    );
    return;
  }
}

/**
 * The node's session, when `node` is a contender of a lock recipe: an ephemeral node (a session's,
 * as every recipe's node is) whose name is a lock kind with a sequence. The marker replaces the
 * node's data: never written over a directory's (a semaphore's maxLeases) or another recipe's
 * (an election member's payload).
 * @throws CliError `NOT_A_LOCK_NODE` otherwise
 */
function assertLockNode(node: string, stat: Stat): string {
  const sessionId = sessionIdOf(stat.ephemeralOwner);
  const [entry] = sortedChildren([nameOf(node)]);
  if (sessionId !== null && entry !== undefined && isLockKind(entry.kind)) return sessionId;
  const why = sessionId === null ? 'not an ephemeral node' : entry === undefined ? 'no sequence in its name' : `its kind ${JSON.stringify(entry.kind)} is no lock recipe's`;
  throw new CliError('NOT_A_LOCK_NODE', `${node} is not a lock node (${why}): refusing to write to it; a lock node is an ephemeral node named as a lock recipe names it (lock-, read-, write-, __READ__, __WRIT__, lease-, lease-w<n>-) with a sequence`);
}
