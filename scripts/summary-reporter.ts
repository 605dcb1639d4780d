import type { Reporter, TestModule } from 'vitest/node';

/** Test files named at the end as the slowest: where a long run's time went. */
const SLOWEST = 5;

/**
 * Prints plain closing lines after vitest's own report, so that CI logs state the totals in a form
 * any log reader understands: `Tests: N passed, N failed, N skipped in 7 min 12 s`, then the
 * slowest test files with their durations.
 */
export default class SummaryReporter implements Reporter {
  private started = performance.now();

  onTestRunStart(): void {
    this.started = performance.now();
  }

  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') passed++;
        else if (state === 'failed') failed++;
        else skipped++;
      }
      if (module.state() === 'failed' && [...module.children.allTests()].length === 0) failed++;
    }
    const slowest = [...testModules]
      .map((module) => ({ file: module.relativeModuleId, ms: module.diagnostic().duration }))
      .sort((a, b) => b.ms - a.ms)
      .slice(0, SLOWEST)
      .map(({ file, ms }) => `  ${duration(ms).padStart(10)}  ${file}`);
    process.stdout.write(`\nTests: ${passed} passed, ${failed} failed, ${skipped} skipped in ${duration(performance.now() - this.started)}\n`);
    if (testModules.length > 1) process.stdout.write(`Slowest test files:\n${slowest.join('\n')}\n`);
  }
}

function duration(ms: number): string {
  const s = Math.round(ms / 1000);
  return s < 60 ? `${s} s` : `${Math.floor(s / 60)} min ${s % 60} s`;
}
