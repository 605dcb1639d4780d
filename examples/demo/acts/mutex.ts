/**
 * Act 1, InterProcessMutex: four processes take turns; one holds at a time. Fencing tokens, and a
 * look at the lock from a fifth process with `zk-recipes inspect`.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { findOverlaps, handoffGaps } from '@zk-recipes/testing';
import { byStart, sections, startCast, type Act } from '../act.js';
import { track, within } from '../processes.js';
import { Checks, bold, dim, duration, heading, note, Timeline } from '../screen.js';

const names = ['mutex-1', 'mutex-2', 'mutex-3', 'mutex-4'];
const ROUNDS = 3;
const HOLD_MS = 300;

export const mutexAct: Act = async ({ connectString, path }) => {
  heading('1/5', `InterProcessMutex: ${names.length} processes, ${ROUNDS} turns each, ${HOLD_MS} ms per turn`, 'one ██ at a time; the others wait (··); fencing tokens only grow');
  const workers = await startCast(names, 'mutexContender.ts', () => [connectString, path, String(ROUNDS), String(HOLD_MS)]);
  const t0 = process.hrtime.bigint();
  const timeline = new Timeline(t0, names);
  let inspecting: Promise<string> | undefined;
  for (const w of workers) {
    w.onLine((line) => {
      if (line.type === 'waiting') timeline.event(line.at, w.name, '··');
      if (line.type === 'acquired') {
        timeline.event(line.at, w.name, '██', `${w.name} holds the lock (turn ${line.round}, fencing token ${line.token}, node …${String(line.node).slice(-10)})`);
        inspecting ??= inspect(connectString, path);
      }
      if (line.type === 'releasing' || line.type === 'done') timeline.event(line.at, w.name, '  ');
    });
    w.send('go');
  }
  await within(60_000, 'the mutex processes finishing', Promise.all(workers.map((w) => w.finished())));
  timeline.close();
  if (inspecting !== undefined) {
    note(`${bold('$ zk-recipes inspect')} ${path}   ${dim('(run by the demo from another process during the first turn)')}`);
    for (const line of (await inspecting).trimEnd().split('\n')) note(`  ${dim(line)}`);
  }

  const turns = workers.flatMap((w) => sections(w)).sort(byStart);
  const tokens = turns.map((t) => BigInt(t.acquired.token as string));
  const checks = new Checks();
  const closest = handoffGaps(turns).reduce((min, h) => (h.gapNs < min ? h.gapNs : min), BigInt(1e12));
  const overlaps = findOverlaps(turns);
  checks.check(
    turns.length === names.length * ROUNDS && overlaps.length === 0,
    `never two holders: ${turns.length} turns by ${names.length} processes, each began after the one before had ended (closest hand-over ${duration(0n, closest)})`,
    `${turns.length} turns reported (want ${names.length * ROUNDS}); held by two or more at once ${overlaps.length} times: ${overlaps.map((o) => o.intervals.map((i) => i.worker).join(' with ')).join('; ')}`,
  );
  checks.check(
    tokens.every((token, i) => i === 0 || token > tokens[i - 1]!),
    `fencing tokens grow strictly in the order the lock was granted: ${tokens.join(', ')}`,
    `fencing tokens not strictly growing in grant order: ${tokens.join(', ')}`,
  );
  note(dim(`A token is the lock node's czxid: the id of the ZooKeeper transaction that created it. Every write to`));
  note(dim(`the ensemble takes the next id (the other contenders' creates, every release's delete), so tokens grow`));
  note(dim(`strictly but skip numbers. A store that refuses tokens older than the highest it has seen stops a holder`));
  note(dim(`that was paused past its session from writing late: examples/fencing.ts shows that.`));
  const first = tokens[0] ?? 0n;
  if (first >= 1n << 32n) note(dim(`(A zxid's high 32 bits are the epoch of the ensemble's leader: ${first} is epoch ${first >> 32n}, transaction ${first & 0xffffffffn}.)`));
  return { summary: `mutex: ${turns.length} turns by ${names.length} processes, never two at once; tokens strictly growing`, failures: checks.failures };
};

/** `zk-recipes inspect` (the CLI, @zk-recipes/cli) from another process, while the workers contend. */
async function inspect(connectString: string, path: string): Promise<string> {
  const bin = fileURLToPath(new URL('../../../packages/cli/src/bin.ts', import.meta.url));
  const child = track(spawn(process.execPath, ['--conditions=@zk-recipes/source', '--import', 'tsx', bin, 'inspect', path, '--connect', connectString], { stdio: ['ignore', 'pipe', 'pipe'] }));
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  await new Promise((resolve) => child.once('close', resolve));
  return output;
}
