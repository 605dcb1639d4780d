/**
 * Where the processes of a run may execute (`taskset`):
 *   shared  servers, contenders and the bench on every core the bench was started with;
 *   pinned  the servers on the first of those cores, everything else on the others: steadier, and
 *           nearer a deployment where the ensemble has machines of its own.
 * Pinning sets the affinity of every thread of the server JVMs, and of this process: contenders
 * are spawned by it afterwards and inherit its affinity (as do the threads they start).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

export type Shape = 'shared' | 'pinned';
export const SHAPES: readonly Shape[] = ['shared', 'pinned'];

/** The cores this process may run on, e.g. [0, 1]. */
function allowedCores(pid: number): number[] {
  const list = /^Cpus_allowed_list:\s*(\S+)$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? '0';
  return list.split(',').flatMap((part) => {
    const [a, b] = part.split('-').map(Number) as [number, number | undefined];
    return Array.from({ length: (b ?? a) - a + 1 }, (_, i) => a + i);
  });
}

/** The cores a process's main thread may run on, as `taskset` prints them. */
export function affinityOf(pid: number): string {
  return /^Cpus_allowed_list:\s*(\S+)$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? '?';
}

function setAffinity(pid: number, cores: readonly number[]): void {
  execFileSync('taskset', ['-a', '-p', '-c', cores.join(','), String(pid)], { stdio: 'ignore' });
}

/** Applies shapes to the servers `serverPids` and this process; `all` is read once, at creation. */
export class Placement {
  private readonly all = allowedCores(process.pid);
  private current: Shape | undefined;

  /** Whether `pinned` is possible here: two cores or more, and taskset. */
  canPin(): string | undefined {
    if (this.all.length < 2) return `one core only (${this.all.join(',')})`;
    try {
      execFileSync('taskset', ['-V'], { stdio: 'ignore' });
    } catch {
      return 'no taskset (util-linux)';
    }
    return undefined;
  }

  /** What `shape` means on this machine, for the report. */
  describe(shape: Shape): string {
    return shape === 'shared' ? `everything on cores ${this.all.join(',')}` : `servers on core ${this.all[0]}, contenders on ${this.all.slice(1).join(',')}`;
  }

  apply(shape: Shape, serverPids: readonly number[]): void {
    if (shape === this.current) return;
    const servers = shape === 'pinned' ? this.all.slice(0, 1) : this.all;
    const clients = shape === 'pinned' ? this.all.slice(1) : this.all;
    if (shape === 'pinned' || this.current === 'pinned') {
      for (const pid of serverPids) setAffinity(pid, servers);
      setAffinity(process.pid, clients);
    }
    this.current = shape;
  }
}
