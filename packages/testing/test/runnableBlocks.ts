/**
 * The code blocks of the docs that tests run. A runnable block is a fenced `ts` or `js` block whose
 * info string says `runnable` (```ts runnable). `sigterm-on=<text>` in the info string marks a
 * service: it runs until its output contains `<text>`, then gets SIGTERM, and must exit with 0 on
 * its own (```ts runnable sigterm-on=leads).
 */
export interface Runnable {
  page: string;
  /** The line of the opening fence, from 1. */
  line: number;
  language: 'ts' | 'js';
  code: string;
  /** With `sigterm-on=<text>`: SIGTERM once the output contains this. */
  sigtermOn: string | undefined;
}

export function runnableBlocks(page: string, markdown: string): Runnable[] {
  const blocks: Runnable[] = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(ts|js)\s+(.*)$/.exec(lines[i]!);
    const info = open?.[2]!.split(/\s+/) ?? [];
    if (open === null || !info.includes('runnable')) continue;
    const end = lines.findIndex((line, j) => j > i && /^```\s*$/.test(line));
    if (end === -1) throw new Error(`${page}:${i + 1}: a runnable block that never closes`);
    const sigtermOn = info.find((word) => word.startsWith('sigterm-on='))?.slice('sigterm-on='.length);
    if (sigtermOn === '') throw new Error(`${page}:${i + 1}: sigterm-on= names no text`);
    blocks.push({ page, line: i + 1, language: open[1] as 'ts' | 'js', code: lines.slice(i + 1, end).join('\n') + '\n', sigtermOn });
    i = end;
  }
  return blocks;
}
