/** Escaping and bounding what the CLI prints of ZooKeeper's data (pure). */
import { describe, expect, it } from 'vitest';
import { cut, printable, printableJson } from '../src/text/printable.js';
import { table } from '../src/render/table.js';

describe('printable', () => {
  it('escapes controls, bidi and zero-width characters, separators, odd spaces and the backslash, as JavaScript writes them', () => {
    expect(printable('plain text, é, 漢字, 🙂')).toBe('plain text, é, 漢字, 🙂');
    expect(printable('a\nb\rc\td\\e')).toBe('a\\nb\\rc\\td\\\\e');
    expect(printable('\x1b[2J\x07\x00\x7f\u009b')).toBe('\\x1b[2J\\x07\\x00\\x7f\\x9b');
    expect(printable('\u202a\u202e\u2066\u2069\u200b\u200d\u2060\ufeff\u00ad\u061c')).toBe('\\u202a\\u202e\\u2066\\u2069\\u200b\\u200d\\u2060\\ufeff\\xad\\u061c');
    expect(printable('\u2028\u2029\u00a0\u3000\u3164\ufe0f\u2800')).toBe('\\u2028\\u2029\\xa0\\u3000\\u3164\\ufe0f\\u2800');
    expect(printable('\u{e0041}\ud800')).toBe('\\u{e0041}\\ud800');
  });

  it('cuts at max UTF-16 units, the last one an ellipsis; never inside an escape or a surrogate pair', () => {
    expect(printable('abcdef', 5)).toBe('abcd…');
    expect(printable('abcde', 5)).toBe('abcde');
    expect(printable('ab\ncdef', 4)).toBe('ab…');
    expect(printable('ab🙂cd', 4)).toBe('ab…');
    expect(printable('x'.repeat(1_000_000), 10)).toBe(`${'x'.repeat(9)}…`);
  });

  it('in a table cell, a space at an edge or next to another is escaped: two spaces in a row always separate columns', () => {
    expect(printable('a b', Infinity, { cell: true })).toBe('a b');
    expect(printable(' a  b ', Infinity, { cell: true })).toBe('\\x20a\\x20\\x20b\\x20');
    expect(table(['HOST', 'PID'], [['vm   holder', '1']])).toBe([`${'HOST'.padEnd(20)}   PID`, 'vm\\x20\\x20\\x20holder   1'].join('\n'));
  });
});

describe('cut', () => {
  it('keeps what fits, and never splits a surrogate pair', () => {
    expect(cut('abc', 3)).toBe('abc');
    expect(cut('abcd', 3)).toBe('ab…');
    expect(cut('a🙂b', 3)).toBe('a…');
  });
});

describe('printableJson', () => {
  it('the same JSON, with what a terminal acts on or hides written as \\u escapes', () => {
    const value = { s: 'a\u202eb\u009b\u2028\u200b\u{e0041}\x1b\n"\\', n: 1 };
    const text = printableJson(value);
    expect(text).toBe('{"s":"a\\u202eb\\u009b\\u2028\\u200b\\udb40\\udc41\\u001b\\n\\"\\\\","n":1}');
    expect(JSON.parse(text)).toEqual(value);
  });
});
