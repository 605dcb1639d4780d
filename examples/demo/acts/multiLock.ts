/**
 * Act 4, InterProcessMultiLock: four processes move money between accounts, each locking two
 * accounts at once, some listing them in the opposite order. Members are taken in path order, so
 * crossed lists cannot deadlock; transfers over different accounts run side by side.
 */
import { findOverlaps } from '@zk-recipes/testing';
import { sections, startCast, type Act } from '../act.js';
import { within } from '../processes.js';
import { Checks, heading, note, Timeline } from '../screen.js';

const transfers: [name: string, accounts: string[]][] = [
  ['transfer-1', ['a', 'b']],
  ['transfer-2', ['b', 'a']],
  ['transfer-3', ['c', 'd']],
  ['transfer-4', ['d', 'a']],
];
const names = transfers.map(([name]) => name);
const ROUNDS = 3;
const HOLD_MS = 250;

export const multiLockAct: Act = async ({ connectString, path }) => {
  heading('4/5', `InterProcessMultiLock: ${names.length} processes, each locking two of the accounts a, b, c, d at once, ${ROUNDS} times`, 'each account in one lane at a time; transfer-2 lists b before a, yet nobody deadlocks');
  const accountsOf = (name: string) => transfers.find(([n]) => n === name)![1];
  const workers = await startCast(names, 'multiLockWorker.ts', (name) => [connectString, path, accountsOf(name).join(','), String(ROUNDS), String(HOLD_MS)], (name) => ` (${accountsOf(name).join(', ')})`);
  const t0 = process.hrtime.bigint();
  const timeline = new Timeline(t0, names);
  for (const w of workers) {
    w.onLine((line) => {
      const taken = line.taken as string[];
      if (line.type === 'waiting') timeline.event(line.at, w.name, '··');
      if (line.type === 'acquired') {
        const order = (line.asked as string[]).join() === taken.join() ? '' : ` (asked for ${(line.asked as string[]).join(', ')}, took them in path order)`;
        timeline.event(line.at, w.name, taken.join(''), `${w.name} holds ${taken.join(' and ')}${order}, tokens ${(line.tokens as string[]).join(', ')}`);
      }
      if (line.type === 'releasing') timeline.event(line.at, w.name, '  ');
    });
    w.send('go');
  }
  await within(60_000, 'the transfers finishing (a deadlock would stop them here)', Promise.all(workers.map((w) => w.finished())));
  timeline.close();

  const held = workers.flatMap((w) => sections(w));
  const perAccount = ['a', 'b', 'c', 'd'].map((account) => ({ account, holds: held.filter((s) => (s.acquired.taken as string[]).includes(account)) }));
  const besides = held.flatMap((x) => held.filter((y) => x.worker < y.worker && x.start < y.end && y.start < x.end).map((y) => [x, y] as const));
  const checks = new Checks();
  checks.check(
    perAccount.every(({ holds }) => findOverlaps(holds).length === 0),
    `each account had one holder at a time (${perAccount.map(({ account, holds }) => `${account}: ${holds.length} holds`).join(', ')})`,
    `accounts held by two transfers at once: ${perAccount.filter(({ holds }) => findOverlaps(holds).length > 0).map(({ account }) => account).join(', ')}`,
  );
  checks.check(
    held.length === names.length * ROUNDS,
    `no deadlock: all ${held.length} transfers went through, though transfer-2 and transfer-4 list their accounts against path order`,
    `${held.length} transfers went through, want ${names.length * ROUNDS}`,
  );
  const accounts = (s: (typeof held)[number]) => (s.acquired.taken as string[]).join(' and ');
  const [x, y] = besides[0] ?? [];
  note(x && y ? `Transfers over different accounts ran side by side ${besides.length} times, e.g. ${x.worker} (${accounts(x)}) with ${y.worker} (${accounts(y)}).` : 'No two transfers happened to run side by side this time.');
  return { summary: `multi-lock: ${held.length} transfers over two accounts each, one holder per account, no deadlock`, failures: checks.failures };
};
