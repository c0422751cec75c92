import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import {
  destinationOf,
  DomainPolicy,
  isPrivateAddress,
  parseDomainPattern,
  PatternError,
  PolicyChain,
} from '../../src/sessions/domain-policy.ts';

const s = suite('domain policy');

const allowed = (policy: PolicyChain | DomainPolicy, url: string) => {
  const destination = destinationOf(url);
  return destination === undefined || policy.check(destination).allowed;
};

s('patterns: a host, * for any run of characters (dots too), an optional scheme and port', () => {
  const sub = parseDomainPattern('*.example.com');
  assert.ok(sub.test('a.example.com') && sub.test('a.b.example.com'));
  assert.not.ok(sub.test('example.com') || sub.test('badexample.com') || sub.test('example.com.evil.test'));
  const exact = parseDomainPattern('Example.COM.');
  assert.is(exact.host, 'example.com');
  assert.ok(exact.literal && exact.test('example.com') && !exact.test('www.example.com'));
  assert.equal([parseDomainPattern('https://h.test:8443').scheme, parseDomainPattern('https://h.test:8443').port], ['https', 8443]);
  assert.is(parseDomainPattern('wss://h.test').scheme, 'https', 'wss is https, ws is http');
  assert.is(parseDomainPattern('h.test:*').port, undefined);
  assert.is(parseDomainPattern('*').test('anything.at.all'), true);
  assert.is(parseDomainPattern('api-*.example.com').test('api-eu.example.com'), true);
  // Written as the URL parser writes hosts: punycode, canonical IPv4 and IPv6.
  assert.is(parseDomainPattern('bücher.example').host, 'xn--bcher-kva.example');
  assert.is(parseDomainPattern('0x7f.1').host, '127.0.0.1');
  assert.is(parseDomainPattern('[0:0::1]:8080').host, '[::1]');
  assert.is(parseDomainPattern('[::1]:8080').port, 8080);
});

s('a pattern with a path, a query, a user or a strange scheme is refused with a reason', () => {
  for (
    const [text, reason] of [
      ['example.com/path', /not a path/],
      ['https://example.com/?q', /not a path/],
      ['user@example.com', /not a path, query or user/],
      ['ftp://example.com', /scheme must be http, https, ws or wss/],
      ['', /1 to 300 characters/],
      ['exa mple.com', /not a host/],
      ['*.ex!ample.com', /not a host|a label with \*/],
      ['h.test:70000', /port must be 1–65535/],
    ] as const
  ) {
    assert.throws(
      () => parseDomainPattern(text),
      (error: unknown) => error instanceof PatternError && reason.test((error as Error).message),
      text,
    );
  }
});

s('a URL is checked by its scheme, host and port; data:, blob: and about: are not requests', () => {
  const policy = new DomainPolicy('server', { allow: ['https://app.example.com', 'localhost:3000'] });
  assert.ok(allowed(policy, 'https://app.example.com/login?x=1'));
  assert.ok(allowed(policy, 'wss://app.example.com/socket'));
  assert.not.ok(allowed(policy, 'http://app.example.com/'));
  assert.ok(allowed(policy, 'http://localhost:3000/'));
  assert.not.ok(allowed(policy, 'http://localhost:3001/'));
  assert.not.ok(allowed(policy, 'https://evil.test/'));
  for (const url of ['data:text/html,hi', 'about:blank', 'blob:https://evil.test/123']) assert.ok(allowed(policy, url), url);
  assert.equal(destinationOf('http://[::1]:9/'), { scheme: 'http', host: '[::1]', port: 9 });
  assert.equal(destinationOf('https://Example.com./'), { scheme: 'https', host: 'example.com', port: 443 });
});

s('block rules win; with allow rules a host must match one; rules are named for errors', () => {
  const policy = new DomainPolicy('server', { allow: ['*.example.com'], block: ['ads.example.com'] });
  assert.equal(policy.check(destinationOf('https://ads.example.com/x')!), { allowed: false, rule: '--block-domain ads.example.com' });
  assert.equal(policy.check(destinationOf('https://other.test/')!), { allowed: false, rule: 'no --allow-domain matches' });
  assert.equal(policy.check(destinationOf('https://www.example.com/')!), { allowed: true });
  const session = new DomainPolicy('session', { block: ['*.example.com'] });
  assert.equal(session.check(destinationOf('https://www.example.com/')!), { allowed: false, rule: 'block_domains *.example.com' });
});

s('a session can only narrow: a request passes when every level lets it', () => {
  const chain = new PolicyChain([
    new DomainPolicy('server', { block: ['evil.test'] }),
    new DomainPolicy('session', { allow: ['evil.test', 'good.test'] }),
  ]);
  assert.equal(chain.checkUrl('https://evil.test/'), { allowed: false, rule: '--block-domain evil.test' });
  assert.equal(chain.checkUrl('https://good.test/'), { allowed: true });
  assert.equal(chain.checkUrl('https://third.test/'), { allowed: false, rule: 'no allow_domains pattern matches' });
  assert.ok(new PolicyChain([new DomainPolicy('server', {}), new DomainPolicy('session', {})]).empty, 'no rules: no policy at all');
});

s('private addresses: loopback, RFC 1918, CGNAT, link-local, unspecified, IPv6 ULA and mapped IPv4; not public ones', () => {
  for (
    const host of [
      '127.0.0.1',
      '127.9.9.9',
      'localhost',
      'app.localhost',
      '10.0.0.1',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.1.1',
      '100.64.0.1',
      '169.254.169.254',
      '0.0.0.0',
      '[::1]',
      '[::]',
      '[fd12::1]',
      '[fe80::1]',
      '[::ffff:7f00:1]',
      '[::ffff:10.0.0.1]',
    ]
  ) {
    assert.ok(isPrivateAddress(host), host);
  }
  for (const host of ['8.8.8.8', '172.32.0.1', '100.128.0.1', '192.169.0.1', 'example.com', '[2001:db8::1]', '[::ffff:8.8.8.8]']) {
    assert.not.ok(isPrivateAddress(host), host);
  }
});

s('--block-private-network: literal and resolved addresses; a host an allow rule names exactly stays reachable', () => {
  const strict = new DomainPolicy('server', { blockPrivateNetwork: true });
  assert.equal(strict.check(destinationOf('http://127.0.0.1:8080/')!), { allowed: false, rule: '--block-private-network' });
  assert.equal(strict.check({ scheme: undefined, host: 'intranet.test', port: 443 }, ['10.1.2.3']), {
    allowed: false,
    rule: '--block-private-network',
  });
  assert.equal(strict.check({ scheme: undefined, host: 'example.com', port: 443 }, ['93.184.216.34']), { allowed: true });
  const local = new DomainPolicy('server', { blockPrivateNetwork: true, allow: ['localhost:3000', '*.test'] });
  assert.ok(local.check(destinationOf('http://localhost:3000/')!).allowed, 'named exactly');
  assert.equal(local.check({ scheme: undefined, host: 'rebind.test', port: 80 }, ['127.0.0.1']), {
    allowed: false,
    rule: '--block-private-network',
  }, 'a wildcard does not name it');
});

s('interception patterns: every request for an allow list, only URLs holding a blocked host otherwise', () => {
  const block = new PolicyChain([
    new DomainPolicy('server', { block: ['ads.test', '*.track.test'] }),
    new DomainPolicy('session', { block: ['[::1]'] }),
  ]);
  assert.equal(block.interceptPatterns(), ['*ads.test*', '**.track.test*', '*[::1]*']);
  assert.equal(
    new PolicyChain([new DomainPolicy('server', { block: ['a.test'] }), new DomainPolicy('session', { allow: ['b.test'] })])
      .interceptPatterns(),
    ['*'],
  );
  const strict = new PolicyChain([new DomainPolicy('server', { blockPrivateNetwork: true })]).interceptPatterns();
  assert.ok(strict.includes('*127.*') && strict.includes('*localhost*') && strict.includes('*[*'));
});

s.run();
