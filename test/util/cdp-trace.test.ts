import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { scrubCdpMessage } from '../../src/util/cdp-trace.ts';

const s = suite('cdp trace');
const scrub = (message: unknown, quiet?: (id: string) => boolean) =>
  JSON.parse(scrubCdpMessage(JSON.stringify(message), quiet ? { quiet } : {}));

s('what is typed goes: texts, key names and key codes of Input commands (one keystroke a line would spell a secret)', () => {
  const key = scrub({
    id: 7,
    method: 'Input.dispatchKeyEvent',
    params: {
      type: 'keyDown',
      key: 'h',
      code: 'KeyH',
      text: 'h',
      unmodifiedText: 'h',
      windowsVirtualKeyCode: 72,
      nativeVirtualKeyCode: 72,
      modifiers: 0,
    },
    sessionId: 'S',
  });
  assert.equal(key.params, {
    type: 'keyDown',
    key: '[redacted]',
    code: '[redacted]',
    text: '[redacted]',
    unmodifiedText: '[redacted]',
    windowsVirtualKeyCode: '[redacted]',
    nativeVirtualKeyCode: '[redacted]',
    modifiers: 0,
  });
  assert.equal(scrub({ id: 8, method: 'Input.insertText', params: { text: 'hunter2' } }).params, { text: '[redacted]' });
  // Mouse input stays readable.
  assert.equal(scrub({ id: 9, method: 'Input.dispatchMouseEvent', params: { type: 'mousePressed', x: 10, y: 20 } }).params, {
    type: 'mousePressed',
    x: 10,
    y: 20,
  });
});

s('cookie values go, wherever a cookie object is (getCookies results, extra info events); names and domains stay', () => {
  const reply = scrub({ id: 3, result: { cookies: [{ name: 'sid', value: 's3cr3t', domain: 'a.test', path: '/' }] } });
  assert.equal(reply.result.cookies, [{ name: 'sid', value: '[redacted]', domain: 'a.test', path: '/' }]);
  const extra = scrub({
    method: 'Network.requestWillBeSentExtraInfo',
    params: { associatedCookies: [{ blockedReasons: [], cookie: { name: 'sid', value: 's3cr3t', domain: 'a.test' } }] },
  });
  assert.is(extra.params.associatedCookies[0].cookie.value, '[redacted]');
});

s('cookie and authorization headers go, as objects, as {name, value} lists and as raw header text', () => {
  const event = scrub({
    method: 'Network.responseReceived',
    params: {
      response: {
        headers: { 'Set-Cookie': 'sid=s3cr3t', 'content-type': 'text/html' },
        requestHeaders: { Cookie: 'sid=s3cr3t', Authorization: 'Bearer abc' },
      },
      headersText: 'HTTP/1.1 200 OK\r\nSet-Cookie: sid=s3cr3t\r\nContent-Type: text/html\r\n',
    },
  });
  assert.equal(event.params.response.headers, { 'Set-Cookie': '[redacted]', 'content-type': 'text/html' });
  assert.equal(event.params.response.requestHeaders, { Cookie: '[redacted]', Authorization: '[redacted]' });
  assert.is(event.params.headersText, 'HTTP/1.1 200 OK\r\nSet-Cookie: [redacted]\r\nContent-Type: text/html\r\n');
  const fetch = scrub({
    method: 'Fetch.requestPaused',
    params: { responseHeaders: [{ name: 'set-cookie', value: 'sid=s3cr3t' }, { name: 'x', value: 'y' }] },
  });
  assert.equal(fetch.params.responseHeaders, [{ name: 'set-cookie', value: '[redacted]' }, { name: 'x', value: 'y' }]);
  assert.not.ok(JSON.stringify([event, fetch]).includes('s3cr3t'));
});

s('a quiet session keeps its method and id only; anything that is not JSON passes as it is', () => {
  assert.equal(scrub({ id: 4, method: 'Runtime.evaluate', params: { expression: 'localStorage' }, sessionId: 'H' }, (id) => id === 'H'), {
    sessionId: 'H',
    id: 4,
    method: 'Runtime.evaluate',
    contents: '[redacted]',
  });
  assert.is(scrubCdpMessage('not json'), 'not json');
});

s.run();
