/**
 * Node arguments that run a TypeScript worker script (through tsx). The zk-recipes packages it
 * imports come from their TypeScript sources (the private `@zk-recipes/source` export condition:
 * tests need no build), or, when `ZKR_LIBRARY=dist`, from the compiled `dist/` that users run: the
 * benchmarks set that, so they measure the shipped code (tsx's transform adds work of its own, e.g.
 * a `name` property defined on every named arrow function, ~250 bytes each).
 */
export function nodeScriptArgs(script: string): string[] {
  const conditions = process.env.ZKR_LIBRARY === 'dist' ? [] : ['--conditions=@zk-recipes/source'];
  return [...conditions, '--import', 'tsx', script];
}
