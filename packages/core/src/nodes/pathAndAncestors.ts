/** `/a/b/c` → `['/a', '/a/b', '/a/b/c']`: the creates that make a path, parents first. */
export function pathAndAncestors(path: string): string[] {
  const prefixes: string[] = [];
  let i = 0;
  while ((i = path.indexOf('/', i + 1)) !== -1) prefixes.push(path.slice(0, i));
  prefixes.push(path);
  return prefixes;
}
