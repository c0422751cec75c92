import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { parseSecretsFile, secretForms, SecretStore } from '../../src/util/secrets.ts';

const s = suite('secrets');

s('a secrets file: NAME=value lines, the value as written after the first =, comments and blank lines skipped', () => {
  const file = parseSecretsFile('\uFEFF# deploy keys\n\nAPI_KEY=abc=def \nDB_PASSWORD= spaced \r\n  # indented comment\n');
  assert.equal([...file], [
    ['API_KEY', 'abc=def '],
    ['DB_PASSWORD', ' spaced '],
  ]);
});

s('a secrets file with a bad line names the line, never a value', () => {
  for (
    const [text, reason] of [
      ['just words', /line 1: expected NAME=value/],
      ['1BAD=x', /line 1: a secret name is/],
      ['A=x\nA=y', /line 2: A is defined twice/],
      ['A=', /line 1: A has an empty value/],
    ] as const
  ) {
    assert.throws(
      () => parseSecretsFile(text),
      (error: unknown) => reason.test((error as Error).message) && !(error as Error).message.includes('x\n'),
      text,
    );
  }
});

s('forms: raw, percent-encoded and JSON-escaped, longest first', () => {
  assert.equal(secretForms('a b"c/d'), ['a%20b%22c%2Fd', 'a%20b%22c/d', 'a+b%22c%2Fd', 'a b\\"c/d', 'a b"c/d']);
  assert.equal(secretForms('plain'), ['plain']);
});

s('the store says which origin may have a value, and describes names and origins only', () => {
  const store = new SecretStore([
    { name: 'BOUND', value: 'v1', origins: ['https://a.test', 'https://b.test:8443'] },
    { name: 'ANY', value: 'v2', origins: [] },
  ]);
  assert.equal(store.forOrigin('BOUND', 'https://a.test'), { ok: true, value: 'v1' });
  assert.equal(store.forOrigin('BOUND', 'https://b.test'), {
    ok: false,
    reason: 'origin',
    origins: ['https://a.test', 'https://b.test:8443'],
  });
  assert.equal(store.forOrigin('BOUND', 'null'), { ok: false, reason: 'origin', origins: ['https://a.test', 'https://b.test:8443'] });
  assert.equal(store.forOrigin('ANY', 'null'), { ok: true, value: 'v2' });
  assert.equal(store.forOrigin('NONE', 'https://a.test'), { ok: false, reason: 'unknown' });
  assert.equal(store.describe(), [
    { name: 'BOUND', origins: ['https://a.test', 'https://b.test:8443'] },
    { name: 'ANY', origins: [] },
  ]);
  assert.not.ok(JSON.stringify(store.describe()).includes('v1'));
});

s.run();
