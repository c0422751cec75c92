import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { clipMiddle, createLogger, isLogLevel, type LoggerOptions, redactText, silentLogger } from '../../src/util/log.ts';

function capture(options: Omit<LoggerOptions, 'sink'>) {
  const lines: string[] = [];
  const log = createLogger({ ...options, sink: (line) => lines.push(line) });
  return { log, lines };
}

const s = suite('log');

s('levels filter: warn drops info and debug', () => {
  const { log, lines } = capture({ level: 'warn' });
  log.error('e');
  log.warn('w');
  log.info('i');
  log.debug('d');
  assert.equal(lines, ['[pagewire] error: e', '[pagewire] warn: w']);
});

s('debug lets everything through; silent nothing', () => {
  const all = capture({ level: 'debug' });
  all.log.debug('d');
  all.log.info('i');
  assert.is(all.lines.length, 2);
  const none = capture({ level: 'silent' });
  none.log.error('e');
  assert.is(none.lines.length, 0);
  silentLogger.error('goes nowhere');
});

s('text format with nested namespaces and fields', () => {
  const { log, lines } = capture({ level: 'info' });
  log.child('rpc').child('call').info('done', { method: 'observe', ms: 12 });
  assert.equal(lines, ['[pagewire] info rpc:call: done {"method":"observe","ms":12}']);
});

s('json format: one object a line', () => {
  const { log, lines } = capture({ level: 'info', format: 'json', now: () => 0 });
  log.child('http').warn('refused', { status: 401 });
  assert.equal(JSON.parse(lines[0]!), { time: '1970-01-01T00:00:00.000Z', level: 'warn', ns: 'http', msg: 'refused', status: 401 });
});

s('errors are logged with message, stack and cause', () => {
  const { log, lines } = capture({ level: 'error', format: 'json' });
  log.error('failed', { error: new Error('outer', { cause: new Error('inner') }) });
  const record = JSON.parse(lines[0]!);
  assert.is(record.error.message, 'outer');
  assert.type(record.error.stack, 'string');
  assert.is(record.error.cause.message, 'inner');
});

s('the server tokens are redacted wherever they appear', () => {
  const token = 'Zr8_secret-TOKEN-value';
  const { log, lines } = capture({ level: 'debug', redact: [token] });
  log.info(`listening with ${token}`, { note: `x${token}y`, list: [token] });
  assert.not.ok(lines[0]!.includes(token));
  assert.ok(lines[0]!.includes('[redacted]'));
});

s('a token with JSON-escaped characters is redacted in JSON lines too', () => {
  const token = 'quote"back\\slash';
  const { log, lines } = capture({ level: 'debug', format: 'json', redact: [token] });
  log.info('x', { value: token });
  assert.not.ok(lines[0]!.includes('quote\\"back\\\\slash'));
  assert.ok(lines[0]!.includes('[redacted]'));
});

s('token= query parameters and Bearer values are redacted', () => {
  const { log, lines } = capture({ level: 'debug' });
  log.info('url ws://127.0.0.1:1/?token=abc123&x=1 and http://h/p?a=1&token=zzz');
  log.info('header', { auth: 'Bearer eyJhbGciOi.abc.def' });
  assert.ok(lines[0]!.includes('?token=[redacted]&x=1'));
  assert.ok(lines[0]!.includes('&token=[redacted]'));
  assert.not.ok(lines[0]!.includes('abc123'));
  assert.not.ok(lines[0]!.includes('zzz'));
  assert.ok(lines[1]!.includes('Bearer [redacted]'));
  assert.not.ok(lines[1]!.includes('eyJhbGciOi'));
});

s('fields named like secrets are masked whatever their value', () => {
  const { log, lines } = capture({ level: 'debug', format: 'json' });
  log.info('x', { token: 'plain', nested: { Authorization: 'Basic Zm9v', password: 'p' }, ok: 'visible' });
  const record = JSON.parse(lines[0]!);
  assert.is(record.token, '[redacted]');
  assert.is(record.nested.Authorization, '[redacted]');
  assert.is(record.nested.password, '[redacted]');
  assert.is(record.ok, 'visible');
});

s('unserialisable fields and a failing sink do not throw', () => {
  const { log, lines } = capture({ level: 'debug' });
  const cyclic: Record<string, unknown> = {};
  cyclic['self'] = cyclic;
  log.info('cyclic', { cyclic, big: 10n, fn: () => 1 });
  assert.is(lines.length, 1);
  const broken = createLogger({
    level: 'debug',
    sink: () => {
      throw new Error('stderr closed');
    },
  });
  broken.error('still fine');
});

s('default sink is console.error', () => {
  const original = console.error;
  const seen: unknown[] = [];
  console.error = (...args: unknown[]) => seen.push(args.join(' '));
  try {
    createLogger({ level: 'warn' }).warn('to stderr');
  } finally {
    console.error = original;
  }
  assert.equal(seen, ['[pagewire] warn: to stderr']);
});

s('clipMiddle keeps the start and the end of a long line (a page call names its function last)', () => {
  const call = `{"id":7,"method":"Runtime.callFunctionOn","params":{"arguments":[${'{"objectId":"1.2.3"},'.repeat(60)}],` +
    `"functionDeclaration":"function(...a){return m.pageFacts.apply(this,a)}"}}`;
  const clipped = clipMiddle(call, 400, 100);
  assert.is(clipped.length, 501);
  assert.ok(clipped.startsWith('{"id":7,"method":"Runtime.callFunctionOn"'));
  assert.match(clipped, /…/);
  assert.match(clipped, 'return m.pageFacts.apply(this,a)');
  // A short one, and one a character longer than what would be kept, stay whole.
  assert.is(clipMiddle('{"id":1}', 400, 100), '{"id":1}');
  const justOver = 'x'.repeat(501);
  assert.is(clipMiddle(justOver, 400, 100), justOver);
  assert.is(clipMiddle(justOver + 'y', 400, 100), `${'x'.repeat(400)}…${'x'.repeat(99)}y`);
});

s('redactText and isLogLevel', () => {
  assert.is(redactText('a SECRET b SECRET', ['SECRET']), 'a [redacted] b [redacted]');
  assert.is(redactText('nothing here', ['']), 'nothing here');
  assert.ok(isLogLevel('debug'));
  assert.not.ok(isLogLevel('verbose'));
});

s('withSecrets: secrets asked for at each line are hidden too, in the forms redactText knows; children keep them', () => {
  const { log, lines } = capture({ level: 'debug', redact: ['static-token'] });
  const current: string[] = [];
  const scoped = log.withSecrets(() => current).child('cdp');
  scoped.debug('before hunter2-typed');
  current.push('hunter2-typed', 'q"uote');
  scoped.debug('after hunter2-typed static-token', { text: 'q"uote' });
  log.debug('the base logger hunter2-typed');
  assert.equal(lines, [
    '[pagewire] debug cdp: before hunter2-typed',
    '[pagewire] debug cdp: after [redacted] [redacted] {"text":"[redacted]"}',
    '[pagewire] debug: the base logger hunter2-typed',
  ]);
});

s.run();
