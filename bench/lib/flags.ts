/** Command-line flags of the benchmarks. */

/** The number after `name` in `argv` (`--rounds 3`), or `fallback` when the flag is absent. */
export function numberFlag(argv: readonly string[], name: string, fallback: number): number {
  const i = argv.indexOf(name);
  return i >= 0 ? Number(argv[i + 1]) : fallback;
}
