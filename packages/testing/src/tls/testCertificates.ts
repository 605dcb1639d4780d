/**
 * A throwaway certificate authority for TLS test servers, made once per process with the
 * `openssl` command: a server certificate for 127.0.0.1 and localhost, client certificates
 * `CN=alice` and `CN=bob`, and a second CA the servers do not trust with a client certificate of
 * its own. P-256 keys: made in milliseconds. openssl works in a scratch directory removed as soon
 * as the PEM texts are read (a test worker may end without an `exit` event); each server gets the
 * files it reads in its own data directory (`serverTls.ts`).
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A certificate and its private key, PEM. */
export interface PemPair {
  /** The certificate, PEM. */
  cert: string;
  /** Its private key, PEM (unencrypted). */
  key: string;
}

/** Everything {@link testCertificates} made, PEM. */
export interface TestCertificates {
  /** The trusted CA's certificate: the servers' trust store, and the clients' `tls.ca`. */
  ca: string;
  /** The servers' certificate (SAN IP:127.0.0.1, DNS:localhost) and key. */
  server: PemPair;
  /** Client certificates signed by `ca`. */
  clients: { alice: PemPair; bob: PemPair };
  /** Another CA (`ca`, not trusted by the servers) and a client certificate `CN=mallory` it signed. */
  untrusted: PemPair & { ca: string };
}

let made: TestCertificates | undefined;

/** The process's test certificates, made on first use. Needs `openssl` on PATH. */
export function testCertificates(): TestCertificates {
  made ??= makeCertificates();
  return made;
}

function makeCertificates(): TestCertificates {
  const dir = mkdtempSync(join(tmpdir(), 'zkr-tls-'));
  try {
    return makeIn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function makeIn(dir: string): TestCertificates {
  const openssl = (...args: string[]): void => {
    try {
      execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (err) {
      const stderr = (err as { stderr?: Buffer }).stderr?.toString() ?? '';
      throw new Error(`openssl ${args[0]} failed (is openssl installed? sudo apt-get install -y openssl): ${stderr || String(err)}`, { cause: err });
    }
  };
  const newKey = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  const makeCa = (name: string, subject: string): void =>
    openssl('req', '-x509', ...newKey, '-keyout', `${name}.key`, '-out', `${name}.pem`, '-days', '7', '-subj', subject,
      '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign');
  // A leaf: key, request, certificate signed by `ca`. The loopback names let a server's
  // certificate pass Node's host check, and a client's pass a server that checks client hosts.
  const makeLeaf = (name: string, subject: string, ca: string, usage: string): void => {
    writeFileSync(join(dir, `${name}.ext`), `subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=${usage}\nbasicConstraints=critical,CA:FALSE\n`);
    openssl('req', '-new', ...newKey, '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', subject);
    openssl('x509', '-req', '-in', `${name}.csr`, '-CA', `${ca}.pem`, '-CAkey', `${ca}.key`, '-set_serial', `0x${serial()}`,
      '-days', '7', '-out', `${name}.pem`, '-extfile', `${name}.ext`);
  };
  makeCa('ca', '/CN=zk-recipes test CA');
  makeCa('untrusted-ca', '/CN=zk-recipes untrusted CA');
  makeLeaf('server', '/CN=localhost', 'ca', 'serverAuth,clientAuth');
  makeLeaf('alice', '/CN=alice', 'ca', 'clientAuth');
  makeLeaf('bob', '/CN=bob', 'ca', 'clientAuth');
  makeLeaf('mallory', '/CN=mallory', 'untrusted-ca', 'clientAuth');
  const read = (file: string): string => readFileSync(join(dir, file), 'utf8');
  const pair = (name: string): PemPair => ({ cert: read(`${name}.pem`), key: read(`${name}.key`) });
  return {
    ca: read('ca.pem'),
    server: pair('server'),
    clients: { alice: pair('alice'), bob: pair('bob') },
    untrusted: { ca: read('untrusted-ca.pem'), ...pair('mallory') },
  };
}

/** A random positive 63-bit serial number, hex. */
function serial(): string {
  const bytes = randomBytes(8);
  bytes[0] = bytes[0]! & 0x7f;
  return bytes.toString('hex');
}
