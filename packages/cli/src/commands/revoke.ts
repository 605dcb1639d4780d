import { parseArgs } from 'node:util';
import { isZkError, nameOf, parseOwnerData, requestRevocation, sortedChildren, validatePath, type ZkSession } from '@zk-recipes/core';
import { CliError } from '../lock/CliError.js';
import { dataOrNull, sessionIdOf } from '../lock/nodeReads.js';
import { CONNECTION_HELP, CONNECTION_OPTIONS } from '../options/connectionOptions.js';
import { UsageError } from '../options/UsageError.js';
import type { Command } from './Command.js';
import type { Io } from './Io.js';

export const REVOKE_HELP = `Usage: zk-recipes revoke <node> --connect <host:port,...>

Asks the holder of the lock node <node> (a full path, as \`inspect\` shows it) to release it,
by Curator's revocation protocol: writes __REVOKE__ as the node's data. A holder that listens
(zk-recipes' acquire({ onRevoke }), Curator's makeRevocable) releases; one that does not keeps
the lock; a waiter is told once it holds. Nobody's node is ever deleted.

${CONNECTION_HELP}

Exit codes: 0 request written, 1 ZooKeeper failed, no such node, or not a lock node, 2 usage error.`;

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

async function revokeNode(session: ZkSession, node: string, io: Io): Promise<void> {
  const read = await dataOrNull(session, node, undefined);
  if (read === null) throw new CliError('NO_NODE', `no node at ${node}: nothing to revoke`);
  const sessionId = sessionIdOf(read.stat.ephemeralOwner);
  // The marker replaces the node's data: never write it over a directory's (a semaphore's maxLeases).
  if (sessionId === null || sortedChildren([nameOf(node)]).length === 0) {
    throw new CliError('NOT_A_LOCK_NODE', `${node} is not a lock node (an ephemeral node with a sequence): refusing to write to it`);
  }
  try {
    await requestRevocation(session, node);
  } catch (err) {
    if (isZkError(err, 'NO_NODE')) throw new CliError('NO_NODE', `${node} went before the request was written: nothing to revoke`);
    throw err;
  }
  const owner = parseOwnerData(read.data);
  const whose = owner === undefined ? '' : `, host ${owner.host} pid ${owner.pid}${owner.label === undefined ? '' : ` label ${owner.label}`}`;
  io.stdout.write(
    `revocation requested: wrote __REVOKE__ to ${node} (session ${sessionId}${whose}).\n` +
      `The holder releases it if it listens for revocation; nothing was deleted.\n`,
  );
}
