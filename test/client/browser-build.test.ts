// The SDK's browser build (dist/browser/pagewire-client.js, made by `npm run build`) in a real
// page: a page served by the test, loaded in headless Chromium (the server's own), imports the one
// module, connects back to a server that allows its origin, observes, acts and reads events.
import { existsSync, readFileSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { type FixtureServer, fixtureServer } from '../helpers/fixture-server.ts';
import { sharedServer, startTestServer, type TestServer } from '../helpers/pagewire.ts';
import { ROOT } from '../helpers/server-process.ts';

const BUNDLE = `${ROOT}dist/browser/pagewire-client.js`;
const s = suite('client SDK browser build');
let fixtures: FixtureServer;
let allowing: TestServer;

s.before(async () => {
  assert.ok(existsSync(BUNDLE), 'dist/browser/pagewire-client.js is missing: run `npm run build`');
  fixtures = await fixtureServer();
  allowing = await startTestServer(['--allow-origin', fixtures.origin]);
});
s.after(() => allowing.server.close());

s('is one ES module with no import of its own', () => {
  const text = readFileSync(BUNDLE, 'utf8');
  assert.not.match(text, /^\s*import\s/m);
  assert.not.match(text, /\bimport\(/);
  assert.not.match(text, /\brequire\(/);
  assert.match(text, /^export \{[^}]*\bconnect\b/m);
});

s(
  'a page loads it, connects to a server that allows its origin (and is refused by one that does not), observes, acts, reads events',
  async () => {
    const shared = await sharedServer();
    const driver = await allowing.connect();
    try {
      const { session_id } = await driver.call<{ session_id: string }>('session.create', { name: 'sdk-page-host' });
      const { subscription_id } = await driver.call<{ subscription_id: string }>('events.subscribe', { session_id, kinds: ['console'] });
      const hash = new URLSearchParams({
        ws: allowing.server.url,
        token: allowing.token,
        denied: shared.url,
        target: fixtures.url('/sdk/checkout.html?delay=50'),
      });
      await driver.call('tabs.new', { session_id, url: `${fixtures.url('/sdk/browser-runner.html')}#${hash}` });
      const line = await driver.waitForNotification((n) => {
        const p = n.params as { subscription_id: string; data: { text?: string } };
        return p.subscription_id === subscription_id && (p.data.text ?? '').startsWith('runner ');
      });
      const report = JSON.parse((line.params as { data: { text: string } }).data.text.slice('runner '.length)) as Record<string, unknown>;
      assert.equal(report, {
        denied: 'connection_failed',
        server: 'pagewire',
        status: 'verified',
        orders: '1',
        stale: 'stale_observation/stale_state',
        events: ['order clicked 1', 'order confirmed 1'],
        error: 'session_not_found',
        ok: true,
      });
      await driver.call('session.close', { session_id });
    } finally {
      driver.close();
    }
  },
);

s.run();
