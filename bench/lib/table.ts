/** Markdown tables and target verdicts for the benchmark reports. */

/** One target: a measured ratio against a limit, in the direction given. */
export interface TargetCheck {
  /** What is compared, e.g. `uncontended acquire p50 vs Curator`. */
  name: string;
  /** Measured ratio (ours / reference), e.g. 0.74. */
  ratio: number;
  /** The limit, e.g. 0.8. */
  limit: number;
  /** `max`: ratio must be at most the limit; `min`: at least. */
  kind: 'max' | 'min';
}

/** Whether a target is met. */
export function passes(check: TargetCheck): boolean {
  return check.kind === 'max' ? check.ratio <= check.limit : check.ratio >= check.limit;
}

/** A markdown table from a header row and data rows. Columns after the first are right-aligned. */
export function markdownTable(header: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  const align = header.map((_, i) => (i === 0 ? '---' : '---:'));
  return [header, align, ...rows].map((r) => `| ${r.join(' | ')} |`).join('\n');
}

/** The targets as a markdown table with PASS/MISS. */
export function targetTable(checks: readonly TargetCheck[]): string {
  return markdownTable(
    ['target', 'measured', 'limit', 'verdict'],
    checks.map((c) => [c.name, `${c.ratio.toFixed(2)}x`, `${c.kind === 'max' ? '≤' : '≥'} ${c.limit}x`, passes(c) ? 'PASS' : 'MISS']),
  );
}
