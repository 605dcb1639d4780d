/**
 * A demo process moving money between accounts: each turn takes an InterProcessMultiLock over the
 * accounts' locks, listed in this process's own order, and holds them all for `holdMs`. Reports
 * `waiting`, `acquired` (the accounts in the order asked and in the order taken, one fencing token
 * per account) and `releasing`.
 * Usage: multiLockWorker.ts <connectString> <accountsPath> <account,account...> <rounds> <holdMs>
 */
import { InterProcessMultiLock } from '@zk-recipes/multi-lock';
import { connectAndWait, finish, report, sleep } from './demoWorker.js';

const [connectString, accountsPath, accountList, rounds, holdMs] = process.argv.slice(2) as [string, string, string, string, string];
const asked = accountList.split(',');
const session = await connectAndWait(connectString);
const transfer = InterProcessMultiLock.fromPaths(session, asked.map((account) => `${accountsPath}/${account}`));
for (let round = 1; round <= Number(rounds); round++) {
  report('waiting', { round });
  await transfer.withLock(async (held) => {
    const taken = held.lockPaths.map((path) => path.split('/').pop());
    report('acquired', { round, asked, taken, tokens: held.fencingTokens });
    await sleep(Number(holdMs));
    report('releasing', { round });
  });
}
await finish(session);
