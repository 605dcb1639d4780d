/**
 * What the demo prints: plain lines (colour only on a terminal), act headings, check results, and
 * a timeline with one lane per process.
 */

const colour = process.stdout.isTTY === true && process.env.NO_COLOR === undefined;
const paint = (code: number) => (text: string) => (colour ? `\x1b[${code}m${text}\x1b[0m` : text);
export const bold = paint(1);
export const dim = paint(2);
export const green = paint(32);
export const red = paint(31);

export function say(text = ''): void {
  process.stdout.write(`${text}\n`);
}

/** An act's title, and in one line what it shows and what to look for. */
export function heading(number: string, title: string, lookFor: string): void {
  say();
  say(bold(`── ${number}  ${title}`));
  say(`   ${dim('look for:')} ${lookFor}`);
}

/** A note under the act: indented, dimmed when it is commentary. */
export function note(text: string): void {
  say(`   ${text}`);
}

/** The checks of one act: each printed as it is made, failures kept for the verdict. */
export class Checks {
  readonly failures: string[] = [];
  check(ok: boolean, passed: string, failed: string): boolean {
    if (ok) say(`   ${green('✓')} ${passed}`);
    else {
      say(`   ${red('✗ FAILED:')} ${failed}`);
      this.failures.push(failed);
    }
    return ok;
  }
}

/** Seconds since `t0` (CLOCK_MONOTONIC ns), e.g. ` 1.234s`. */
export function seconds(at: bigint, t0: bigint): string {
  return `${(Number(at - t0) / 1e9).toFixed(3).padStart(6)}s`;
}

/** The time between two CLOCK_MONOTONIC readings: `2.1 ms`, or `2.20 s` from a second on. */
export function duration(from: bigint, to: bigint): string {
  const ms = Number(to - from) / 1e6;
  return ms < 1000 ? `${ms.toFixed(1)} ms` : `${(ms / 1000).toFixed(2)} s`;
}

interface Entry {
  at: bigint;
  lane: string;
  cell: string;
  text: string | undefined;
}

/**
 * A live timeline: one line per event, with a cell per process (`██` holds, `··` waits...).
 * Events come from several pipes, so one process's line may arrive a moment after a later event of
 * another's: entries wait `REORDER_MS` and are printed in the order of their own timestamps.
 */
export class Timeline {
  private static readonly REORDER_MS = 150;
  private readonly cells = new Map<string, string>();
  private pending: Entry[] = [];
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly t0: bigint,
    private readonly lanes: readonly string[],
  ) {
    for (const lane of lanes) this.cells.set(lane, '  ');
    // Unref'd: an act that fails half-way must not keep the demo alive.
    this.timer = setInterval(() => this.flush(false), 50).unref();
  }

  /** Sets `lane`'s cell from `at` on; prints a line when there is `text`. */
  event(at: bigint, lane: string, cell: string, text?: string): void {
    this.pending.push({ at, lane, cell, text });
  }

  /** Prints everything pending (once the act's processes are done). */
  close(): void {
    clearInterval(this.timer);
    this.flush(true);
  }

  private flush(all: boolean): void {
    const horizon = process.hrtime.bigint() - BigInt(Timeline.REORDER_MS * 1e6);
    const due = this.pending.filter((e) => all || e.at <= horizon).sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
    this.pending = this.pending.filter((e) => !due.includes(e));
    for (const entry of due) {
      this.cells.set(entry.lane, entry.cell);
      if (entry.text === undefined) continue;
      const lanes = this.lanes.map((lane) => this.cells.get(lane)).join(' ');
      say(`   ${seconds(entry.at, this.t0)}  ${lanes}  ${entry.text}`);
    }
  }
}
