/**
 * The body of the first fenced code block of `language` in a Markdown text (a line starting with
 * three backticks and the language name, up to the closing fence), without its fences; `undefined`
 * when there is none or it is never closed. Lets tests run a README's example exactly as written.
 */
export function firstCodeBlock(markdown: string, language: string): string | undefined {
  const lines = markdown.split(/\r?\n/);
  const start = lines.findIndex((line) => isOpeningFence(line, language));
  if (start === -1) return undefined;
  const end = lines.findIndex((line, index) => index > start && /^```\s*$/.test(line));
  if (end === -1) return undefined;
  return lines.slice(start + 1, end).join('\n') + '\n';
}

/** "```js" or "```js title=x" opens a `js` block; "```json" or "```jsx" does not. */
function isOpeningFence(line: string, language: string): boolean {
  if (!line.startsWith('```')) return false;
  const info = line.slice(3).trim();
  return info.split(/\s+/)[0] === language;
}
