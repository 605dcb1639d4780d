import { describe, expect, it } from 'vitest';
import { firstCodeBlock } from '../src/firstCodeBlock.js';

describe('firstCodeBlock', () => {
  const readme = [
    '# Title',
    '```sh',
    'npm install x',
    '```',
    '```json',
    '{}',
    '```',
    '```js title="first"',
    "import x from 'x';",
    '',
    'await x();',
    '```',
    '```js',
    'second();',
    '```',
  ].join('\n');

  it('returns the body of the first block of the language, whatever follows the language name', () => {
    expect(firstCodeBlock(readme, 'js')).toBe("import x from 'x';\n\nawait x();\n");
  });

  it('does not take a language for another one that starts with the same letters', () => {
    expect(firstCodeBlock(readme, 'jso')).toBeUndefined();
    expect(firstCodeBlock(readme, 'json')).toBe('{}\n');
  });

  it('is undefined when there is no such block, or it is never closed', () => {
    expect(firstCodeBlock(readme, 'ts')).toBeUndefined();
    expect(firstCodeBlock('```js\nopen();\n', 'js')).toBeUndefined();
  });

  it('reads Windows line endings', () => {
    expect(firstCodeBlock('```js\r\na();\r\n```\r\n', 'js')).toBe('a();\n');
  });
});
