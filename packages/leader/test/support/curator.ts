/**
 * Curator's side of the interop tests: a JVM running Curator 5.4's `LeaderLatch` or
 * `LeaderSelector` (bench/java `CuratorWorker leader-latch|leader-selector`), its terms as holds
 * for the overlap checker, and commands on its stdin.
 */
import { spawnCuratorWorker, type CuratorLine, type CuratorWorker, type Hold } from '@zk-recipes/testing';

export class JavaParticipant {
  private constructor(
    readonly worker: CuratorWorker,
    readonly id: string,
  ) {}

  /** Starts a participant and resolves once it is in the election (its `ready` line). */
  static async start(recipe: 'latch' | 'selector', connectString: string, path: string, id: string, options: { holdMs?: number; sessionTimeoutMs: number }): Promise<JavaParticipant> {
    const worker = await spawnCuratorWorker(['--session-timeout-ms', String(options.sessionTimeoutMs), recipe === 'latch' ? 'leader-latch' : 'leader-selector', connectString, path, id, String(options.holdMs ?? 0)]);
    await worker.waitForLine((line) => line.type === 'ready');
    return new JavaParticipant(worker, id);
  }

  /** Its process name in the overlap checker's holds (`java-<pid>`). */
  get name(): string {
    return `java-${this.worker.pid}`;
  }

  /** `resign`, `close` or `stop`. */
  tell(command: 'resign' | 'close' | 'stop'): void {
    this.worker.child.stdin!.write(`${command}\n`);
  }

  /** The `leader` line of its next term begun after `count` terms (resolves at once if it began). */
  termBegun(count: number, timeoutMs = 30_000): Promise<CuratorLine> {
    return this.worker.waitForLine((line) => line.type === 'leader' && Number(line['id']) === count, timeoutMs);
  }

  /** Terms begun so far. */
  get termsBegun(): number {
    return this.worker.lines.filter((line) => line.type === 'leader').length;
  }

  /** Every term as a hold; one still open ends at `deathAt` (a killed JVM) or stays open (`end: null`). */
  holds(): Hold[] {
    const ends = new Map(this.worker.lines.filter((l) => l.type === 'section').map((l) => [Number(l['id']), BigInt(String(l['end']))]));
    return this.worker.lines
      .filter((l) => l.type === 'leader')
      .map((l) => ({
        worker: this.name,
        id: Number(l['id']),
        path: String(l['node']),
        session: '',
        granted: BigInt(String(l['t'])),
        end: ends.get(Number(l['id'])) ?? null,
      }));
  }

  /** Tells it to stop and waits for the JVM to exit cleanly. */
  async stop(): Promise<void> {
    if (this.worker.child.exitCode !== null || this.worker.child.signalCode !== null) return;
    this.tell('stop');
    await this.worker.finished(30_000);
  }
}
