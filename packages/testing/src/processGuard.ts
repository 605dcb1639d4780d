/**
 * Kills child processes (ZooKeeper JVMs, workers) when the process that started them dies, even by
 * SIGKILL or a crash: a leaked JVM keeps its port and 256 MB for the rest of the machine's life.
 *
 * Two layers: a synchronous SIGKILL of every live child on `exit` (normal exit, process.exit), and
 * per child a tiny `sh` guardian blocked reading a pipe from us. The kernel closes that pipe when we
 * die however we die; the guardian's `read` then returns and it SIGKILLs the child.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import type { Socket } from 'node:net';

interface Guarded {
  guardian: ChildProcess | null;
  dir: string | undefined;
}

const live = new Map<number, Guarded>();
const tempDirs = new Set<string>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const [pid, { guardian, dir }] of live) {
      tryKill(pid, 'SIGKILL');
      if (guardian?.pid !== undefined) tryKill(guardian.pid, 'SIGKILL');
      if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
    }
    for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
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
 * Registers `pid` to be SIGKILLed (and `dir`, its temporary directory, removed) if this process
 * dies first. Call the returned function once the child has exited (or is being stopped on
 * purpose) to disarm the guard.
 */
export function guardChild(pid: number, dir?: string): () => void {
  installExitHook();
  let guardian: ChildProcess | null = null;
  try {
    // pid and dir travel as positional parameters: no shell quoting of paths.
    // It ignores the signals a terminal or a job control sends to our whole process group, so it
    // outlives us long enough to clean up; only EOF (we died) or our SIGKILL (disarm) ends it.
    const script = 'trap "" INT TERM HUP QUIT; read _ignored; kill -9 "$1" 2>/dev/null; [ -n "$2" ] && rm -rf -- "$2"';
    guardian = spawn('sh', ['-c', script, 'zkr-guard', String(pid), dir ?? ''], {
      stdio: ['pipe', 'ignore', 'ignore'],
    });
    guardian.on('error', () => undefined);
    guardian.unref();
    // The pipe must not keep our event loop alive either.
    (guardian.stdin as Socket | null)?.unref();
  } catch {
    guardian = null; // No sh: the exit hook still covers ordinary exits.
  }
  live.set(pid, { guardian, dir });
  return () => {
    live.delete(pid);
    // SIGKILL, not EOF: EOF would make the guardian kill the pid.
    if (guardian?.pid !== undefined && guardian.exitCode === null) tryKill(guardian.pid, 'SIGKILL');
  };
}

/**
 * Removes `dir` when this process exits normally, even if its server was killed and never stopped.
 * Call the returned function once the owner has removed it.
 */
export function removeOnExit(dir: string): () => void {
  installExitHook();
  tempDirs.add(dir);
  return () => {
    tempDirs.delete(dir);
  };
}
