import { PRINT_LIMITS } from '../text/limits.js';
import { printable } from '../text/printable.js';

/**
 * An aligned table as `kubectl get` prints it: upper-case headers, columns padded to their widest
 * cell and three spaces apart, no trailing spaces. Every cell is made printable (its hidden
 * characters escaped, no two spaces in a row) and cut to its column's `max` (default
 * `PRINT_LIMITS.cell`): a row can neither be forged nor grow without bound, whatever the cells hold.
 */
export function table(headers: readonly string[], rows: readonly (readonly string[])[], max: readonly number[] = []): string {
  const shown = rows.map((row) => row.map((cell, column) => printable(cell, max[column] ?? PRINT_LIMITS.cell, { cell: true })));
  // A loop, not Math.max(...cells): a lock may have more contenders than a call has arguments.
  const widths = headers.map((header) => header.length);
  for (const row of shown) row.forEach((cell, column) => (widths[column] = Math.max(widths[column] ?? 0, cell.length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) => (column === cells.length - 1 ? cell : cell.padEnd(widths[column]!)))
      .join('   ')
      .trimEnd();
  return [line(headers), ...shown.map(line)].join('\n');
}
