import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { type Config, ConfigError, helpText, isLoopbackHost, parseConfig, readyLine, VIEWPORT_SIDE } from '../src/config.ts';
import { sessionCreate } from '../src/wire/sessions.ts';

function fails(argv: string[], env: Record<string, string | undefined>, pattern: RegExp): ConfigError {
  try {
    parseConfig(argv, env);
  } catch (error) {
    assert.instance(error, ConfigError);
    assert.match((error as Error).message, pattern);
    return error as ConfigError;
  }
  throw new Error(`expected a ConfigError for ${JSON.stringify(argv)} ${JSON.stringify(env)}`);
}

const s = suite('config');

s('defaults', () => {
  const c = parseConfig([], {});
  assert.is(c.host, '127.0.0.1');
  assert.is(c.port, 9333);
  assert.is(c.tokens.length, 1);
  assert.ok(c.generatedToken);
  assert.match(c.tokens[0]!, /^[A-Za-z0-9_-]{43}$/, '32 random bytes, base64url');
  assert.is(c.noAuth, false);
  assert.equal(c.allowOrigins, []);
  assert.is(c.browser, undefined);
  assert.equal(c.endpoints, []);
  assert.equal(c.allowEndpoints, []);
  assert.is(c.headful, false);
  assert.is(c.downloads, undefined);
  assert.is(c.uploads, undefined);
  assert.is(c.maxSessions, 16);
  assert.is(c.allowRawCdp, false);
  assert.is(c.idleTimeoutMs, 600_000);
  assert.is(c.logLevel, 'warn');
  assert.equal(c.viewport, { width: 1280, height: 720 });
  assert.is(c.help, false);
});

s('each start generates a different token', () => {
  assert.is.not(parseConfig([], {}).tokens[0], parseConfig([], {}).tokens[0]);
});

s('the config is frozen', () => {
  const c = parseConfig(['--token', 'abc-def-123'], {});
  assert.ok(Object.isFrozen(c));
  assert.ok(Object.isFrozen(c.tokens));
  assert.ok(Object.isFrozen(c.allowOrigins));
  assert.throws(() => {
    (c as { port: number }).port = 1;
  });
});

s('every flag, in --flag value and --flag=value forms', () => {
  const c = parseConfig(
    [
      '--host=0.0.0.0',
      '--port',
      '0',
      '--token=t1-aaaaaaaa',
      '--allow-origin',
      'http://app.example:8080',
      '--browser=/usr/bin/chromium',
      '--connect',
      'http://127.0.0.1:9222',
      '--headful',
      '--downloads',
      '/tmp/dl',
      '--uploads=/tmp/up',
      '--max-sessions=4',
      '--allow-raw-cdp',
      '--idle-timeout-s',
      '30',
      '--log-level=debug',
    ],
    {},
  );
  assert.is(c.host, '0.0.0.0');
  assert.is(c.port, 0);
  assert.equal(c.tokens, ['t1-aaaaaaaa']);
  assert.is(c.generatedToken, false);
  assert.equal(c.allowOrigins, ['http://app.example:8080']);
  assert.is(c.browser, '/usr/bin/chromium');
  assert.equal(c.endpoints, [{ url: 'http://127.0.0.1:9222', headers: {} }]);
  assert.is(c.headful, true);
  assert.is(c.downloads, '/tmp/dl');
  assert.is(c.uploads, '/tmp/up');
  assert.is(c.maxSessions, 4);
  assert.is(c.allowRawCdp, true);
  assert.is(c.idleTimeoutMs, 30_000);
  assert.is(c.logLevel, 'debug');
});

s('environment variables, and flags win over them', () => {
  const env = {
    PAGEWIRE_HOST: '::1',
    PAGEWIRE_PORT: '1234',
    PAGEWIRE_TOKEN: 'env-a, env-b,,',
    PAGEWIRE_ALLOW_ORIGIN: 'https://x.example,http://y.example:81',
    PAGEWIRE_HEADFUL: 'true',
    PAGEWIRE_ALLOW_RAW_CDP: '0',
    PAGEWIRE_MAX_SESSIONS: '3',
    PAGEWIRE_IDLE_TIMEOUT_S: '5',
    PAGEWIRE_LOG_LEVEL: 'info',
    PAGEWIRE_CONNECT: 'ws://127.0.0.1:9222/devtools/browser/abc',
  };
  const fromEnv = parseConfig([], env);
  assert.is(fromEnv.host, '::1');
  assert.is(fromEnv.port, 1234);
  assert.equal(fromEnv.tokens, ['env-a', 'env-b']);
  assert.equal(fromEnv.allowOrigins, ['https://x.example', 'http://y.example:81']);
  assert.is(fromEnv.headful, true);
  assert.is(fromEnv.allowRawCdp, false);
  assert.is(fromEnv.maxSessions, 3);
  assert.is(fromEnv.idleTimeoutMs, 5000);
  assert.is(fromEnv.logLevel, 'info');
  assert.equal(fromEnv.endpoints, [{ url: 'ws://127.0.0.1:9222/devtools/browser/abc', headers: {} }]);

  const flagged = parseConfig(['--port', '4321', '--token', 'flag-a', '--allow-origin', 'http://z.example', '--headful=false'], env);
  assert.is(flagged.port, 4321);
  assert.equal(flagged.tokens, ['flag-a'], 'flag lists replace env lists');
  assert.equal(flagged.allowOrigins, ['http://z.example']);
  assert.is(flagged.headful, false);
  assert.is(flagged.host, '::1', 'unflagged settings still come from the env');
});

s('empty environment variables count as unset', () => {
  const c = parseConfig([], { PAGEWIRE_PORT: '', PAGEWIRE_TOKEN: '  ', PAGEWIRE_HOST: '' });
  assert.is(c.port, 9333);
  assert.is(c.host, '127.0.0.1');
  assert.ok(c.generatedToken);
});

s('repeatable flags accumulate (duplicates dropped)', () => {
  const c = parseConfig(
    [
      '--token',
      'one-1',
      '--token=two-2',
      '--token',
      'one-1',
      '--allow-origin',
      'http://a.example',
      '--allow-origin=https://b.example:8443/',
    ],
    {},
  );
  assert.equal(c.tokens, ['one-1', 'two-2']);
  assert.equal(c.allowOrigins, ['http://a.example', 'https://b.example:8443']);
});

s('origins are normalised the way browsers send them', () => {
  assert.equal(parseConfig(['--allow-origin', 'HTTP://App.Example:80'], {}).allowOrigins, ['http://app.example']);
});

s('bad origins are refused', () => {
  for (
    const bad of [
      'app.example',
      'http://app.example/path',
      'http://u:p@app.example',
      'ftp://app.example',
      'http://a.example?x=1',
      '*',
      'null',
    ]
  ) {
    fails(['--allow-origin', bad], {}, /--allow-origin: .*origin/);
  }
  fails([], { PAGEWIRE_ALLOW_ORIGIN: 'http://ok.example,nope' }, /PAGEWIRE_ALLOW_ORIGIN/);
});

s('--no-auth on loopback: no tokens', () => {
  for (const host of ['127.0.0.1', 'localhost', '::1', '[::1]', '127.0.0.2']) {
    const c = parseConfig(['--no-auth', '--host', host], {});
    assert.ok(c.noAuth);
    assert.equal(c.tokens, []);
    assert.is(c.generatedToken, false);
  }
  assert.is(parseConfig(['--host', '[::1]', '--no-auth'], {}).host, '::1');
  assert.ok(parseConfig([], { PAGEWIRE_NO_AUTH: '1' }).noAuth);
});

s('--no-auth on a non-loopback host is refused with a clear error', () => {
  fails(['--no-auth', '--host', '0.0.0.0'], {}, /--no-auth is only allowed when the host is a loopback address/);
  fails(['--no-auth'], { PAGEWIRE_HOST: '192.168.1.10' }, /loopback/);
  fails([], { PAGEWIRE_NO_AUTH: 'yes', PAGEWIRE_HOST: '::' }, /PAGEWIRE_NO_AUTH is only allowed/);
});

s('--no-auth with --token is a contradiction; across layers the flag wins', () => {
  fails(['--no-auth', '--token', 'abc'], {}, /--no-auth cannot be combined with --token/);
  fails([], { PAGEWIRE_NO_AUTH: '1', PAGEWIRE_TOKEN: 'abc' }, /cannot be combined/);
  const flagNoAuth = parseConfig(['--no-auth'], { PAGEWIRE_TOKEN: 'abc' });
  assert.ok(flagNoAuth.noAuth);
  assert.equal(flagNoAuth.tokens, []);
  const flagToken = parseConfig(['--token', 'abc'], { PAGEWIRE_NO_AUTH: '1' });
  assert.not.ok(flagToken.noAuth);
  assert.equal(flagToken.tokens, ['abc']);
});

s('bad ports are refused', () => {
  for (const bad of ['-1', '65536', 'abc', '1.5', '80x', '']) {
    fails([`--port=${bad}`], {}, /--port: must be a whole number from 0 to 65535/);
  }
  fails([], { PAGEWIRE_PORT: '99999' }, /PAGEWIRE_PORT: must be a whole number/);
  assert.is(parseConfig(['--port', '65535'], {}).port, 65535);
});

s('other bad values name their flag', () => {
  fails(['--max-sessions', '0'], {}, /--max-sessions: must be a whole number from 1/);
  fails(['--idle-timeout-s=soon'], {}, /--idle-timeout-s/);
  fails(['--log-level', 'verbose'], {}, /--log-level: must be one of error, warn, info, debug/);
  fails(['--connect', 'file:///tmp/x'], {}, /--connect: must be a ws:\/\/ or http/);
  fails(['--host', 'http://example.com'], {}, /--host: must be a host name/);
  fails(['--headful=maybe'], {}, /--headful must be true or false/);
  fails([], { PAGEWIRE_HEADFUL: 'sure' }, /PAGEWIRE_HEADFUL must be true or false/);
});

s('--viewport WxH, from the flag or PAGEWIRE_VIEWPORT; the sides session.create allows', () => {
  assert.equal(parseConfig(['--viewport', '1024x768'], {}).viewport, { width: 1024, height: 768 });
  assert.equal(parseConfig([], { PAGEWIRE_VIEWPORT: '1920x1080' }).viewport, { width: 1920, height: 1080 });
  assert.equal(parseConfig(['--viewport=100x8192'], { PAGEWIRE_VIEWPORT: '1920x1080' }).viewport, { width: 100, height: 8192 });
  assert.ok(Object.isFrozen(parseConfig(['--viewport', '1024x768'], {}).viewport));
  for (const bad of ['1024', '99x768', '1024x8193', '1024x768px', 'x768', '1024*768', '-1x5']) {
    fails([`--viewport=${bad}`], {}, /--viewport: must be WIDTHxHEIGHT in CSS px, each 100 to 8192/);
  }
  fails([], { PAGEWIRE_VIEWPORT: 'wide' }, /PAGEWIRE_VIEWPORT: must be WIDTHxHEIGHT/);
  // The same bounds as the wire's.
  const wire = sessionCreate.params.shape.viewport.unwrap();
  for (const [width, height] of [[VIEWPORT_SIDE.min, VIEWPORT_SIDE.max], [VIEWPORT_SIDE.min - 1, 500], [500, VIEWPORT_SIDE.max + 1]]) {
    const inRange = [width!, height!].every((side) => side >= VIEWPORT_SIDE.min && side <= VIEWPORT_SIDE.max);
    assert.is(wire.safeParse({ width, height }).success, inRange, `${width}x${height}`);
  }
});

s('a bad token is refused without echoing it', () => {
  const error = fails(['--token', 'has space'], {}, /--token: each token must be printable ASCII/);
  assert.not.ok(error.message.includes('has space'));
  fails(['--token=a,b'], {}, /printable ASCII without spaces or commas/);
});

s('unknown flags, stray arguments and missing values are clear errors', () => {
  fails(['--prot', '1'], {}, /unknown flag --prot/);
  fails(['--tokens=x'], {}, /unknown flag --tokens/);
  fails(['serve'], {}, /unexpected argument "serve"/);
  fails(['-p', '1'], {}, /unexpected argument "-p"/);
  fails(['--port'], {}, /--port needs a value/);
  fails(['--port', '--headful'], {}, /--port needs a value/);
  fails(['--port', '1', '--port', '2'], {}, /--port given more than once/);
  fails(['--toString'], {}, /unknown flag --toString/);
});

s('--help', () => {
  assert.ok(parseConfig(['--help'], {}).help);
  assert.ok(parseConfig(['-h'], { PAGEWIRE_PORT: 'garbage' }).help, 'help does not need a valid config');
  const text = helpText();
  for (
    const flag of [
      '--host',
      '--port',
      '--token',
      '--no-auth',
      '--allow-origin',
      '--browser',
      '--connect',
      '--headful',
      '--downloads',
      '--uploads',
      '--max-sessions',
      '--allow-raw-cdp',
      '--idle-timeout-s',
      '--log-level',
    ]
  ) {
    assert.ok(text.includes(flag), flag);
  }
});

s('isLoopbackHost', () => {
  for (
    const yes of [
      '127.0.0.1',
      '127.255.255.254',
      '127.1.2.3',
      '::1',
      '[::1]',
      'localhost',
      'LOCALHOST',
      'localhost.',
      '0:0:0:0:0:0:0:1',
      '::ffff:127.0.0.1',
    ]
  ) {
    assert.ok(isLoopbackHost(yes), yes);
  }
  for (
    const no of [
      '0.0.0.0',
      '::',
      '128.0.0.1',
      '127.0.0.256',
      '127.0.0',
      '10.0.0.1',
      'example.com',
      'localhost.evil.com',
      '127.0.0.1.evil.com',
      '',
      '::2',
    ]
  ) {
    assert.not.ok(isLoopbackHost(no), no);
  }
});

s('a pool of endpoints: --connect repeated, --connect-file (URLs or JSON lines with headers), --allow-endpoint', () => {
  const file = [
    '# the farm',
    'ws://10.0.0.5:3000/?token=abc',
    '',
    '{"url": "wss://grid.example/session/1/se/cdp", "headers": {"Authorization": "Bearer s3cret-value"}}',
    'http://127.0.0.1:9222',
  ].join('\n');
  const c = parseConfig(
    [
      '--connect',
      'http://127.0.0.1:9222',
      '--connect',
      'http://127.0.0.1:9223',
      '--connect-file',
      '/farm',
      '--allow-endpoint',
      'ws://10.*/**',
    ],
    { PAGEWIRE_ALLOW_ENDPOINT: 'ignored-when-flagged' },
    { readFile: () => file },
  );
  assert.equal(c.endpoints, [
    { url: 'http://127.0.0.1:9222', headers: {} },
    { url: 'http://127.0.0.1:9223', headers: {} },
    { url: 'ws://10.0.0.5:3000/?token=abc', headers: {} },
    { url: 'wss://grid.example/session/1/se/cdp', headers: { Authorization: 'Bearer s3cret-value' } },
  ], 'in order; the same URL twice is one endpoint');
  assert.equal(c.allowEndpoints, ['ws://10.*/**']);
  assert.equal(parseConfig([], { PAGEWIRE_CONNECT: 'http://a:1,http://b:2' }).endpoints.map((e) => e.url), ['http://a:1', 'http://b:2']);
  const bad = (text: string, pattern: RegExp) => {
    try {
      parseConfig(['--connect-file', '/farm'], {}, { readFile: () => text });
    } catch (error) {
      assert.instance(error, ConfigError);
      assert.match((error as Error).message, pattern);
      return error as Error;
    }
    throw new Error(`expected a ConfigError for ${JSON.stringify(text)}`);
  };
  bad('file:///x', /--connect-file \/farm: line 1: must be a ws:\/\/ or http/);
  bad('{"url": 5}', /line 1: url must be a string/);
  bad('{"url": "ws://h:1", "extra": 1}', /line 1: unknown field "extra"/);
  bad('\n{not json', /line 2: not a JSON object/);
  const leaky = bad(
    '{"url": "ws://h:1", "headers": {"Authorization": "Bearer top\\nsecret"}}',
    /the value of header Authorization must be a string on one line/,
  );
  assert.not.ok(leaky.message.includes('top'), 'a header value is never echoed');
  fails(['--connect', 'ftp://h'], {}, /--connect: must be a ws:\/\/ or http/);
});

s('secrets: --secret NAME[@ORIGIN] (repeatable, or PAGEWIRE_SECRET), values from PAGEWIRE_SECRET_NAME or --secrets-file', () => {
  const files: Record<string, string> = { '/etc/pw.env': '# keys\nFILE_ONLY=from-file\nBOUND=also-file\n' };
  const readFile = (path: string) => {
    if (!(path in files)) throw new Error('ENOENT: no such file');
    return files[path]!;
  };
  const c = parseConfig(
    [
      '--secret',
      'API@https://a.test',
      '--secret',
      'API@https://b.test:8443/',
      '--secret',
      'OPEN',
      '--secret',
      'BOUND@http://127.0.0.1:3000',
      '--secrets-file',
      '/etc/pw.env',
    ],
    { PAGEWIRE_SECRET_API: 'from-env', PAGEWIRE_SECRET_OPEN: 'open-value' },
    { readFile },
  );
  assert.equal(c.secrets, [
    { name: 'API', value: 'from-env', origins: ['https://a.test', 'https://b.test:8443'] },
    { name: 'OPEN', value: 'open-value', origins: [] },
    { name: 'BOUND', value: 'also-file', origins: ['http://127.0.0.1:3000'] },
    { name: 'FILE_ONLY', value: 'from-file', origins: [] },
  ]);
  assert.ok(Object.isFrozen(c.secrets) && Object.isFrozen(c.secrets[0]));
  const fromEnv = parseConfig([], { PAGEWIRE_SECRET: 'X@https://x.test,Y', PAGEWIRE_SECRET_X: 'x1', PAGEWIRE_SECRET_Y: 'y1' });
  assert.equal(fromEnv.secrets.map((secret) => [secret.name, secret.origins]), [['X', ['https://x.test']], ['Y', []]]);
  assert.equal(parseConfig([], {}).secrets, []);
});

s('secret mistakes name the secret, never its value', () => {
  const readFile = (path: string) => (path === '/f' ? 'DUP=in-file\n' : 'BAD LINE');
  const cases: Array<[string[], Record<string, string>, RegExp]> = [
    [['--secret', 'MISSING'], {}, /secret MISSING has no value: set PAGEWIRE_SECRET_MISSING/],
    [['--secret', 'EMPTY'], { PAGEWIRE_SECRET_EMPTY: '' }, /secret EMPTY has no value/],
    [['--secret', '9NAME'], {}, /"9NAME": a secret name is/],
    [['--secret', 'A@ftp://x'], { PAGEWIRE_SECRET_A: 'v' }, /A: "ftp:\/\/x" is not an origin/],
    [['--secret', 'A@https://x.test/path'], { PAGEWIRE_SECRET_A: 'v' }, /not an origin/],
    [
      ['--secret', 'DUP', '--secrets-file', '/f'],
      { PAGEWIRE_SECRET_DUP: 'in-env' },
      /secret DUP has a value in both PAGEWIRE_SECRET_DUP and --secrets-file/,
    ],
    [['--secrets-file', '/other'], {}, /--secrets-file \/other: line 1: expected NAME=value/],
  ];
  for (const [argv, env, pattern] of cases) {
    try {
      parseConfig(argv, env, { readFile });
      throw new Error(`expected a ConfigError for ${argv.join(' ')}`);
    } catch (error) {
      assert.instance(error, ConfigError, argv.join(' '));
      assert.match((error as Error).message, pattern);
      for (const value of Object.values(env)) if (value) assert.not.ok((error as Error).message.includes(value), 'no value in the message');
      assert.not.ok((error as Error).message.includes('in-file'));
    }
  }
  fails(['--secrets-file', '/f'], {}, /cannot read files/);
});

s('a fleet: --instance-id names the instance (random by default), --drain-timeout-s bounds the drain', () => {
  const c = parseConfig([], {});
  assert.match(c.instanceId, /^[0-9a-f]{8}$/);
  assert.not.equal(parseConfig([], {}).instanceId, c.instanceId, 'each start gets its own id');
  assert.is(c.drainTimeoutMs, 30_000);
  const named = parseConfig(['--instance-id', 'pagewire-0', '--drain-timeout-s', '0'], {});
  assert.is(named.instanceId, 'pagewire-0');
  assert.is(named.drainTimeoutMs, 0);
  assert.is(parseConfig([], { PAGEWIRE_INSTANCE_ID: 'eu-7' }).instanceId, 'eu-7');
  // `_` separates the instance from the rest of the ids it begins: it may not be part of it.
  for (const bad of ['a_b', 'Pagewire', '-a', '', 'a'.repeat(64), 'a.b']) {
    fails(['--instance-id', bad], {}, /--instance-id: must be 1–63 lower-case letters/);
  }
  fails(['--drain-timeout-s', '3601'], {}, /--drain-timeout-s/);
});

s('domain policy flags: patterns checked at start, repeatable, comma-separated in the environment', () => {
  const c = parseConfig([
    '--allow-domain',
    '*.example.com',
    '--allow-domain',
    'localhost:3000',
    '--block-domain',
    'ads.example.com',
    '--block-private-network',
  ], {});
  assert.equal([c.allowDomains, c.blockDomains, c.blockPrivateNetwork], [['*.example.com', 'localhost:3000'], ['ads.example.com'], true]);
  const env = parseConfig([], { PAGEWIRE_BLOCK_DOMAIN: 'a.test, b.test', PAGEWIRE_BLOCK_PRIVATE_NETWORK: 'yes' });
  assert.equal([env.blockDomains, env.blockPrivateNetwork], [['a.test', 'b.test'], true]);
  assert.equal([parseConfig([], {}).allowDomains, parseConfig([], {}).blockPrivateNetwork], [[], false]);
  fails(['--allow-domain', 'example.com/login'], {}, /--allow-domain: "example.com\/login": a domain pattern names a host/);
  fails([], { PAGEWIRE_BLOCK_DOMAIN: 'ftp://x' }, /PAGEWIRE_BLOCK_DOMAIN: .*scheme must be http/);
});

s('ready line formats', () => {
  const c: Config = parseConfig(['--token', 'tok_A-1'], {});
  assert.is(readyLine(c, 'ws://127.0.0.1:9333/'), 'pagewire listening on ws://127.0.0.1:9333/?token=tok_A-1');
  const two = parseConfig(['--token', 'first-1', '--token', 'second-2'], {});
  assert.is(readyLine(two, 'ws://127.0.0.1:41234/'), 'pagewire listening on ws://127.0.0.1:41234/?token=first-1', 'the first token');
  const v6 = parseConfig(['--host', '::1', '--token', 'abc'], {});
  assert.is(readyLine(v6, 'ws://[::1]:9333/'), 'pagewire listening on ws://[::1]:9333/?token=abc');
  const open = parseConfig(['--no-auth'], {});
  assert.is(readyLine(open, 'ws://127.0.0.1:9333/'), 'pagewire listening on ws://127.0.0.1:9333/');
  assert.is(readyLine(open, 'ws://127.0.0.1:80'), 'pagewire listening on ws://127.0.0.1:80/', 'the port is always shown');
  const generated = parseConfig([], {});
  assert.is(readyLine(generated, 'ws://localhost:9333/'), `pagewire listening on ws://localhost:9333/?token=${generated.tokens[0]}`);
  const odd = parseConfig(['--token', 'a&b=c'], {});
  assert.is(readyLine(odd, 'ws://127.0.0.1:1/'), 'pagewire listening on ws://127.0.0.1:1/?token=a%26b%3Dc', 'tokens are URL-encoded');
});

s.run();
