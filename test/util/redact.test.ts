import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { containsSecret, redactKnown, redactSecrets, redactUrl, scrubStrings } from '../../src/util/redact.ts';
import { secretForms } from '../../src/util/secrets.ts';

const s = suite('redact');

s('URLs lose userinfo, query and fragment', () => {
  assert.is(redactUrl('https://user:pw@example.com:8080/a/b?token=x#frag'), 'https://example.com:8080/a/b');
  assert.is(redactUrl('http://127.0.0.1:9/page.html'), 'http://127.0.0.1:9/page.html');
  assert.is(redactUrl('about:blank'), 'about:blank');
  assert.is(redactUrl('data:text/html,<p>secret</p>'), 'data:text/html,…');
  assert.is(redactUrl(''), '');
  assert.is(redactUrl('not a url?x=1'), 'not a url');
});

s('secret-looking substrings become [redacted]', () => {
  const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U';
  assert.is(redactSecrets(`token is ${jwt} ok`), 'token is [redacted] ok');
  assert.is(redactSecrets('Authorization: Bearer abcdefghijklmnop1234'), 'Authorization: [redacted]');
  assert.is(redactSecrets('key sk-proj-abcdefghijklmnopqrstuvwx end'), 'key [redacted] end');
  assert.is(redactSecrets('ghp_abcdefghijklmnopqrstuvwxyz0123456789'), '[redacted]');
  assert.is(redactSecrets('AKIAABCDEFGHIJKLMNOP'), '[redacted]');
  assert.is(redactSecrets('api_key=abcdef123456'), 'api_key=[redacted]');
  assert.is(redactSecrets('password: hunter2hunter2'), 'password: [redacted]');
  assert.is(redactSecrets('plain words stay as they are'), 'plain words stay as they are');
  // Every pattern, also inside longer text (one combined scan decides whether they run at all).
  const samples = [
    'github_pat_abcdefghijklmnopqrstuvwxyz0123456789',
    'xoxb-1234567890-abcdefghij',
    'AIzaSyA1234567890abcdefghijklmnopqrstuv',
    'glpat-abcdefghijklmnopqrst',
    'basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==',
    'rk_live_abcdefghijklmnopqrstuvwx',
  ];
  for (const sample of samples) assert.is(redactSecrets(`before ${sample} after`), 'before [redacted] after', sample);
  assert.is(redactSecrets('ACCESS_TOKEN = "abcdefgh12345678"'), 'ACCESS_TOKEN = [redacted]"');
});

s('known secrets (typed passwords) are replaced wherever they appear, prefixes too', () => {
  assert.is(redactSecrets('you typed correct-horse here', ['correct-horse']), 'you typed [redacted] here');
  assert.is(redactSecrets('value: corr', ['correct-horse']), 'value: [redacted]');
  assert.is(redactSecrets('cor is short', ['correct-horse']), 'cor is short');
  assert.is(redactSecrets('a correct-horse-battery b correct', ['correct-horse']), 'a [redacted]-battery b [redacted]');
});

s('a typed password with spaces is hidden whole: its encoded forms share its beginning', () => {
  // A session knows each typed secret in all its forms (util/secrets.ts), longest first: the
  // `%20` form matches only "correct" of the text, which must not leave the rest shown.
  const known = secretForms('correct horse battery staple');
  assert.is(redactSecrets('fill "correct horse battery staple"', known), 'fill "[redacted]"');
  assert.is(redactSecrets('q=correct%20horse%20battery%20staple&x', known), 'q=[redacted]&x');
  assert.is(redactSecrets('typed so far: correct hor', known), 'typed so far: [redacted]');
});

s('known secrets: a string with its beginnings, {exact} only whole; containsSecret says the same', () => {
  assert.is(
    redactSecrets('typed hunt and hunter2 and exact-value-1 and exact-val', ['hunter2', { exact: 'exact-value-1' }]),
    'typed [redacted] and [redacted] and [redacted] and exact-val',
  );
  assert.is(
    redactKnown('https://a.test/api_key=abcdefgh12/exact-value-1', [{ exact: 'exact-value-1' }]),
    'https://a.test/api_key=abcdefgh12/[redacted]',
    'no secret shapes',
  );
  assert.ok(containsSecret('typed hunt', 'hunter2'));
  assert.not.ok(containsSecret('typed exact-val', { exact: 'exact-value-1' }));
  assert.ok(containsSecret('x exact-value-1 y', { exact: 'exact-value-1' }));
});

s('scrubStrings: every string, keys kept, the same object back when nothing changed, image data untouched', () => {
  const scrub = (text: string) => text.replace('s3cr3t', '[redacted]');
  const plain = { a: 'x', b: [1, { c: 'y' }] };
  assert.is(scrubStrings(plain, scrub), plain);
  assert.equal(scrubStrings({ s3cr3t: 's3cr3t', list: ['s3cr3t'], shot: { mime: 'image/png', data: 's3cr3t' } }, scrub), {
    s3cr3t: '[redacted]',
    list: ['[redacted]'],
    shot: { mime: 'image/png', data: 's3cr3t' },
  });
});

s.run();
