import { parseArgs } from 'node:util';
import type { ZkSession } from '@zk-recipes/core';
import { validatePath } from '@zk-recipes/core/recipe-kit';
import { findLocks } from '../lock/findLocks.js';
import { CONNECTION_HELP, CONNECTION_OPTIONS } from '../options/connectionOptions.js';
import { UsageError } from '../options/UsageError.js';
import { lsText, summaryOf, type LockListing } from '../render/lsText.js';
import { printableJson } from '../text/printable.js';
import type { Command } from './Command.js';
import type { Io } from './Io.js';

export const LS_HELP = `Usage: zk-recipes ls <root> --connect <host:port,...> [--json]

The locks under <root> (searched recursively, <root> included) that have contenders: path, recipe,
how many hold and wait, and the age of the oldest holder. A lock whose directory is empty is not
listed: nothing tells it from any other empty node.

Options:
  --json               one JSON object (docs/observability.md documents it)

${CONNECTION_HELP}

Exit codes: 0 done, 1 ZooKeeper failed or nothing is at <root>, 2 usage error.`;

const OPTIONS = { ...CONNECTION_OPTIONS, json: { type: 'boolean' } } as const;

export const ls: Command = {
  name: 'ls',
  help: LS_HELP,
  parse(argv) {
    const { values, positionals } = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
    if (values.help === true) return { help: true, connection: values };
    if (positionals.length !== 1) throw new UsageError(`ls takes one root path, got ${positionals.length === 0 ? 'none' : positionals.join(' ')}`, 'ls');
    const root = validatePath(positionals[0]!, 'root');
    return {
      connection: values,
      run: async (session: ZkSession, io: Io) => {
        const locks = await findLocks(session, root);
        const takenAtMs = Date.now(); // once every lock is read: no age comes out negative
        const listing: LockListing = { format: 1, root, takenAt: new Date(takenAtMs).toISOString(), locks: locks.map((lock) => summaryOf(lock, takenAtMs)) };
        io.stdout.write(`${values.json === true ? printableJson(listing) : lsText(listing)}\n`);
      },
    };
  },
};
