/**
 * DIGEST-MD5 (RFC 2831) against known vectors: the RFC's two examples (section 4), and vectors
 * computed independently (Python's hashlib, by the RFC's formulas) for ZooKeeper's digest-uri and
 * for the charset rules.
 */
import { describe, expect, it } from 'vitest';
import { parseDirectives, quoted } from '../../src/session/sasl/directives.js';
import { digestResponse, newCnonce, parseDigestChallenge, rspauthMatches } from '../../src/session/sasl/digestMd5.js';

const latin1 = (s: string) => Buffer.from(s, 'latin1');

describe('RFC 2831 examples', () => {
  it('IMAP: the challenge read, the response token byte for byte, rspauth', () => {
    const challenge = parseDigestChallenge(latin1('realm="elwood.innosoft.com",nonce="OA6MG9tEQGm2hh",qop="auth",algorithm=md5-sess,charset=utf-8'));
    expect(challenge).toEqual({ realms: ['elwood.innosoft.com'], nonce: 'OA6MG9tEQGm2hh', qop: ['auth'], utf8: true });
    const { token, rspauth } = digestResponse({
      username: 'chris',
      password: 'secret',
      realm: challenge.realms[0],
      nonce: challenge.nonce,
      cnonce: 'OA6MHXh6VqTrRk',
      nc: 1,
      digestUri: 'imap/elwood.innosoft.com',
      utf8: challenge.utf8,
    });
    expect(token.toString('latin1')).toBe(
      'charset=utf-8,username="chris",realm="elwood.innosoft.com",nonce="OA6MG9tEQGm2hh",nc=00000001,' +
        'cnonce="OA6MHXh6VqTrRk",digest-uri="imap/elwood.innosoft.com",response=d388dad90d4bbd760a152321f2143af7,qop=auth',
    );
    expect(rspauth).toBe('ea40f60335c427b5527b84dbabcdfffd');
    expect(rspauthMatches(latin1('rspauth=ea40f60335c427b5527b84dbabcdfffd'), rspauth)).toBe(true);
  });

  it('ACAP: response and rspauth', () => {
    const { token, rspauth } = digestResponse({
      username: 'chris',
      password: 'secret',
      realm: 'elwood.innosoft.com',
      nonce: 'OA9BSXrbuRhWay',
      cnonce: 'OA9BSuZWMSpW8m',
      nc: 1,
      digestUri: 'acap/elwood.innosoft.com',
      utf8: true,
    });
    expect(parseDirectives(token.toString('latin1')).get('response')).toEqual(['6084c6db3fede7352c551284490fd0fc']);
    expect(rspauth).toBe('2f0b3d7c3c2e486600ef710726aa2eae');
  });
});

describe('independent vectors', () => {
  it("ZooKeeper's digest-uri and realm (zookeeper/zk-sasl-md5)", () => {
    const { token, rspauth } = digestResponse({
      username: 'alice',
      password: 'pw-a',
      realm: 'zk-sasl-md5',
      nonce: 'Tq3Zb8yE0RkFLbH8V1a3JtO7mJcWQ2bqAt3E/aw1',
      cnonce: 'Zm9vYmFyYmF6cXV4MTIzNA==',
      nc: 1,
      digestUri: 'zookeeper/zk-sasl-md5',
      utf8: true,
    });
    const d = parseDirectives(token.toString('latin1'));
    expect(d.get('response')).toEqual(['3eb1c6379a75fd7304bf3a419226a819']);
    expect(d.get('digest-uri')).toEqual(['zookeeper/zk-sasl-md5']);
    expect(d.get('password')).toBeUndefined();
    expect(token.toString('latin1')).not.toContain('pw-a');
    expect(rspauth).toBe('9595f618b02ff6f44b96d2951d42a3c5');
  });

  it('charset=utf-8: names that fit ISO 8859-1 are hashed in it, others in UTF-8; the token carries UTF-8', () => {
    const base = { realm: 'zk-sasl-md5', nonce: 'n0nce', cnonce: 'c0nce', digestUri: 'zookeeper/zk-sasl-md5', utf8: true };
    const fits = digestResponse({ ...base, username: 'müller', password: 'pässwörd', nc: 1 });
    expect(parseDirectives(fits.token.toString('latin1')).get('response')).toEqual(['1ab13189280249ddfa3a3f0d549bc9cb']);
    expect(fits.rspauth).toBe('49331349915b67e34e07d210d32332bc');
    expect(fits.token.includes(Buffer.from('username="müller"', 'utf8'))).toBe(true);
    const wide = digestResponse({ ...base, username: 'δ', password: 'π', nc: 2 });
    expect(parseDirectives(wide.token.toString('latin1')).get('nc')).toEqual(['00000002']);
    expect(parseDirectives(wide.token.toString('latin1')).get('response')).toEqual(['75c0ee70ffff6cbab52359cb80f8e882']);
    expect(wide.rspauth).toBe('4060eed7c477f3279e42ef6d5d8c9f5e');
    expect(() => digestResponse({ ...base, utf8: false, username: 'δ', password: 'π', nc: 1 })).toThrow(/ISO 8859-1/);
  });

  it('without a realm in the challenge: no realm directive, the empty realm in A1', () => {
    const { token } = digestResponse({ username: 'u', password: 'p', realm: undefined, nonce: 'n', cnonce: 'c', nc: 1, digestUri: 'zookeeper/zk-sasl-md5', utf8: false });
    expect(token.toString('latin1')).toMatch(/^username="u",nonce="n",nc=00000001,/);
  });
});

describe('challenges', () => {
  it("reads Java's form: several realms, a quoted maxbuf, spaces, empty elements, escapes", () => {
    const c = parseDigestChallenge(latin1(' realm="a\\"b" , realm="zk",,nonce="x,y",qop="auth-int, auth",maxbuf="65536",charset=utf-8,algorithm=md5-sess'));
    expect(c).toEqual({ realms: ['a"b', 'zk'], nonce: 'x,y', qop: ['auth-int', 'auth'], utf8: true });
  });

  it('a realm sent in UTF-8 is decoded once the charset is known', () => {
    const token = Buffer.concat([Buffer.from('realm="', 'latin1'), Buffer.from('zürich', 'utf8'), Buffer.from('",nonce="n",algorithm=md5-sess,charset=utf-8', 'latin1')]);
    expect(parseDigestChallenge(token).realms).toEqual(['zürich']);
  });

  it.each([
    ['no nonce', 'realm="r",algorithm=md5-sess', /no 'nonce'/],
    ['two nonces', 'nonce="a",nonce="b",algorithm=md5-sess', /more than once/],
    ['no algorithm', 'nonce="a"', /no 'algorithm'/],
    ['md5 instead of md5-sess', 'nonce="a",algorithm=md5', /md5-sess/],
    ['only integrity or privacy', 'nonce="a",algorithm=md5-sess,qop="auth-int,auth-conf"', /no plain authentication/],
    ['another charset', 'nonce="a",algorithm=md5-sess,charset=latin-1', /charset/],
    ['an unterminated quote', 'nonce="a,algorithm=md5-sess', /not closed/],
    ['a name without a value', 'nonce=,algorithm=md5-sess', /no value/],
    ['garbage', '=x', /name was expected/],
  ])('refuses %s', (_what, text, message) => {
    expect(() => parseDigestChallenge(latin1(text))).toThrow(message);
  });
});

describe('rspauth', () => {
  const expected = '9595f618b02ff6f44b96d2951d42a3c5';
  it('matches its value only (upper-case hex accepted)', () => {
    expect(rspauthMatches(latin1(`rspauth=${expected}`), expected)).toBe(true);
    expect(rspauthMatches(latin1(`rspauth=${expected.toUpperCase()}`), expected)).toBe(true);
    expect(rspauthMatches(latin1('rspauth=00000000000000000000000000000000'), expected)).toBe(false);
    expect(rspauthMatches(latin1(''), expected)).toBe(false);
    expect(rspauthMatches(latin1(`rspauth=${expected},rspauth=${expected}`), expected)).toBe(false);
    expect(rspauthMatches(latin1('rspauth="'), expected)).toBe(false);
  });
});

describe('helpers', () => {
  it('quotes " and \\', () => {
    expect(quoted('a"b\\c')).toBe('"a\\"b\\\\c"');
    expect(parseDirectives(`x=${quoted('a"b\\c')}`).get('x')).toEqual(['a"b\\c']);
  });

  it('a cnonce is 16 random bytes in base64', () => {
    expect(newCnonce((n) => Buffer.alloc(n, 0xff))).toBe('/////////////////////w==');
  });
});
