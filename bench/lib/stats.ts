/** Small statistics for the benchmarks: percentiles of samples, medians of repetitions, ratios. */

/** The p-quantile (0..1) of `samples` by the nearest-rank method (as the Java side computes it). */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.ceil(p * sorted.length) - 1;
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank))]!;
}

/** Median of repetition results (lower middle for an even count, so it is a measured value). */
export function median(values: readonly number[]): number {
  return percentile(values, 0.5);
}

/** Nanoseconds (number or bigint) to milliseconds. */
export function nsToMs(ns: number | bigint): number {
  return Number(ns) / 1e6;
}

/** `1.23 ms` style. */
export function fmtMs(ms: number, digits = 2): string {
  return Number.isFinite(ms) ? `${ms.toFixed(digits)} ms` : 'n/a';
}

/** `0.87x`. */
export function fmtRatio(ratio: number): string {
  return Number.isFinite(ratio) ? `${ratio.toFixed(2)}x` : 'n/a';
}

/** Bytes as MiB with one decimal. */
export function fmtMiB(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}
