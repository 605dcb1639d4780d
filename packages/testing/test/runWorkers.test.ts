import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { maxConcurrency, sectionIntervals } from '../src/criticalSections.js';
import { nodeScriptArgs } from '../src/nodeScriptArgs.js';
import { runWorkers, WorkersFailedError } from '../src/runWorkers.js';

const SCRIPT = fileURLToPath(new URL('./fixtures/worker.ts', import.meta.url));

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

// Each test spawns Node+tsx processes: seconds each on a loaded 2-core machine.
describe('runWorkers', { timeout: 60_000 }, () => {
  it('runs TypeScript workers and collects their JSON lines, with per-worker args and env', async () => {
    const results = await runWorkers<{ name: string; extra: string; args: string[] }>({
      script: SCRIPT,
      count: 3,
      args: (i) => ['env', `a${i}`],
      env: { EXTRA: 'x' },
    });
    expect(results.map((r) => r.lines)).toEqual([0, 1, 2].map((i) => [{ name: `worker-${i}`, extra: 'x', args: [`a${i}`] }]));
    expect(results.every((r) => r.exitCode === 0)).toBe(true);
  });

  it('ZKR_REPORT=at-end: a worker keeps its lines until its done line; ready still goes out at once', async () => {
    const child = spawn(process.execPath, [...nodeScriptArgs(SCRIPT), 'at-end'], {
      env: { ...process.env, ZKR_REPORT: 'at-end' },
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    const closed = new Promise((resolve) => child.once('close', resolve));
    const received: Array<{ type: string }> = [];
    let changed: () => void = () => undefined;
    createInterface({ input: child.stdout! }).on('line', (text) => {
      received.push(JSON.parse(text) as { type: string });
      changed();
    });
    const untilReceived = async (n: number) => {
      while (received.length < n) await new Promise<void>((resolve) => (changed = resolve));
    };
    await untilReceived(1);
    expect(received.map((l) => l.type)).toEqual(['ready']);
    child.stdin!.write('go\n');
    // The section line is written now, but held: the worker waits for our answer, which it only
    // gets once we have checked that nothing arrived.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(received.map((l) => l.type)).toEqual(['ready']);
    child.stdin!.end('ok\n');
    await untilReceived(3);
    await closed;
    expect(received).toEqual([{ type: 'ready' }, { type: 'section', i: 0 }, { type: 'done', answer: 'ok' }]);
  });

  it('barrier: releases all workers at once, after every one is ready; onRelease runs once, in between', async () => {
    const seen: unknown[] = [];
    const releases: bigint[] = [];
    const results = await runWorkers<{ type: string; at?: string; worker?: string; start?: string; end?: string }>({
      script: SCRIPT,
      count: 3,
      args: ['sections'],
      barrier: true,
      onLine: (line) => seen.push(line),
      onRelease: () => releases.push(process.hrtime.bigint()),
    });
    const at = (type: string): bigint[] => results.map((r) => BigInt(r.lines.find((l) => l.type === type)!.at!));
    const sections = sectionIntervals(results.flatMap((r) => r.lines));
    expect(sections).toHaveLength(9);
    expect(maxConcurrency(sections)).toBeGreaterThanOrEqual(1);
    // No worker was released before the last one arrived at the start line.
    const lastArrival = at('arrived').reduce((a, b) => (a > b ? a : b));
    for (const released of at('released')) expect(released).toBeGreaterThan(lastArrival);
    // onRelease ran once, after the last arrival and before any worker passed its start line.
    expect(releases).toHaveLength(1);
    expect(releases[0]!).toBeGreaterThan(lastArrival);
    for (const released of at('released')) expect(released).toBeGreaterThan(releases[0]!);
    expect(results[0]!.otherOutput).toEqual(['not json']);
    expect(seen).toHaveLength(15);
  });

  it('a failing worker fails the run with its stderr, and the others are killed', async () => {
    const error = await runWorkers({ script: SCRIPT, count: 3, args: ['fail'], timeoutMs: 30_000 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WorkersFailedError);
    const failed = error as WorkersFailedError;
    expect(failed.message).toContain('boom: worker 1 failed on purpose');
    expect(failed.results[1]!.exitCode).toBe(3);
    expect(failed.results[0]!.signal).toBe('SIGKILL');
    // A line printed just before exiting is still collected.
    expect(failed.results[1]!.lines).toEqual([{ type: 'before-failure', index: '1' }]);
    for (const r of failed.results) expect(isAlive(r.pid)).toBe(false);
  });

  it('kills every worker on timeout', async () => {
    const error = await runWorkers({ script: SCRIPT, count: 2, args: ['hang'], timeoutMs: 1_500 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WorkersFailedError);
    expect((error as Error).message).toMatch(/timed out after 1500 ms/);
    for (const r of (error as WorkersFailedError).results) {
      expect(r.signal).toBe('SIGKILL');
      expect(isAlive(r.pid)).toBe(false);
    }
  });
});
