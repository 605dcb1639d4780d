/**
 * The zk-recipes demo: `npm run demo`. Every recipe, and a leader election, run by separate OS
 * processes (children of this one, each with its own ZooKeeper session); the demo checks what they
 * report and says whether each act held. Against the ensemble in ZK_CONNECT, or a local server it
 * starts and stops. Exits 1 if any act failed.
 *
 * One file per act in examples/demo/acts/, one per worker role in examples/workers/.
 */
import { ZkSession } from '@zk-recipes/core';
import type { Act } from './demo/act.js';
import { leaderAct } from './demo/acts/leader.js';
import { multiLockAct } from './demo/acts/multiLock.js';
import { mutexAct } from './demo/acts/mutex.js';
import { readWriteLockAct } from './demo/acts/readWriteLock.js';
import { semaphoreAct } from './demo/acts/semaphore.js';
import { killAllWorkers } from './demo/processes.js';
import { bold, green, red, say } from './demo/screen.js';
import { demoZooKeeper, type DemoZooKeeper } from './demo/zookeeper.js';

const allActs: [string, Act][] = [
  ['mutex', mutexAct],
  ['read-write-lock', readWriteLockAct],
  ['semaphore', semaphoreAct],
  ['multi-lock', multiLockAct],
  ['leader', leaderAct],
];
// `npm run demo -- leader semaphore` plays only those acts.
const asked = process.argv.slice(2);
const unknown = asked.filter((name) => !allActs.some(([n]) => n === name));
if (unknown.length > 0) {
  say(`No act named ${unknown.join(', ')}; the acts are ${allActs.map(([n]) => n).join(', ')}.`);
  process.exit(2);
}
const acts = asked.length === 0 ? allActs : allActs.filter(([name]) => asked.includes(name));

const started = Date.now();
say(bold('zk-recipes demo'));
say('Five acts: the mutex, the read/write lock, the semaphore, the multi-lock and a leader election, each');
say('played by separate OS processes (children of this one, each with its own ZooKeeper session). The demo');
say('checks what the processes report (never two holders, never more leases than allowed, one leader) and says');
say('so after each act. About 30 s on an idle machine, plus a few seconds to start a local ZooKeeper.');
if (acts.length < allActs.length) say(`Playing only: ${acts.map(([name]) => name).join(', ')}.`);
say();

let zookeeper: DemoZooKeeper | undefined;
let observer: ZkSession | undefined;
let interrupted = false;
// Ctrl-C: stop every process by PID and the server before leaving.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    interrupted = true;
    say(`\n${signal}: stopping ${killAllWorkers()} worker processes and the server.`);
    void (zookeeper?.stop() ?? Promise.resolve()).finally(() => process.exit(130));
  });
}

const verdicts: { name: string; summary: string; failures: string[] }[] = [];
try {
  zookeeper = await demoZooKeeper();
  observer = await ZkSession.connect({ connectString: zookeeper.connectString });
  const root = `/zk-recipes-demo/${Date.now()}`;
  for (const [name, act] of acts) {
    if (interrupted) break;
    try {
      verdicts.push({ name, ...(await act({ connectString: zookeeper.connectString, path: `${root}/${name}`, observer })) });
    } catch (err) {
      if (interrupted) break;
      const stopped = killAllWorkers();
      const message = `${(err as Error).message}${stopped > 0 ? ` (${stopped} processes killed)` : ''}`;
      say(`   ${red('✗ FAILED:')} ${message}`);
      verdicts.push({ name, summary: '', failures: [message] });
    }
  }
} finally {
  await observer?.close();
  await zookeeper?.stop();
}
// Every worker has exited by now unless an act failed half-way (those were killed then).
const leftOver = killAllWorkers();

say();
say(bold('Verdict'));
for (const v of verdicts) say(v.failures.length === 0 ? `   ${green('PASSED')}  ${v.summary}` : `   ${red('FAILED')}  ${v.name}: ${v.failures.join('; ')}`);
const failed = verdicts.filter((v) => v.failures.length > 0).length;
const took = `${((Date.now() - started) / 1000).toFixed(1)} s`;
const processes = leftOver === 0 ? 'no process left running' : `${leftOver} processes were still running and were killed`;
const all = acts.length === 1 ? 'The act' : `All ${acts.length} acts`;
if (failed === 0 && verdicts.length === acts.length) say(green(`${all} passed, checked from what the processes reported. ${took}; ${processes}.`));
else say(red(`${failed} of ${acts.length} acts FAILED (${took}; ${processes}).`));
process.exitCode = failed === 0 ? 0 : 1;
