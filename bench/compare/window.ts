/**
 * The Node side of `npm run bench:compare`'s measured window, shared by the zk-recipes worker and
 * the wire-floor worker (CuratorWorker's Windowed.java is the same protocol in Java). It imports
 * nothing but Node: the compare bench copies it, with worker.ts, into the BASE checkout.
 *
 * One process's life, every step driven by the bench over stdin/stdout:
 *   1. connect, print `{"type":"ready"}`, wait for `go`;
 *   2. warm up: run the scenario's own sections, printing `{"type":"warm","n":<sections>}` every
 *      250 ms, while the bench writes `tick` every 250 ms; the bench decides when every process of
 *      the run is warm (its section count and the time since `go`) and writes
 *      `window <start> <end> <stop>`, CLOCK_MONOTONIC nanoseconds, at least a second ahead;
 *   3. from `start` to `end`: the measured window. Sections whose hold starts in it are reported,
 *      the process's CPU is read at both ends; nothing is read or written on stdio;
 *   4. until `stop`: keep running (the others' windows end with contention still on), then
 *      finish the section in hand, print one `result` line, close the session, exit.
 *
 * Why the stdio traffic during the warm-up: stdin and stdout are pipes, and Node runs pipes and the
 * session's TCP socket through the same stream code. A process whose first stdio read or write
 * after a warm-up on the socket alone came at the start of its measured window made V8 recompile
 * that code inside the window (docs/benchmarks.md, "How the bench measures"). Here stdio is in
 * use all through the warm-up, and the window opens on a timer, not on a message: the code is
 * compiled for both kinds of stream before the window and nothing new runs in it.
 */
import { AsyncResource } from 'node:async_hooks';
import { createInterface } from 'node:readline';

/** A time no window reaches (CLOCK_MONOTONIC ns). */
const NEVER = 1n << 62n;
const PROGRESS_MS = 250;
/** The section after which a process records its cold-start time (the old bench's size). */
const COLD_SECTIONS = 100;

/** Fields logged per section: acquire called, held, hold ended, released (ns from "go"), key. */
const FIELDS = 5;

/** Every section of the process, warm-up and window alike (see `record`). */
class SectionLog {
  private data = new Float64Array(FIELDS * 4096);
  length = 0;

  push(acquireNs: number, heldNs: number, holdEndNs: number, releasedNs: number, key: number): void {
    if (this.length + FIELDS > this.data.length) {
      const grown = new Float64Array(this.data.length * 2);
      grown.set(this.data);
      this.data = grown;
    }
    const d = this.data;
    const i = this.length;
    d[i] = acquireNs;
    d[i + 1] = heldNs;
    d[i + 2] = holdEndNs;
    d[i + 3] = releasedNs;
    d[i + 4] = key;
    this.length = i + FIELDS;
  }

  /** The sections held in [from, to), times made relative to `from`; and how many were held before it. */
  window(from: number, to: number): { sections: number[]; before: number } {
    const out: number[] = [];
    let before = 0;
    const d = this.data;
    for (let i = 0; i < this.length; i += FIELDS) {
      const held = d[i + 1]!;
      if (held < from) before++;
      else if (held < to) out.push(d[i]! - from, held - from, d[i + 2]! - from, d[i + 3]! - from, d[i + 4]!);
    }
    return { sections: out, before };
  }
}

export class MeasuredWindow {
  start = NEVER;
  end = NEVER;
  stop = NEVER;
  /** Set at `stop`: loops finish the section in hand and leave. */
  stopped = false;
  private coldNs = -1;
  private readonly goAt: bigint;
  private cpuAtStart: NodeJS.CpuUsage | undefined;
  private cpuUs = -1;
  private readonly log = new SectionLog();
  private readonly progress: NodeJS.Timeout;
  private readonly timers: NodeJS.Timeout[] = [];

  private constructor(private readonly input: ReturnType<typeof createInterface>) {
    this.goAt = process.hrtime.bigint();
    this.progress = setInterval(() => process.stdout.write(`{"type":"warm","n":${this.log.length / FIELDS}}\n`), PROGRESS_MS);
    input.on('line', (text) => this.onLine(text));
    input.on('close', () => {
      // The bench is gone (it closes our stdin only after we are done): do not run on alone.
      if (!this.stopped) process.exit(3);
    });
  }

  /** Prints the ready line and resolves on `go`, with the warm-up begun. */
  static gate(): Promise<MeasuredWindow> {
    return new Promise((resolve, reject) => {
      const input = createInterface({ input: process.stdin });
      const onGo = (text: string): void => {
        if (text.trim() !== 'go') return;
        input.off('line', onGo);
        input.off('close', onClose);
        resolve(new MeasuredWindow(input));
      };
      const onClose = (): void => reject(new Error('stdin closed before "go"'));
      input.on('line', onGo);
      input.on('close', onClose);
      process.stdout.write('{"type":"ready"}\n');
    });
  }

  private onLine(text: string): void {
    const [word, start, end, stop] = text.trim().split(' ');
    if (word !== 'window' || this.start !== NEVER) return; // `tick`: read and dropped, see above
    this.start = BigInt(start!);
    this.end = BigInt(end!);
    this.stop = BigInt(stop!);
    this.at(this.start, () => {
      this.cpuAtStart = process.cpuUsage();
      clearInterval(this.progress);
    });
    this.at(this.end, () => this.readCpu());
    this.at(this.stop, () => (this.stopped = true));
  }

  private at(when: bigint, run: () => void): void {
    if (when >= NEVER) return;
    this.timers.push(setTimeout(run, Math.max(0, Number(when - process.hrtime.bigint()) / 1e6)));
  }

  private readCpu(): void {
    if (this.cpuAtStart === undefined || this.cpuUs >= 0) return;
    const used = process.cpuUsage(this.cpuAtStart);
    this.cpuUs = used.user + used.system;
  }

  /** Whether the window has begun (a drain's warm-up ends there). */
  begun(): boolean {
    return process.hrtime.bigint() >= this.start;
  }

  /**
   * Logs a section (hrtime.bigint() readings). The same code before and in the window: a branch
   * first taken when the window opens would make V8 deoptimise this function there; which
   * sections were in the window is sorted out at the end.
   */
  record(acquireAt: bigint, heldAt: bigint, holdEndAt: bigint, releasedAt: bigint, key: number): void {
    const g = this.goAt;
    this.log.push(Number(acquireAt - g), Number(heldAt - g), Number(holdEndAt - g), Number(releasedAt - g), key);
    if (this.log.length === FIELDS * COLD_SECTIONS) this.coldNs = Number(releasedAt - g);
  }

  /** Prints the result line and lets the process exit (stdin closed, timers cleared). */
  finish(fields: Record<string, unknown>): void {
    this.stopped = true;
    this.readCpu();
    clearInterval(this.progress);
    for (const t of this.timers) clearTimeout(t);
    this.input.close();
    process.stdin.destroy();
    const { sections, before } = this.log.window(Number(this.start - this.goAt), Number(this.end - this.goAt));
    const result = { type: 'result', ...fields, warmSections: before, coldNs: this.coldNs, cpuUs: this.cpuUs, sections };
    process.stdout.write(`${JSON.stringify(result)}\n`);
  }
}

const root = new AsyncResource('bench-compare-section');

/**
 * Runs `fn` in a fresh async context, as each request of a server would be: acquiring in a loop
 * inside one async function would make every acquisition the child of the previous one.
 */
export function inFreshContext<T>(fn: () => Promise<T>): Promise<T> {
  return root.runInAsyncScope(fn);
}

/** Runs `tasks` concurrent loops of `section` until the window's stop, each section in a fresh context. */
export async function loopUntilStopped(w: MeasuredWindow, tasks: number, section: (task: number) => Promise<void>): Promise<void> {
  const loop = async (task: number): Promise<void> => {
    while (!w.stopped) await inFreshContext(() => section(task));
  };
  await Promise.all(Array.from({ length: tasks }, (_, task) => loop(task)));
}
