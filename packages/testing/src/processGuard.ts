/**
 * Kills child processes (ZooKeeper JVMs, workers) when the process that started them dies, even by
 * SIGKILL or a crash: a leaked JVM keeps its port and 256 MB for the rest of the machine's life.
 *
 * Two layers: a synchronous SIGKILL of every live child on `exit` (normal exit, process.exit), and
 * per child a tiny `sh` guardian blocked reading a pipe from us. The kernel closes that pipe when we
 * die however we die; the guardian's `read` then returns and it SIGKILLs the child.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { Socket } from 'node:net';

const live = new Map<number, ChildProcess | null>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const [pid, guardian] of live) {
      tryKill(pid, 'SIGKILL');
      if (guardian?.pid !== undefined) tryKill(guardian.pid, 'SIGKILL');
    }
  });
}

function tryKill(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // Already gone.
  }
}

/**
 * Registers `pid` to be SIGKILLed if this process dies first. Call the returned function once the
 * child has exited (or is being stopped on purpose) to disarm the guard.
 */
export function guardChild(pid: number): () => void {
  installExitHook();
  let guardian: ChildProcess | null = null;
  try {
    guardian = spawn('sh', ['-c', `read _ignored; kill -9 ${pid} 2>/dev/null`], {
      stdio: ['pipe', 'ignore', 'ignore'],
    });
    guardian.on('error', () => undefined);
    guardian.unref();
    // The pipe must not keep our event loop alive either.
    (guardian.stdin as Socket | null)?.unref();
  } catch {
    guardian = null; // No sh: the exit hook still covers ordinary exits.
  }
  live.set(pid, guardian);
  return () => {
    live.delete(pid);
    // SIGKILL, not EOF: EOF would make the guardian kill the pid.
    if (guardian?.pid !== undefined && guardian.exitCode === null) tryKill(guardian.pid, 'SIGKILL');
  };
}
