import { describe, expect, it } from 'vitest';
import { FairtableError } from '../errors.js';
import { checkSetupWitnesses, checkWitnessUrl, httpHostsFrom, witnessUrlProblem } from './witness-url.js';

describe('witness URLs (relay.md §8)', () => {
  it('accepts https anywhere and plain http on this machine', () => {
    for (const url of [
      'https://witness.example.org',
      'https://witness.example.org/',
      'https://witness.example.org:8443/base/path',
      'https://203.0.113.7/',
      'http://localhost:8080',
      'http://LOCALHOST:8080/',
      'http://127.0.0.1:4000',
      'http://127.3.2.1/',
      'http://[::1]:9000/',
    ])
      expect(witnessUrlProblem(url), url).toBeNull();
  });

  it('refuses each bad form with its reason', () => {
    const cases: [string, RegExp][] = [
      ['http://10.0.0.1/admin', /plain http: is only for this machine.*not 10\.0\.0\.1/],
      ['http://internal.corp/witness', /plain http:.*not internal\.corp/],
      ['http://localhost.evil.example/', /plain http:/],
      ['http://[::ffff:127.0.0.1]/', /plain http:/],
      ['http://169.254.169.254/latest/meta-data', /plain http:/],
      ['https://user:pass@witness.example.org/', /credentials/],
      ['https://user@witness.example.org/', /credentials/],
      ['https://@witness.example.org/', /credentials/],
      ['http://admin:secret@127.0.0.1/', /credentials/],
      ['https://witness.example.org/?op=delete', /query/],
      ['https://witness.example.org/?', /query/],
      ['http://127.0.0.1:8080/admin?drop=all', /query/],
      ['https://witness.example.org/#frag', /fragment/],
      ['https://witness.example.org/#', /fragment/],
      ['ftp://witness.example.org/', /scheme ftp: is not https:/],
      ['file:///etc/passwd', /scheme file: is not https:/],
      ['javascript:alert(1)', /scheme javascript:/],
      ['https:witness.example.org', /not an absolute URL/],
      ['witness.example.org', /not a URL/],
      ['', /not a URL/],
      [' https://witness.example.org/', /spaces or control characters/],
      ['https://witness.exam\tple.org/', /spaces or control characters/],
      ['https://witness.example.org/\n', /spaces or control characters/],
      ['https://' + 'a'.repeat(2100) + '.org/', /longer than 2048/],
    ];
    for (const [url, why] of cases) expect(witnessUrlProblem(url), url).toMatch(why);
    expect(witnessUrlProblem(42)).toMatch(/a witness URL is a string/);
    expect(witnessUrlProblem(null)).toMatch(/a witness URL is a string/);
  });

  it('allows plain http to the hosts whoever runs the client names, and only those', () => {
    const httpHosts = httpHostsFrom(' witness.lan, 10.0.0.5 ,,[fd00::1]');
    expect(httpHosts).toEqual(['witness.lan', '10.0.0.5', '[fd00::1]']);
    expect(witnessUrlProblem('http://witness.lan:8080/', { httpHosts })).toBeNull();
    expect(witnessUrlProblem('http://WITNESS.lan/', { httpHosts })).toBeNull();
    expect(witnessUrlProblem('http://10.0.0.5/', { httpHosts })).toBeNull();
    expect(witnessUrlProblem('http://[fd00::1]:81/', { httpHosts })).toBeNull();
    expect(witnessUrlProblem('http://10.0.0.6/', { httpHosts })).toMatch(/plain http:/);
    expect(witnessUrlProblem('http://sub.witness.lan/', { httpHosts })).toMatch(/plain http:/);
    // The allow-list opens plain http, nothing else.
    expect(witnessUrlProblem('http://witness.lan/?x=1', { httpHosts })).toMatch(/query/);
    expect(witnessUrlProblem('http://u:p@witness.lan/', { httpHosts })).toMatch(/credentials/);
    expect(httpHostsFrom(undefined)).toEqual([]);
  });

  it('throws bad_witness_url naming the URL and why', () => {
    expect(checkWitnessUrl('https://w.example.org/')).toBe('https://w.example.org/');
    try {
      checkWitnessUrl('http://10.1.2.3/admin?x=1');
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(FairtableError);
      expect((e as FairtableError).code).toBe('bad_witness_url');
      expect((e as Error).message).toContain('"http://10.1.2.3/admin?x=1"');
      expect((e as Error).message).toMatch(/query/);
    }
  });

  it("checks every entry of a setup's params.witnesses that has a url", () => {
    const key = 'ab'.repeat(32);
    expect(() => checkSetupWitnesses({})).not.toThrow();
    expect(() => checkSetupWitnesses({ witnesses: 'not a list' })).not.toThrow();
    expect(() =>
      checkSetupWitnesses({
        witnesses: [
          { key, url: 'https://a.example/' },
          { key, url: 'http://127.0.0.1:1/' },
        ],
      }),
    ).not.toThrow();
    expect(() =>
      checkSetupWitnesses({
        witnesses: [
          { key, url: 'https://a.example/' },
          { key, url: 'http://192.168.1.1/' },
        ],
      }),
    ).toThrow(/192\.168\.1\.1/);
    // An entry with a bad key is still an address some client might post to: its URL is checked too.
    expect(() => checkSetupWitnesses({ witnesses: [{ key: 'nope', url: 'https://a.example/?q' }] })).toThrow(/query/);
    expect(() => checkSetupWitnesses({ witnesses: [{ key, url: 7 }] })).toThrow(/is a string/);
    expect(() => checkSetupWitnesses({ witnesses: [{ key, url: 'http://witness.lan/' }] }, { httpHosts: ['witness.lan'] })).not.toThrow();
  });
});
