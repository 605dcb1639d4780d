/**
 * DIGEST-MD5 (RFC 2831) as a SASL client, authentication only (qop `auth`: no integrity or
 * confidentiality layer, which ZooKeeper does not use either). Pure functions: the challenge read,
 * the response computed, the server's `rspauth` checked. The exchange on the wire is
 * `saslHandshake.ts`; see docs/security.md.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { parseDirectives, quoted } from './directives.js';

/** What a server's digest-challenge offers (RFC 2831, section 2.1.1). */
export interface DigestChallenge {
  /** Realms offered, in order (possibly none). */
  realms: string[];
  nonce: string;
  /** Quality-of-protection options offered (default `auth`). */
  qop: string[];
  /** Whether the server accepts UTF-8 (`charset=utf-8`); else ISO 8859-1. */
  utf8: boolean;
}

/** Everything the digest-response depends on. */
export interface DigestResponseInput {
  username: string;
  password: string;
  /** The realm chosen among the challenge's (RFC 2831: the empty string in A1 when none was offered). */
  realm: string | undefined;
  nonce: string;
  cnonce: string;
  /** The nonce count: 1 for the first response to a nonce. */
  nc: number;
  /** `serv-type/host`, e.g. `zookeeper/zk-sasl-md5`. */
  digestUri: string;
  utf8: boolean;
}

/** A digest-response and the `rspauth` value a server that knows the password answers with. */
export interface DigestResponse {
  token: Buffer;
  /** 32 lower-case hex digits. */
  rspauth: string;
}

/** Reads a digest-challenge; throws (a SyntaxError naming the rule) when it breaks RFC 2831 or offers no `auth`. */
export function parseDigestChallenge(token: Uint8Array): DigestChallenge {
  const d = parseDirectives(Buffer.from(token).toString('latin1'));
  const once = (name: string, required: boolean): string | undefined => {
    const values = d.get(name);
    if (values === undefined) {
      if (required) throw new SyntaxError(`DIGEST-MD5: the challenge has no '${name}'`);
      return undefined;
    }
    if (values.length > 1) throw new SyntaxError(`DIGEST-MD5: the challenge has '${name}' more than once`);
    return values[0];
  };
  const charset = once('charset', false);
  if (charset !== undefined && charset.toLowerCase() !== 'utf-8') throw new SyntaxError(`DIGEST-MD5: unknown charset '${charset}'`);
  const utf8 = charset !== undefined;
  const algorithm = once('algorithm', true)!;
  if (algorithm.toLowerCase() !== 'md5-sess') throw new SyntaxError(`DIGEST-MD5: algorithm must be md5-sess, not '${algorithm}'`);
  const nonce = once('nonce', true)!;
  const qop = (once('qop', false) ?? 'auth')
    .split(',')
    .map((q) => q.trim())
    .filter((q) => q !== '');
  if (!qop.includes('auth')) throw new SyntaxError(`DIGEST-MD5: the server offers no plain authentication (qop ${qop.join(',')})`);
  once('stale', false);
  once('maxbuf', false);
  // A realm in UTF-8 was read byte for byte: decode it now that the charset is known.
  const realms = (d.get('realm') ?? []).map((r) => (utf8 ? Buffer.from(r, 'latin1').toString('utf8') : r));
  return { realms, nonce, qop, utf8 };
}

/**
 * The digest-response (RFC 2831, section 2.1.2) for qop `auth`, its directives in the order of
 * the RFC's examples, and the `rspauth` to expect back (section 2.1.3).
 */
export function digestResponse(input: DigestResponseInput): DigestResponse {
  const nc = input.nc.toString(16).padStart(8, '0');
  if (!Number.isInteger(input.nc) || input.nc < 1 || nc.length !== 8) throw new RangeError(`DIGEST-MD5: nonce count ${input.nc} does not fit 8 hex digits`);
  // Byte strings (one char per byte) from here on: the nonces go back exactly as the server sent
  // them, and only the user name and realm are UTF-8 when the server offered it.
  const bytes = (s: string): string => (input.utf8 ? Buffer.from(s, 'utf8').toString('latin1') : s);
  // A1 = H(username:realm:passwd) ":" nonce ":" cnonce (md5-sess: the hash itself, 16 bytes).
  const secret = md5(Buffer.concat([credential(input.username, input.utf8), colon, credential(input.realm ?? '', input.utf8), colon, credential(input.password, input.utf8)]));
  const a1 = Buffer.concat([secret, Buffer.from(`:${input.nonce}:${input.cnonce}`, 'latin1')]);
  // KD(HEX(H(A1)), nonce:nc:cnonce:qop:HEX(H(A2))), in hex.
  const kd = (a2: string): string => md5Hex(Buffer.from(`${md5Hex(a1)}:${input.nonce}:${nc}:${input.cnonce}:auth:${md5Hex(Buffer.from(a2, 'latin1'))}`, 'latin1'));
  const response = kd(`AUTHENTICATE:${input.digestUri}`);
  const rspauth = kd(`:${input.digestUri}`);
  const parts = [
    ...(input.utf8 ? ['charset=utf-8'] : []),
    `username=${quoted(bytes(input.username))}`,
    ...(input.realm === undefined ? [] : [`realm=${quoted(bytes(input.realm))}`]),
    `nonce=${quoted(input.nonce)}`,
    `nc=${nc}`,
    `cnonce=${quoted(input.cnonce)}`,
    `digest-uri=${quoted(input.digestUri)}`,
    `response=${response}`,
    'qop=auth',
  ];
  return { token: Buffer.from(parts.join(','), 'latin1'), rspauth };
}

/**
 * Whether the server's final token is `rspauth=<expected>`: proof that the server knows the
 * password too (a server that does not would accept anyone).
 */
export function rspauthMatches(token: Uint8Array, expected: string): boolean {
  let values: Map<string, string[]>;
  try {
    values = parseDirectives(Buffer.from(token).toString('latin1'));
  } catch {
    return false;
  }
  const got = values.get('rspauth');
  if (got === undefined || got.length !== 1) return false;
  const a = Buffer.from(got[0]!.toLowerCase(), 'latin1');
  const b = Buffer.from(expected, 'latin1');
  return a.length === b.length && timingSafeEqual(a, b);
}

/** A fresh client nonce: 16 random bytes, base64 (no character that needs quoting). */
export function newCnonce(random: (n: number) => Buffer): string {
  return random(16).toString('base64');
}

const colon = Buffer.from(':', 'latin1');

/**
 * RFC 2831, 2.1.2.1: with `charset=utf-8`, a value whose characters all fit ISO 8859-1 is still
 * hashed in ISO 8859-1; only a value that does not fit is hashed in UTF-8.
 */
function credential(value: string, utf8: boolean): Buffer {
  let latin1 = true;
  for (const ch of value) if (ch.codePointAt(0)! > 0xff) latin1 = false;
  if (latin1) return Buffer.from(value, 'latin1');
  if (!utf8) throw new RangeError('DIGEST-MD5: a user name, realm or password outside ISO 8859-1 needs a server that offers charset=utf-8');
  return Buffer.from(value, 'utf8');
}

function md5(data: Buffer): Buffer {
  return createHash('md5').update(data).digest();
}

function md5Hex(data: Buffer): string {
  return createHash('md5').update(data).digest('hex');
}
