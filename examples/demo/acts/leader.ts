/**
 * Act 5, leader election (LeaderLatch): four processes, one leader. The demo kills the leader with
 * SIGKILL: the next is elected only once ZooKeeper has expired the dead process's session. Then a
 * leader shuts down cleanly, and the hand-over takes milliseconds.
 */
import { findOverlaps, untilChildCount, type Interval } from '@zk-recipes/testing';
import { byStart, startCast, type Act } from '../act.js';
import { within, type WorkerLine, type WorkerProcess } from '../processes.js';
import { Checks, dim, duration, heading, note, Timeline } from '../screen.js';

const names = ['leader-1', 'leader-2', 'leader-3', 'leader-4'];
/** Short, so that a dead leader is replaced within seconds (the server may grant more: it says). */
const SESSION_TIMEOUT_MS = 2000;

export const leaderAct: Act = async ({ connectString, path, observer }) => {
  heading('5/5', `Leader election (LeaderLatch): ${names.length} processes, one leader; the demo kills the leader with SIGKILL`, 'one ██ at a time; after the kill no leader until ZooKeeper expires the dead session, then the next in line');
  const workers = await startCast(names, 'leaderWorker.ts', () => [connectString, path, String(SESSION_TIMEOUT_MS)]);
  const timeoutMs = Number(workers[0]!.lines.find((l) => l.type === 'ready')!.timeoutMs);
  note(`session timeout ${timeoutMs} ms (asked for ${SESSION_TIMEOUT_MS}; the server grants between its minimum and maximum)`);
  const t0 = process.hrtime.bigint();
  const timeline = new Timeline(t0, names);
  const killed = new Set<string>();
  for (const w of workers) {
    w.onLine((line) => {
      if (line.type === 'leader') timeline.event(line.at, w.name, '██', `${w.name} is elected leader (fencing token ${line.token})`);
      if (line.type === 'notLeader' || line.type === 'resigning') timeline.event(line.at, w.name, '··');
      if (line.type === 'exit') timeline.event(line.at, w.name, killed.has(w.name) ? 'XX' : '  ');
    });
    w.send('go');
    timeline.event(t0, w.name, '··');
  }
  const nextLeader = (among: WorkerProcess[], what: string) =>
    within(30_000 + 2 * timeoutMs, what, Promise.any(among.map((w) => w.next((l) => l.type === 'leader', what).then((line) => ({ w, line })))));
  const first = await nextLeader(workers, 'a first leader');
  await within(30_000, 'all four in the election', untilChildCount(observer, path, names.length, 30_000));
  timeline.event(process.hrtime.bigint(), first.w.name, '██', `all ${names.length} in the election: the others wait in line, each watching the node ahead of its own`);

  // A crash: the leader cannot close its session, so its node stays until the server expires it.
  killed.add(first.w.name);
  const killedAt = process.hrtime.bigint();
  timeline.event(killedAt, first.w.name, 'XX', `the demo kills ${first.w.name} (pid ${first.w.pid}) with SIGKILL`);
  const ticker = setInterval(() => timeline.event(process.hrtime.bigint(), first.w.name, 'XX', dim(`no leader yet: the server still holds ${first.w.name}'s session and node`)), 1000);
  const deadAt = await first.w.kill();
  const alive = workers.filter((w) => w !== first.w);
  const second = await nextLeader(alive, 'a new leader after the kill').finally(() => clearInterval(ticker));
  const takeover = second.line.at - killedAt;

  // A clean shutdown: closing the latch deletes its node, and the next in line is told at once.
  second.w.send('stop');
  const resigned = await second.w.next((l) => l.type === 'resigning', 'resigning');
  const rest = alive.filter((w) => w !== second.w);
  const third = await nextLeader(rest, 'a leader after the clean shutdown');
  for (const w of rest) w.send('stop');
  await within(30_000, 'the election processes stopping', Promise.all(alive.map((w) => w.finished())));
  timeline.close();
  note(`${second.w.name} took over ${duration(0n, takeover)} after the kill. Why so long: a killed process cannot close its session, and`);
  note(`ZooKeeper expires a session only once it has heard nothing from it for the session timeout (${timeoutMs} ms here), at`);
  note(`its next tick; then it deletes the dead leader's node, and the next in line, watching that node, is elected.`);
  note(`${third.w.name} took over ${duration(resigned.at, third.line.at)} after ${second.w.name} closed its latch: a clean close deletes the node at once.`);

  const terms = workers.flatMap((w) => termsOf(w, killed.has(w.name) ? deadAt : undefined)).sort(byStart);
  const tokens = terms.map((t) => t.token);
  const checks = new Checks();
  checks.check(
    terms.length >= 3 && findOverlaps(terms).length === 0,
    `one leader at a time: ${terms.length} terms (${terms.map((t) => t.worker).join(', ')}), none overlapping; the killed leader's counted until the demo saw it die`,
    `${terms.length} terms (want at least 3), overlapping: ${findOverlaps(terms).map((o) => o.intervals.map((i) => i.worker).join(' with ')).join('; ') || 'none'}`,
  );
  checks.check(
    second.line.at > deadAt && tokens.every((token, i) => i === 0 || token > tokens[i - 1]!),
    `a new leader only after the old one was dead, and every leader's fencing token larger than the last: ${tokens.join(', ')}`,
    `new leader before the old one died, or tokens not growing: ${tokens.join(', ')}`,
  );
  return { summary: `leader election: ${terms.length} terms, one leader at a time; SIGKILLed leader replaced after ${duration(0n, takeover)} (session timeout ${timeoutMs} ms)`, failures: checks.failures };
};

/** A process's terms: from each `leader` line to the first `notLeader` or `resigning` after it, or to its death. */
function termsOf(worker: WorkerProcess, diedAt: bigint | undefined): (Interval & { token: bigint })[] {
  const terms: (Interval & { token: bigint })[] = [];
  let open: WorkerLine | undefined;
  for (const line of worker.lines) {
    if (line.type === 'leader') open = line;
    if ((line.type === 'notLeader' || line.type === 'resigning') && open !== undefined) {
      terms.push({ worker: worker.name, start: open.at, end: line.at, token: BigInt(open.token as string) });
      open = undefined;
    }
  }
  if (open !== undefined) terms.push({ worker: worker.name, start: open.at, end: diedAt ?? process.hrtime.bigint(), token: BigInt(open.token as string) });
  return terms;
}
