// The domain policy (PROTOCOL.md §13, docs/safety.md) against real Chromium: a page on 127.0.0.1
// whose third parties live on localhost (the same fixture server under its other name) tries every
// way out — an image, an iframe, a WebSocket, a dedicated worker's fetch, a redirect chain, a
// popup, a form post — and none of them reaches the server; what was refused is in the network
// log with its rule; navigate and tabs.new are refused with the rule named; a session can only
// narrow the server's policy; --block-private-network; and no interception at all without a policy.
import process from 'node:process';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { parseConfig } from '../../src/config.ts';
import { startServer } from '../../src/server.ts';
import { createLogger } from '../../src/util/log.ts';
import { TestClient } from '../helpers/client.ts';
import { type FixtureServer, fixtureServer } from '../helpers/fixture-server.ts';
import { evaluate, tabOf } from '../helpers/page.ts';
import { startTestServer, type TestServer } from '../helpers/pagewire.ts';
import { onTeardown } from '../helpers/teardown.ts';
import { type NetworkEntry, nextEvent, type Observation, receivedEvents, ref } from '../helpers/wire.ts';

const s = suite('domain policy');

let fixtures: FixtureServer;
/** A server that blocks the fixture's other site name: `--block-domain localhost`. */
let guarded: TestServer;
let client: TestClient;

s.before(async () => {
  fixtures = await fixtureServer();
  guarded = await startTestServer(['--block-domain', 'localhost']);
  client = await guarded.connect();
});

s.after(() => client.close());

const tag = () => crypto.randomUUID().slice(0, 8);
/** Requests the fixture server saw under the other site name whose path holds `marker`. */
const reachedOther = (marker: string) => fixtures.seen.filter((r) => r.host.startsWith('localhost:') && r.path.includes(marker));

async function observe(sessionId: string): Promise<Observation> {
  return client.call('observe', { session_id: sessionId });
}

s(
  'every way out of a page to a blocked host fails in the page and never reaches the host: image, iframe, WebSocket, worker fetch, redirect chain',
  async () => {
    const { session_id } = await client.call('session.create', { name: 'dashboard' });
    const t = tag();
    const { target_id } = await client.call('tabs.new', { session_id, url: fixtures.url(`/net-dashboard.html?tag=${t}`) });
    await evaluate(guarded, target_id, 'window.dashboardReady');
    const shown = await evaluate<Record<string, string>>(
      guarded,
      target_id,
      `Object.fromEntries(['avatar-state', 'ws-state', 'worker-state', 'redirect-state'].map((id) => [id, document.getElementById(id).textContent]))`,
    );
    assert.equal(shown, {
      'avatar-state': 'failed',
      'ws-state': 'offline',
      'worker-state': 'worker fetch failed',
      'redirect-state': 'failed',
    });
    // The allowed part ran: the page and the redirect's first two hops on 127.0.0.1.
    assert.ok(fixtures.seen.some((r) => r.host.startsWith('127.0.0.1:') && r.path.startsWith(`/net-dashboard.html?tag=${t}`)));
    assert.is(
      fixtures.seen.filter((r) =>
        r.host.startsWith('127.0.0.1:') && r.path.startsWith('/redirect') && decodeURIComponent(r.path).includes(`redirect-${t}`)
      ).length,
      2,
    );
    // Nothing reached the blocked name, the iframe's document included.
    assert.equal(reachedOther(t), []);
    const frames = await client.call('frames.list', { session_id, target_id });
    assert.not.ok(frames.frames.some((f) => f.url.includes('widget')), JSON.stringify(frames.frames));

    const { entries } = await client.call('network.list', { session_id, target_id });
    const blocked = (predicate: (e: NetworkEntry) => boolean) => entries.filter((e) => e.blocked_by !== undefined && predicate(e));
    const rule = '--block-domain localhost';
    for (
      const [what, predicate] of [
        ['the image', (e: NetworkEntry) => e.url.includes(`/api/pixel/${t}`) && e.resource_type === 'image'],
        ['the iframe', (e: NetworkEntry) => e.url.includes('/child.html') && e.resource_type === 'document'],
        ['the worker fetch', (e: NetworkEntry) => e.url.includes(`/api/ping/worker-${t}`)],
        ['the last redirect hop', (e: NetworkEntry) => e.url.includes(`/api/ping/redirect-${t}`)],
      ] as const
    ) {
      const found = blocked(predicate);
      assert.is(found.length, 1, `${what} is one blocked entry: ${JSON.stringify(entries)}`);
      assert.is(found[0]!.blocked_by, rule);
      assert.is(found[0]!.state, 'failed');
      assert.is(found[0]!.failure, 'blocked');
    }
    // The WebSocket was refused by the context's proxy, which sees a host and a port.
    const all = await client.call('network.list', { session_id });
    const socket = all.entries.find((e) => e.method === 'CONNECT' && e.url === `localhost:${fixtures.port}`);
    assert.ok(socket, JSON.stringify(all.entries));
    assert.is(socket!.blocked_by, rule);
    await client.call('session.close', { session_id });
  },
);

s('a service worker and a shared worker cannot reach a blocked host either', async () => {
  const { session_id } = await client.call('session.create', { name: 'offline-app' });
  const t = tag();
  const { target_id } = await client.call('tabs.new', { session_id, url: fixtures.url(`/offline-app.html?tag=${t}`) });
  await evaluate(guarded, target_id, 'window.workersReady');
  const shown = await evaluate(
    guarded,
    target_id,
    `[document.getElementById('sw-state').textContent, document.getElementById('shared-state').textContent]`,
  );
  assert.equal(shown, ['sync failed', 'sync failed']);
  assert.equal(reachedOther(t), []);
  const { entries } = await client.call('network.list', { session_id });
  // Refused by the interception (the log names the URL) or, when a worker's request got past it
  // (seen once under load), by the context's proxy (a CONNECT entry): never reached either way.
  const byProxy = entries.find((e) => e.method === 'CONNECT' && e.url === `localhost:${fixtures.port}`);
  for (const marker of [`sw-${t}`, `shared-${t}`]) {
    const entry = entries.find((e) => e.url.includes(marker)) ?? byProxy;
    assert.is(entry?.blocked_by, '--block-domain localhost', `${marker}: ${JSON.stringify(entries)}`);
    assert.is(entry?.target_id, undefined, 'a worker of no tab');
  }
  await client.call('session.close', { session_id });
});

s('a request that escapes the interception still meets the policy: the context proxy refuses it', async () => {
  const { session_id } = await client.call('session.create', { name: 'escaped' });
  const t = tag();
  const { target_id } = await client.call('tabs.new', { session_id, url: fixtures.url(`/net-dashboard.html?tag=${t}`) });
  await evaluate(guarded, target_id, 'window.dashboardReady');
  // As if Chromium had let a request past the interception (a service worker's fetch did once):
  // interception off on the page, behind the server's back.
  await tabOf(guarded, target_id).session.send('Fetch.disable');
  const url = `http://localhost:${fixtures.port}/api/ping/escaped-${t}`;
  const outcome = await evaluate(guarded, target_id, `fetch(${JSON.stringify(url)}).then((r) => 'status ' + r.status, () => 'failed')`);
  assert.is(outcome, 'failed');
  assert.equal(reachedOther(`escaped-${t}`), []);
  const { entries } = await client.call('network.list', { session_id });
  const refused = entries.find((e) => e.method === 'CONNECT' && e.url === `localhost:${fixtures.port}`);
  assert.is(refused?.blocked_by, '--block-domain localhost', JSON.stringify(entries));
  await client.call('session.close', { session_id });
});

s('a popup and a form post to a blocked host: the popup opens on an error page, the post never leaves', async () => {
  const { session_id } = await client.call('session.create', { name: 'dashboard-actions' });
  await client.call('events.subscribe', { session_id, kinds: ['popup'] });
  const t = tag();
  const { target_id } = await client.call('tabs.new', { session_id, url: fixtures.url(`/net-dashboard.html?tag=${t}`) });
  await evaluate(guarded, target_id, 'window.dashboardReady');
  let o = await observe(session_id);
  const opened = await client.call('act', { session_id, state_id: o.state_id, action: 'click', ref: ref(o, 'Open help') });
  assert.is(opened.status, 'completed', opened.error_text);
  const popup = await nextEvent(client, 'popup', (event) => event.session_id === session_id);
  assert.is(popup.data.opener_id, target_id);
  o = opened.fresh_state!;
  const posted = await client.call('act', { session_id, state_id: o.state_id, action: 'click', ref: ref(o, 'Send report') });
  assert.ok(['completed', 'interrupted'].includes(posted.status), `${posted.status} ${posted.error_text}`);
  assert.equal(reachedOther(t), [], 'neither the popup nor the post reached the blocked host');
  assert.not.ok(fixtures.seen.some((r) => r.method === 'POST' && r.path.includes(`/api/submit/${t}`)));
  const { entries } = await client.call('network.list', { session_id });
  const post = entries.find((e) => e.method === 'POST' && e.url.includes(`/api/submit/${t}`));
  assert.ok(post, JSON.stringify(entries));
  assert.is(post!.blocked_by, '--block-domain localhost');
  const popupDocument = entries.find((e) =>
    e.url.includes(`/child.html`) && e.target_id === popup.data.target_id && e.resource_type === 'document'
  );
  assert.ok(popupDocument?.blocked_by, `the popup's document is refused in its own tab: ${JSON.stringify(entries)}`);
  await client.call('session.close', { session_id });
});

s('navigate and tabs.new to a blocked host are refused before anything happens, naming the rule', async () => {
  const { session_id } = await client.call('session.create', { name: 'navigate' });
  const t = tag();
  const refused = await client.callError('tabs.new', { session_id, url: fixtures.otherUrl(`/child.html?new=${t}`) });
  assert.is(refused.data.error_type, 'forbidden');
  assert.match(refused.message, /--block-domain localhost/);
  assert.is(refused.data['rule'], '--block-domain localhost');
  assert.is((await client.call('tabs.list', { session_id })).tabs.length, 1, 'no tab was opened');
  await client.call('tabs.new', { session_id, url: fixtures.url('/child.html') });
  const o = await observe(session_id);
  const moved = await client.call('act', {
    session_id,
    state_id: o.state_id,
    action: 'navigate',
    url: fixtures.otherUrl(`/child.html?nav=${t}`),
  });
  assert.is(moved.status, 'action_failed');
  assert.is(moved.error_type, 'forbidden');
  assert.is(moved.execution, 'not_dispatched');
  assert.match(moved.error_text ?? '', /--block-domain localhost/);
  // A redirect that ends on the blocked host is stopped at that hop, and named too.
  const o2 = await observe(session_id);
  const redirected = await client.call('act', {
    session_id,
    state_id: o2.state_id,
    action: 'navigate',
    url: fixtures.url(`/redirect?to=${encodeURIComponent(fixtures.otherUrl(`/child.html?hop=${t}`))}`),
  });
  assert.is(redirected.error_type, 'forbidden', redirected.error_text);
  assert.match(redirected.error_text ?? '', /--block-domain localhost/);
  assert.equal(reachedOther(t), []);
  await client.call('session.close', { session_id });
});

s('a session narrows the server policy and cannot widen it', async () => {
  // allow_domains cannot let in what the server blocks…
  const { session_id } = await client.call('session.create', {
    name: 'narrow',
    allow_domains: ['localhost', '127.0.0.1'],
    block_domains: ['*.ads.example'],
  });
  const widened = await client.callError('tabs.new', { session_id, url: fixtures.otherUrl('/child.html') });
  assert.is(widened.data['rule'], '--block-domain localhost');
  // …and blocks more of its own.
  const own = await client.callError('tabs.new', { session_id, url: 'http://tracker.ads.example/x' });
  assert.is(own.data['rule'], 'block_domains *.ads.example');
  await client.call('session.close', { session_id });
  // On the shared server (no policy), a session's allow list is the whole policy of that session.
  const shared = await startTestServer();
  const other = await shared.connect();
  onTeardown(() => other.close());
  const only = await other.call('session.create', { name: 'only-localhost', allow_domains: [`localhost:${fixtures.port}`] });
  const t = tag();
  const { target_id } = await other.call('tabs.new', {
    session_id: only.session_id,
    url: fixtures.otherUrl(`/net-dashboard.html?tag=${t}`),
  });
  await evaluate(shared, target_id, 'window.dashboardReady');
  // Everything it reaches for on 127.0.0.1 (its third parties now) is refused.
  assert.is(await evaluate(shared, target_id, `document.getElementById('worker-state').textContent`), 'worker fetch failed');
  assert.not.ok(fixtures.seen.some((r) => r.host.startsWith('127.0.0.1:') && r.path.includes(t)));
  const { entries } = await other.call('network.list', { session_id: only.session_id });
  assert.ok(
    entries.some((e) => e.url.includes(`/api/ping/worker-${t}`) && e.blocked_by === 'no allow_domains pattern matches'),
    JSON.stringify(entries),
  );
  const refused = await other.callError('tabs.new', { session_id: only.session_id, url: fixtures.url('/child.html') });
  assert.is(refused.data['rule'], 'no allow_domains pattern matches');
  // Another session of that server is not affected.
  const free = await other.call('session.create', { name: 'free' });
  await other.call('tabs.new', { session_id: free.session_id, url: fixtures.url('/child.html') });
  const bad = await other.callError('session.create', { allow_domains: ['example.com/path'] });
  assert.is(bad.data.error_type, 'invalid_params');
  assert.equal(bad.data.issues?.[0]?.path, 'allow_domains.0');
});

s(
  "--block-private-network: loopback is refused for navigations and for a page's own requests; a host an allow rule names exactly is not",
  async () => {
    const strict = await startTestServer(['--block-private-network']);
    const c = await strict.connect();
    onTeardown(() => c.close());
    const { session_id } = await c.call('session.create', { name: 'private' });
    const refused = await c.callError('tabs.new', { session_id, url: fixtures.url('/child.html') });
    assert.is(refused.data['rule'], '--block-private-network');
    // A public-looking page (data:) that reaches for loopback: its fetch fails, the server never sees it.
    const t = tag();
    const page = `data:text/html,<title>probe</title><script>window.probe = fetch('${
      fixtures.url(`/api/ping/probe-${t}`)
    }').then(() => 'reached', () => 'refused')</script>`;
    const { target_id } = await c.call('tabs.new', { session_id, url: page });
    assert.is(await evaluate(strict, target_id, 'window.probe'), 'refused');
    assert.not.ok(fixtures.seen.some((r) => r.path.includes(`probe-${t}`)));
    // An exact allow rule is a local app meant to be reached; a wildcard does not name a host.
    const local = await startTestServer(['--block-private-network', '--allow-domain', '127.0.0.1', '--allow-domain', '*host']);
    const l = await local.connect();
    onTeardown(() => l.close());
    const open = await l.call('session.create', { name: 'local-app' });
    const ok = await l.call('tabs.new', { session_id: open.session_id, url: fixtures.url(`/child.html?local=${t}`) });
    assert.is(ok.error_text, undefined);
    assert.ok(fixtures.seen.some((r) => r.path.includes(`local=${t}`)));
    const wildcard = await l.callError('tabs.new', { session_id: open.session_id, url: fixtures.otherUrl('/child.html') });
    assert.is(wildcard.data['rule'], '--block-private-network');
  },
);

s('server.info names the policy; without one no request is intercepted (no Fetch.enable in the CDP trace)', async () => {
  const info = await client.call('server.info');
  assert.equal(info.domain_policy, { allow: [], block: ['localhost'], block_private_network: false });
  const lines: string[] = [];
  const config = parseConfig(['--port', '0', '--log-level', 'debug'], {});
  const log = createLogger({ level: 'debug', sink: (line) => lines.push(line), redact: config.tokens });
  const plain = await startServer(config, { runtime: `node ${process.version}`, log });
  onTeardown(() => plain.close());
  const c = await TestClient.connect(`${plain.url}?token=${encodeURIComponent(config.tokens[0]!)}`);
  onTeardown(() => c.close());
  const { session_id } = await c.call('session.create', { name: 'no-policy' });
  await c.call('tabs.new', { session_id, url: fixtures.url(`/net-dashboard.html?tag=${tag()}`) });
  assert.ok(lines.some((line) => line.includes('Page.navigate')), 'the trace is on');
  assert.equal(lines.filter((line) => line.includes('Fetch.') || line.includes('Network.enable')), []);
  assert.equal(receivedEvents(c), []);
});

s.run();
