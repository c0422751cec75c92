// Storage state (PROTOCOL.md §15) against real Chromium: a shop that signs in with an httpOnly
// session cookie and keeps the cart and theme in localStorage. Its state is read from one session
// in Playwright's shape and a second session starts from it, signed in, as a Playwright file would
// start it; the helper tab that reads localStorage is never seen, and cookie values are never logged.
import process from 'node:process';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { parseConfig } from '../../src/config.ts';
import { startServer } from '../../src/server.ts';
import { createLogger } from '../../src/util/log.ts';
import { TestClient } from '../helpers/client.ts';
import { type FixtureServer, fixtureServer } from '../helpers/fixture-server.ts';
import { evaluate } from '../helpers/page.ts';
import type { TestServer } from '../helpers/pagewire.ts';
import { onTeardown } from '../helpers/teardown.ts';
import { receivedEvents, type StorageState } from '../helpers/wire.ts';

const s = suite('storage state');

let fixtures: FixtureServer;
let server: TestServer;
let client: TestClient;
const logLines: string[] = [];

s.before(async () => {
  fixtures = await fixtureServer();
  const config = parseConfig(['--port', '0', '--log-level', 'debug'], {});
  const log = createLogger({ level: 'debug', sink: (line) => logLines.push(line), redact: config.tokens });
  const running = await startServer(config, { runtime: `node ${process.version}`, log });
  onTeardown(() => running.close());
  const url = `${running.url}?token=${encodeURIComponent(config.tokens[0]!)}`;
  server = { server: running, url, token: config.tokens[0]!, connect: () => TestClient.connect(url) };
  client = await server.connect();
});

s.after(() => client.close());

/** What the shop shows: who is signed in (the cookie, as the server saw it), the theme and the cart (localStorage). */
async function shopView(targetId: string): Promise<Record<string, string>> {
  await evaluate(
    server,
    targetId,
    `new Promise((resolve) => { const check = () => (document.getElementById('cookie-view').textContent !== '?' ? resolve(true) : setTimeout(check, 5)); check(); })`,
  );
  return evaluate(
    server,
    targetId,
    `({ server: document.getElementById('cookie-view').textContent, user: document.getElementById('user').textContent, theme: document.getElementById('theme-name').textContent, cart: document.getElementById('cart').textContent })`,
  );
}

s("a signed-in session's cookies and localStorage move to a new session, which is signed in", async () => {
  const a = await client.call('session.create', { name: 'shopper' });
  await client.call('events.subscribe', { session_id: a.session_id, kinds: ['popup', 'tab_closed', 'navigation'] });
  const { target_id } = await client.call('tabs.new', { session_id: a.session_id, url: fixtures.url('/session/login?user=alice') });
  assert.equal(await shopView(target_id), { server: 'signed in as alice', user: 'alice', theme: 'dark', cart: '3' });
  const eventsBefore = receivedEvents(client).length;
  const state = await client.call('session.storage_state', { session_id: a.session_id });
  const sid = state.cookies.find((c) => c.name === 'sid');
  assert.ok(sid, JSON.stringify(state.cookies.map((c) => c.name)));
  assert.equal({ ...sid!, value: '…', expires: sid!.expires > Date.now() / 1000 }, {
    name: 'sid',
    value: '…',
    domain: '127.0.0.1',
    path: '/',
    expires: true,
    httpOnly: true,
    secure: false,
    sameSite: 'Lax',
  });
  assert.match(sid!.value, /^alice-/);
  const prefs = state.cookies.find((c) => c.name === 'prefs')!;
  assert.is(prefs.expires, -1, 'a session cookie');
  assert.is(prefs.sameSite, 'Lax');
  assert.equal(state.origins.map((o) => o.origin), [fixtures.origin], 'the one origin the session showed');
  const items = Object.fromEntries(state.origins[0]!.localStorage.map((item) => [item.name, item.value]));
  assert.equal(items, { user: 'alice', theme: 'dark', cart: '[1,2,3]' });
  // The helper tab that read localStorage is the server's own: no tab, no event.
  assert.is((await client.call('tabs.list', { session_id: a.session_id })).tabs.length, 2);
  assert.equal(receivedEvents(client).slice(eventsBefore), []);

  const b = await client.call('session.create', { name: 'returning', storage_state: state });
  assert.is((await client.call('tabs.list', { session_id: b.session_id })).tabs.length, 1, 'only its first tab');
  const tab = await client.call('tabs.new', { session_id: b.session_id, url: fixtures.url('/storage-app.html') });
  assert.equal(await shopView(tab.target_id), { server: 'signed in as alice', user: 'alice', theme: 'dark', cart: '3' });
  // And round again: B's state is A's.
  const again = await client.call('session.storage_state', { session_id: b.session_id });
  assert.equal(new Set(again.cookies.map((c) => `${c.name}=${c.value}`)), new Set(state.cookies.map((c) => `${c.name}=${c.value}`)));
  // No cookie value went to the log (the debug CDP trace included).
  assert.ok(logLines.some((line) => line.includes('Storage.getCookies')), 'the trace is on');
  assert.equal(logLines.filter((line) => line.includes(sid!.value)).slice(0, 2), []);
  await client.call('session.close', { session_id: a.session_id });
  await client.call('session.close', { session_id: b.session_id });
});

s(
  'a Playwright storageState file starts a session as it is (fields Playwright adds are ignored); a bad origin is invalid_params',
  async () => {
    const file = {
      cookies: [
        {
          name: 'sid',
          value: 'bob-from-playwright',
          domain: '127.0.0.1',
          path: '/',
          expires: -1,
          httpOnly: true,
          secure: false,
          sameSite: 'Lax',
          partitionKey: undefined,
          _crHasCrossSiteAncestor: false,
        },
        { name: 'prefs', value: 'wide', domain: '127.0.0.1', path: '/' },
      ],
      origins: [{ origin: fixtures.origin, localStorage: [{ name: 'user', value: 'bob' }, { name: 'cart', value: '[7]' }] }],
    } as unknown as StorageState;
    const { session_id } = await client.call('session.create', { name: 'from-file', storage_state: file });
    const { target_id } = await client.call('tabs.new', { session_id, url: fixtures.url('/storage-app.html') });
    assert.equal(await shopView(target_id), { server: 'signed in as bob', user: 'bob', theme: 'light', cart: '1' });
    await client.call('session.close', { session_id });
    const bad = await client.callError('session.create', {
      storage_state: { cookies: [], origins: [{ origin: `${fixtures.origin}/shop`, localStorage: [{ name: 'a', value: 'b' }] }] },
    });
    assert.is(bad.data.error_type, 'invalid_params');
    assert.is(bad.data.issues?.[0]?.path, 'storage_state.origins.0.origin');
    assert.is((await client.call('session.list')).sessions.length, 0, 'no session was left behind');
  },
);

s.run();
