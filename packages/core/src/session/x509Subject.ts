/**
 * The `x509` identity a server gives a TLS session: its client certificate's subject, as
 * ZooKeeper's `X509AuthenticationProvider` writes it (Java's RFC 2253 form: `CN=alice,O=Acme`,
 * most specific first). Used to judge the session's own ACL up front (docs/security.md, "ACLs").
 */
import { X509Certificate } from 'node:crypto';
import type { Pem } from './tlsOptions.js';

/** One attribute of a subject: `CN` and `alice`. */
interface Attribute {
  readonly type: string;
  readonly value: string;
}

/**
 * A subject as a set of attributes. Order, spacing and the case of attribute names are ignored when
 * comparing: Node prints the subject in the certificate's order, Java in reverse, and both escape.
 */
export interface X509Subject {
  /** RFC 2253, as the server is expected to show it: for messages. */
  readonly text: string;
  readonly attributes: readonly Attribute[];
  /**
   * False when the subject has attributes Java prints by their OID (`1.2.840.113549.1.9.1=#16…`
   * for an e-mail address) or several values in one RDN: then no comparison is trusted.
   */
  readonly comparable: boolean;
}

/** The attribute names Java's RFC 2253 form keeps as names; any other is printed as an OID. */
const JAVA_KEYWORDS = new Set(['CN', 'C', 'L', 'ST', 'O', 'OU', 'STREET', 'DC', 'UID']);

/** Splits at `separator` where it is not escaped by a backslash. */
function splitUnescaped(text: string, separator: string): string[] {
  const parts: string[] = [];
  let current = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '\\' && i + 1 < text.length) {
      current += c + text[i + 1]!;
      i++;
    } else if (c === separator) {
      parts.push(current);
      current = '';
    } else {
      current += c;
    }
  }
  parts.push(current);
  return parts;
}

const unescape = (value: string): string => value.replace(/\\(.)/g, '$1').trim();

function attributeOf(rdn: string): Attribute | undefined {
  const eq = rdn.indexOf('=');
  if (eq <= 0) return undefined;
  return { type: rdn.slice(0, eq).trim().toUpperCase(), value: unescape(rdn.slice(eq + 1)) };
}

function subjectOf(rdns: readonly string[], text: string): X509Subject {
  const attributes = rdns.map(attributeOf);
  const parsed = attributes.filter((a): a is Attribute => a !== undefined);
  const comparable =
    parsed.length === attributes.length && parsed.length > 0 && rdns.every((rdn) => splitUnescaped(rdn, '+').length === 1) && parsed.every((a) => JAVA_KEYWORDS.has(a.type));
  return { text, attributes: parsed, comparable };
}

/** An RFC 2253 subject as written in an ACL entry (`CN=alice,O=Acme`). */
export function parseX509Subject(text: string): X509Subject {
  return subjectOf(splitUnescaped(text, ','), text);
}

/**
 * The subject of the first certificate of `cert` (the client's own; the rest is its chain), or
 * `undefined` when none can be read: then nothing is judged against it.
 */
export function clientCertificateSubject(cert: Pem | Pem[]): X509Subject | undefined {
  const first = Array.isArray(cert) ? cert[0] : cert;
  if (first === undefined) return undefined;
  let nodeSubject: string;
  try {
    nodeSubject = new X509Certificate(first).subject;
  } catch {
    return undefined; // the TLS handshake reports a bad certificate better than we could here
  }
  // Node: one RDN a line, the certificate's order; Java: comma-separated, reversed.
  const rdns = nodeSubject.split('\n').reverse();
  return subjectOf(rdns, rdns.join(','));
}

/**
 * Whether an `x509` ACL id may name `subject`: equal attribute sets, or a subject we cannot compare
 * (never refuse what may work).
 */
export function mayBeSubject(id: string, subject: X509Subject): boolean {
  if (!subject.comparable) return true;
  const other = parseX509Subject(id);
  if (other.attributes.length !== subject.attributes.length) return false;
  const key = (a: Attribute): string => `${a.type}=${a.value}`;
  const ours = subject.attributes.map(key).sort();
  return other.attributes
    .map(key)
    .sort()
    .every((k, i) => k === ours[i]);
}
