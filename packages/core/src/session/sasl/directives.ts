/*
 * The directive lists of DIGEST-MD5 (RFC 2831, section 7.1): `name=token` or `name="quoted string"`,
 * separated by commas, with optional white space and empty elements. Parsing and quoting only;
 * what the directives mean is `digestMd5.ts`'s business.
 */

/**
 * Parses a directive list into its values by lower-cased name, each name with every value it was
 * given (in order: a challenge may offer several realms). The text is the token read byte for byte
 * (latin1), so that no byte is lost before the caller knows the charset. Throws on a malformed list.
 */
export function parseDirectives(text: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  let i = 0;
  const n = text.length;
  const skipSpace = (): void => {
    while (i < n && isSpace(text.charCodeAt(i))) i++;
  };
  for (;;) {
    skipSpace();
    while (i < n && text[i] === ',') {
      i++;
      skipSpace();
    }
    if (i >= n) return out;
    const nameStart = i;
    while (i < n && isTokenChar(text.charCodeAt(i))) i++;
    const name = text.slice(nameStart, i).toLowerCase();
    if (name === '') throw new SyntaxError(`DIGEST-MD5: a directive name was expected at offset ${nameStart}`);
    skipSpace();
    if (text[i] !== '=') throw new SyntaxError(`DIGEST-MD5: '=' was expected after '${name}'`);
    i++;
    skipSpace();
    let value = '';
    if (text[i] === '"') {
      i++;
      for (;;) {
        if (i >= n) throw new SyntaxError(`DIGEST-MD5: the quoted value of '${name}' is not closed`);
        const c = text[i++]!;
        if (c === '"') break;
        if (c === '\\') {
          if (i >= n) throw new SyntaxError(`DIGEST-MD5: the quoted value of '${name}' is not closed`);
          value += text[i++]!;
        } else {
          value += c;
        }
      }
    } else {
      const valueStart = i;
      while (i < n && isTokenChar(text.charCodeAt(i))) i++;
      value = text.slice(valueStart, i);
      if (value === '') throw new SyntaxError(`DIGEST-MD5: '${name}' has no value`);
    }
    const values = out.get(name);
    if (values === undefined) out.set(name, [value]);
    else values.push(value);
    skipSpace();
    if (i < n && text[i] !== ',') throw new SyntaxError(`DIGEST-MD5: ',' was expected after the value of '${name}'`);
  }
}

/** `"value"` with `"` and `\` escaped (RFC 2831's quoted-string). */
export function quoted(value: string): string {
  return `"${value.replace(/["\\]/g, (c) => `\\${c}`)}"`;
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0d || c === 0x0a;
}

/** RFC 2616's token characters: visible ASCII except separators. */
function isTokenChar(c: number): boolean {
  if (c <= 0x20 || c >= 0x7f) return false;
  return !'()<>@,;:\\"/[]?={}'.includes(String.fromCharCode(c));
}
