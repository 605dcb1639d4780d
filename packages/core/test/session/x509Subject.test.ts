/** The x509 identity the server gives a TLS session, read from the client certificate (docs/security.md, "ACLs"). */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { clientCertificateSubject, mayBeSubject } from '../../src/session/x509Subject.js';

function certificate(subject: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'x509-subject-'));
  try {
    const [key, cert] = [join(dir, 'k.pem'), join(dir, 'c.pem')];
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', subject], { stdio: 'ignore' });
    return readFileSync(cert, 'utf8');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('clientCertificateSubject', () => {
  it("is the subject in Java's RFC 2253 order (most specific first), matched by ids in any order", () => {
    const subject = clientCertificateSubject(certificate('/C=US/O=Acme, Inc/CN=alice'))!;
    expect(subject.text).toBe('CN=alice,O=Acme\\, Inc,C=US');
    expect(subject.comparable).toBe(true);
    expect(mayBeSubject('CN=alice,O=Acme\\, Inc,C=US', subject)).toBe(true);
    expect(mayBeSubject('C=US, O=Acme\\, Inc, CN=alice', subject)).toBe(true);
    expect(mayBeSubject('CN=bob,O=Acme\\, Inc,C=US', subject)).toBe(false);
    expect(mayBeSubject('CN=alice', subject)).toBe(false);
  });
  it('takes the first certificate of a chain, and gives up on attributes Java prints as OIDs', () => {
    const alice = certificate('/CN=alice');
    expect(clientCertificateSubject([alice, certificate('/CN=ca')])?.text).toBe('CN=alice');
    const withEmail = clientCertificateSubject(certificate('/CN=alice/emailAddress=a@example.com'))!;
    expect(withEmail.comparable).toBe(false);
    expect(mayBeSubject('CN=bob', withEmail)).toBe(true);
  });
});
