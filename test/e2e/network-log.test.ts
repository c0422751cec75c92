// The network log (PROTOCOL.md §15) against real Chromium: an app whose Save button POSTs and gets
// a 500 it never shows; redirect hops; a refused connection; `network` events; and the per-tab
// bound (the oldest dropped, and counted).
import { type AddressInfo, createServer } from 'node:net';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { evaluate } from '../helpers/page.ts';
import { withSession } from '../helpers/session-suite.ts';
import { type NetworkEntry, nextEvent, type Observation, ref } from '../helpers/wire.ts';

const s = suite('network log');
const ctx = withSession(s, 'network-log');

s('the POST to /api/save answered 500: the agent learns it from the log, the page says nothing', async () => {
  const { client, sessionId, fixtures } = ctx;
  const { target_id } = await client.call('tabs.new', { session_id: sessionId, url: fixtures.url('/notes-app.html') });
  // Asking once starts the log; what came before is not in it. A subscription says when a request ended.
  const first = await client.call('network.list', { session_id: sessionId });
  assert.equal(first.entries, []);
  await client.call('events.subscribe', { session_id: sessionId, kinds: ['network'] });
  const o = await client.call<Observation>('observe', { session_id: sessionId, include_text: true });
  const saved = await client.call('act', { session_id: sessionId, state_id: o.state_id, action: 'click', ref: ref(o, 'Save') });
  assert.is(saved.status, 'completed');
  assert.not.match(saved.fresh_state?.tree ?? '', /error|fail|500/i, 'the page shows nothing of the failure');
  // The fetch may still be in flight when the act answers: the log says so, then how it ended.
  await nextEvent(client, 'network', (e) => e.data.method === 'POST' && e.data.url === fixtures.url('/api/save'));
  const after = await client.call('network.list', { session_id: sessionId, since: first.last_seq });
  const post = after.entries.find((e) => e.method === 'POST' && e.url === fixtures.url('/api/save'));
  assert.ok(post, JSON.stringify(after.entries));
  assert.is(post!.status, 500);
  assert.is(post!.state, 'finished');
  assert.is(post!.resource_type, 'fetch');
  assert.is(post!.target_id, target_id);
  assert.is(post!.frame_id, target_id, 'made by the main frame');
  assert.ok(post!.bytes! > 0 && post!.duration_ms! >= 0, JSON.stringify(post));
  assert.ok(after.last_seq >= post!.seq);
  // One tab's entries, or the session's.
  const tabOnly = await client.call('network.list', { session_id: sessionId, target_id });
  assert.ok(tabOnly.entries.every((e) => e.target_id === target_id));
});

s('redirect hops, a refused connection and a query string as the log shows them', async () => {
  const { client, sessionId, fixtures, server } = ctx;
  const { target_id } = await client.call('tabs.new', { session_id: sessionId, url: fixtures.url('/child.html') });
  const { last_seq } = await client.call('network.list', { session_id: sessionId });
  // A port nothing listens on: a server bound to it, then closed.
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const closedPort = (closed.address() as AddressInfo).port;
  await new Promise<void>((resolve) => closed.close(() => resolve()));
  const target = `/redirect?to=${encodeURIComponent('/redirect?to=/api/ping/hops')}`;
  await evaluate(
    server,
    target_id,
    `Promise.all([fetch(${
      JSON.stringify(target)
    } + '&secret=hunter2'), fetch('http://127.0.0.1:${closedPort}/closed').catch(() => 'refused')])`,
  );
  await nextEvent(client, 'network', (e) => e.data.url === fixtures.url('/api/ping/hops') && e.data.state === 'finished');
  await nextEvent(client, 'network', (e) => e.data.url === `http://127.0.0.1:${closedPort}/closed`);
  const { entries } = await client.call('network.list', { session_id: sessionId, since: last_seq });
  const hops = entries.filter((e) => e.url.startsWith(fixtures.url('/redirect')) || e.url === fixtures.url('/api/ping/hops'));
  assert.equal(hops.map((e) => [e.url.replace(fixtures.origin, ''), e.status, e.state]), [
    ['/redirect', 302, 'finished'],
    ['/redirect', 302, 'finished'],
    ['/api/ping/hops', 200, 'finished'],
  ]);
  assert.not.ok(JSON.stringify(entries).includes('hunter2'), 'queries are not in the log');
  const refused = entries.find((e) => e.url === `http://127.0.0.1:${closedPort}/closed`);
  assert.is(refused?.state, 'failed');
  assert.is(refused?.failure, 'net::ERR_CONNECTION_REFUSED');
  assert.is(refused?.status, undefined);
});

s('network events: one per finished request, only for a subscription that names the kind', async () => {
  const { client, sessionId, fixtures, server } = ctx;
  const { target_id } = await client.call('tabs.new', { session_id: sessionId, url: fixtures.url('/child.html') });
  const everything = await client.call('events.subscribe', { session_id: sessionId });
  await evaluate(server, target_id, `fetch('/api/ping/evented').then((r) => r.status)`);
  const event = await nextEvent(client, 'network', (e: { data: NetworkEntry }) => e.data.url === fixtures.url('/api/ping/evented'));
  assert.is(event.data.status, 200);
  assert.is(event.target_id, target_id);
  const unnamed = client.notifications.filter((n) =>
    (n.params as { subscription_id: string; kind: string }).subscription_id === everything.subscription_id
  );
  assert.not.ok(
    unnamed.some((n) => (n.params as { kind: string }).kind === 'network'),
    'a subscription without kinds gets no network events',
  );
});

s('each tab keeps its last 500 entries: the oldest go first, and are counted', async () => {
  const { client, sessionId, fixtures, server } = ctx;
  const { target_id } = await client.call('tabs.new', { session_id: sessionId, url: fixtures.url('/child.html') });
  await client.call('network.list', { session_id: sessionId });
  await evaluate(
    server,
    target_id,
    `(async () => { for (let i = 0; i < 520; i += 40) await Promise.all(Array.from({ length: 40 }, (_, k) => fetch('/api/ping/bulk-' + (i + k)))); return true; })()`,
  );
  const { entries, dropped } = await client.call('network.list', { session_id: sessionId, target_id });
  assert.is(entries.length, 500);
  assert.ok(dropped >= 21, `dropped ${dropped}`);
  assert.ok(entries.at(-1)!.url.endsWith('/api/ping/bulk-519'), entries.at(-1)!.url);
  const limits = (await client.call('server.info')).limits;
  assert.is(limits.network_entries_per_tab, 500);
});

s.run();
