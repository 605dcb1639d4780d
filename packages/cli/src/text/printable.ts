/*
 * What the CLI read from ZooKeeper (node names, paths, owner data) is written by anyone who can
 * write there. Printed as it is, a newline forges a row, an escape sequence drives the terminal, a
 * bidi override reorders what follows, a zero-width character makes two names look alike, and a
 * huge value floods the screen. Every such string goes through `printable()` before it is printed
 * (docs/observability.md, "Hostile data").
 */

/**
 * Characters never printed as themselves: controls (C0, DEL, C1), format characters (bidi
 * controls, zero-width characters, soft hyphen, BOM, tags), line and paragraph separators, lone
 * surrogates, the rest of what Unicode says renders invisibly (variation selectors, Hangul
 * fillers), and what looks like the space that separates columns without being U+0020 (the other
 * spaces, the blank braille pattern U+2800). The backslash too: escaped, it tells an escape from
 * text that merely looks like one.
 */
const HIDDEN = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}\p{Default_Ignorable_Code_Point}\u2800\\]|(?! )\p{Zs}/u;

/** Marks where a string was cut. */
export const ELLIPSIS = '…';

/** How `printable` treats spaces. */
export interface PrintableOptions {
  /**
   * A table cell: a space at its start or end, or next to another space, is escaped too, so two
   * spaces in a row always separate columns and a cell keeps its edges.
   */
  cell?: boolean;
}

/**
 * `text` as it may be printed: every hidden character escaped as JavaScript writes it (`\n`, `\r`,
 * `\t`, `\\`, `\x1b`, `\u202e`, `\u{e0041}`), then cut to at most `max` UTF-16 units, the cut
 * shown by a final `…`. Stops reading at the cut: a megabyte costs what the first `max` units do.
 */
export function printable(text: string, max = Infinity, options: PrintableOptions = {}): string {
  const cell = options.cell === true;
  if (text.length <= max && !HIDDEN.test(text) && !(cell && /^ | $| {2}/.test(text))) return text;
  let out = '';
  for (let i = 0; i < text.length; ) {
    const point = text.codePointAt(i)!;
    const units = point > 0xffff ? 2 : 1;
    const char = text.slice(i, i + units);
    let piece = char;
    if (HIDDEN.test(char)) piece = escapeOf(point);
    else if (cell && point === 0x20 && (i === 0 || text[i - 1] === ' ' || i + 1 === text.length || text[i + 1] === ' ')) piece = '\\x20';
    i += units;
    // Room for this piece, and for the ellipsis too when more follows.
    if (out.length + piece.length > (i < text.length ? max - ELLIPSIS.length : max)) return out + ELLIPSIS;
    out += piece;
  }
  return out;
}

/**
 * `text` cut to at most `max` UTF-16 units, the last one `…` when it was cut (never half a
 * surrogate pair). Nothing is escaped: for values kept as data (`--json`), where JSON escapes.
 */
export function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max - ELLIPSIS.length;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return text.slice(0, end) + ELLIPSIS;
}

function escapeOf(point: number): string {
  switch (point) {
    case 0x5c:
      return '\\\\';
    case 0x0a:
      return '\\n';
    case 0x0d:
      return '\\r';
    case 0x09:
      return '\\t';
  }
  if (point <= 0xff) return `\\x${hex(point, 2)}`;
  if (point <= 0xffff) return `\\u${hex(point, 4)}`;
  return `\\u{${point.toString(16)}}`;
}

function hex(n: number, digits: number): string {
  return n.toString(16).padStart(digits, '0');
}

/** JSON escapes U+0000-U+001F; these it leaves as they are, and a terminal acts on or hides them. */
const JSON_HIDDEN = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}]/gu;

/**
 * `JSON.stringify(value)` with every character a terminal acts on or hides written as a `\u`
 * escape: the same JSON to any parser, safe to print. (They can only stand inside strings: JSON's
 * own syntax is printable ASCII.)
 */
export function printableJson(value: unknown): string {
  return JSON.stringify(value).replace(JSON_HIDDEN, (char) => {
    let escaped = '';
    for (let k = 0; k < char.length; k++) escaped += `\\u${hex(char.charCodeAt(k), 4)}`;
    return escaped;
  });
}
