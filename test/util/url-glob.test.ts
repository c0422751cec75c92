import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { compileUrlGlob, isUrlGlob, urlMatches } from '../../src/util/url-glob.ts';

function matches(pattern: string, yes: string[], no: string[]): void {
  for (const url of yes) assert.ok(urlMatches(url, pattern), `${pattern} should match ${url}`);
  for (const url of no) assert.not.ok(urlMatches(url, pattern), `${pattern} should not match ${url}`);
}

const s = suite('url-glob');

s('a pattern without * must equal the URL exactly', () => {
  assert.not.ok(isUrlGlob('https://example.com/a?b=1'));
  matches(
    'https://example.com/a?b=1',
    ['https://example.com/a?b=1'],
    [
      'https://example.com/a?b=12',
      'https://example.com/a',
      'https://example.com/aXb=1',
      'https://EXAMPLE.com/a?b=1',
      'x https://example.com/a?b=1',
    ],
  );
  matches('about:blank', ['about:blank'], ['about:blank#x', 'about:srcdoc']);
  // No normalisation: the browser reports https://example.com/ with its slash.
  matches('https://example.com', ['https://example.com'], ['https://example.com/']);
});

s('* stays within a segment and fills a whole segment with at least one character', () => {
  matches(
    'https://example.com/a/*',
    ['https://example.com/a/b', 'https://example.com/a/b.html', 'https://example.com/a/.well-known', 'https://example.com/a/b?x=1#f'],
    [
      'https://example.com/a/',
      'https://example.com/a/b/',
      'https://example.com/a/b/c',
      'https://example.com/a',
      'https://example.com/a/b?next=/c',
    ],
  );
  matches('https://example.com/*.png', ['https://example.com/logo.png'], [
    'https://example.com/img/logo.png',
    'https://example.com/logo.png?v=1',
  ]);
});

s('** as a whole segment crosses segments', () => {
  matches(
    'http://127.0.0.1:*/page/**',
    ['http://127.0.0.1:8080/page/', 'http://127.0.0.1:8080/page/a/b/c.html?x=1', 'http://127.0.0.1:1/page/.hidden/x'],
    [
      'http://127.0.0.1:8080/page',
      'http://127.0.0.1:8080/pages/a',
      'http://127.0.0.2:8080/page/a',
      'http://127.0.0.1/page/a',
      'https://127.0.0.1:8080/page/a',
    ],
  );
  matches(
    '**/login',
    ['https://example.com/login', 'http://127.0.0.1:9/a/b/login'],
    ['https://example.com/login?next=/', 'https://example.com/login/x', 'https://example.com/relogin'],
  );
  matches('**/login*', ['https://example.com/a/login?next=x', 'https://example.com/login'], ['https://example.com/login?next=/a/b']);
  matches('https://example.com/**/x', ['https://example.com/x', 'https://example.com/a/b/x'], ['https://example.com/a/bx']);
  matches('**', ['about:blank', 'https://example.com/', 'data:text/html,<p>hi</p>'], []);
});

s('** inside a segment is a single *', () => {
  matches('https://example.com/a**', ['https://example.com/abc'], ['https://example.com/a/b']);
});

s('scheme and host are literal apart from globs', () => {
  matches(
    'https://*.example.com/**',
    ['https://www.example.com/', 'https://a.b.example.com/x'],
    [
      'https://example.com/',
      'http://www.example.com/',
      'https://www.example.org/',
      'https://www.example.com.evil/x',
      'https://evilexample.com/',
    ],
  );
  matches('http://[::1]:*/', ['http://[::1]:8080/'], ['http://1:8080/']);
  matches('*://example.com/', ['https://example.com/', 'http://example.com/'], ['https://example.com/x']);
});

s('? is a literal question mark, so query strings are written as they are', () => {
  matches(
    'https://example.com/search?q=*',
    ['https://example.com/search?q=cats', 'https://example.com/search?q=a%2Fb'],
    ['https://example.com/searchXq=cats', 'https://example.com/search?q=a/b', 'https://example.com/search'],
  );
  matches('https://example.com/?', ['https://example.com/?'], ['https://example.com/a']);
  matches('https://example.com/a?*', ['https://example.com/a?x'], ['https://example.com/ab']);
});

s('other glob syntax is literal: braces, brackets, extglobs, negation, regex characters', () => {
  matches('https://example.com/{a,b}/*', ['https://example.com/{a,b}/x'], ['https://example.com/a/x', 'https://example.com/b/x']);
  matches('https://example.com/[ab]/*', ['https://example.com/[ab]/x'], ['https://example.com/a/x']);
  matches('https://example.com/+(a)/*', ['https://example.com/+(a)/x'], ['https://example.com/a/x', 'https://example.com/aa/x']);
  matches('https://example.com/@(a|b)*', ['https://example.com/@(a|b)x'], ['https://example.com/ax']);
  matches('!https://example.com/*', ['!https://example.com/x'], ['https://example.com/x', 'https://other.com/x']);
  matches('https://example.com/a|b/*', ['https://example.com/a|b/x'], ['https://example.com/a/x', 'b/x']);
  matches('https://example.com/a.b/*', ['https://example.com/a.b/x'], ['https://example.com/aXb/x']);
  matches('https://example.com/$^()/*', ['https://example.com/$^()/x'], []);
  matches('https://example.com/a\\b/*', ['https://example.com/a\\b/x'], ['https://example.com/ab/x']);
  matches('./a/*', ['./a/x'], ['a/x']);
  matches('https://example.com/a+b/%20/*#frag', ['https://example.com/a+b/%20/x#frag'], ['https://example.com/aab/%20/x#frag']);
});

s('known limit: a wildcard never matches a whole "." or ".." segment (only seen in queries)', () => {
  matches('https://h/**', ['https://h/a?next=/b', 'https://h/..x'], ['https://h/a?next=/../b']);
  matches('https://h/a?next=/../*', ['https://h/a?next=/../b'], []);
});

s('compileUrlGlob gives a reusable predicate', () => {
  const test = compileUrlGlob('http://h/*');
  assert.ok(test('http://h/a'));
  assert.not.ok(test('http://h/a/b'));
  const exact = compileUrlGlob('http://h/a');
  assert.ok(exact('http://h/a'));
  assert.not.ok(exact('http://h/a/'));
});

s('many distinct patterns each match their own URLs', () => {
  for (let i = 0; i < 300; i++) assert.ok(urlMatches(`http://h/${i}/x`, `http://h/${i}/*`));
  assert.not.ok(urlMatches('http://h/1/x', 'http://h/2/*'));
});

s.run();
