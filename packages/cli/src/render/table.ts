/**
 * An aligned table as `kubectl get` prints it: upper-case headers, columns padded to their widest
 * cell and three spaces apart, no trailing spaces.
 */
export function table(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = headers.map((header, column) => Math.max(header.length, ...rows.map((row) => (row[column] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) => (column === cells.length - 1 ? cell : cell.padEnd(widths[column]!)))
      .join('   ')
      .trimEnd();
  return [line(headers), ...rows.map(line)].join('\n');
}
