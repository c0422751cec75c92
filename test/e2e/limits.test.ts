// The server's limits (issue 7 "Hardening"): sessions, tabs per session, requests in flight per
// connection, subscriptions per connection and retained states. Each one, when exceeded, fails
// with invalid_request naming the limit (`data.limit`, a key of server.info `limits`) and its
// maximum (`data.max`) and says what to do; under it everything works. Also the counts that
// server.info exposes for watching a long-running server.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { helpText, parseConfig } from '../../src/config.ts';
import { type NewState, StateStore } from '../../src/observe/state-store.ts';
import type { RpcErrorShape, TestClient } from '../helpers/client.ts';
import { type FixtureServer, fixtureServer } from '../helpers/fixture-server.ts';
import { sharedServer, startTestServer, type TestServer } from '../helpers/pagewire.ts';
import { waitUntil } from '../helpers/wait.ts';
import { ref, type ServerInfoResult as Info } from '../helpers/wire.ts';

const MAX = { sessions: 3, tabs: 3, pending: 3, subscriptions: 2 };

const s = suite('limits');
let server: TestServer;
let fixtures: FixtureServer;
let client: TestClient;

s.before(async () => {
  fixtures = await fixtureServer();
  server = await startTestServer([
    '--max-sessions',
    String(MAX.sessions),
    '--max-tabs-per-session',
    String(MAX.tabs),
    '--max-pending-per-connection',
    String(MAX.pending),
    '--max-subscriptions-per-connection',
    String(MAX.subscriptions),
  ]);
  client = await server.connect();
});
s.after(() => client.close());

/** Every test leaves the private server without sessions, so the session limit is all theirs. */
async function closeAllSessions(): Promise<void> {
  const { sessions } = await client.call('session.list');
  for (const { session_id } of sessions) await client.call('session.close', { session_id });
}
s.after.each(closeAllSessions);

function assertLimitError(error: RpcErrorShape, limit: string, max: number, todo: RegExp): void {
  assert.is(error.code, -32600, JSON.stringify(error));
  assert.is(error.data?.error_type, 'invalid_request');
  assert.is(error.data?.limit, limit);
  assert.is(error.data?.max, max);
  assert.match(error.message, todo, 'the message says what to do');
}

const until = <T>(what: string, fn: () => Promise<T>, ok: (value: T) => boolean) => waitUntil(fn, ok, { what, intervalMs: 50 });

s('defaults: flags, environment, --help, and server.info limits', async () => {
  const c = parseConfig([], {});
  assert.is(c.maxSessions, 16);
  assert.is(c.maxTabsPerSession, 20);
  assert.is(c.maxPendingPerConnection, 32);
  assert.is(c.maxSubscriptionsPerConnection, 32);
  const flagged = parseConfig(['--max-tabs-per-session', '5', '--max-pending-per-connection=7'], {
    PAGEWIRE_MAX_SUBSCRIPTIONS_PER_CONNECTION: '9',
  });
  assert.is(flagged.maxTabsPerSession, 5);
  assert.is(flagged.maxPendingPerConnection, 7);
  assert.is(flagged.maxSubscriptionsPerConnection, 9);
  assert.throws(() => parseConfig(['--max-tabs-per-session', '0'], {}), /--max-tabs-per-session: must be a whole number from 1/);
  assert.throws(
    () => parseConfig([], { PAGEWIRE_MAX_PENDING_PER_CONNECTION: 'lots' }),
    /PAGEWIRE_MAX_PENDING_PER_CONNECTION: must be a whole number/,
  );
  for (
    const flag of ['--max-sessions N', '--max-tabs-per-session N', '--max-pending-per-connection N', '--max-subscriptions-per-connection N']
  ) {
    assert.ok(helpText().includes(flag), flag);
  }

  const shared = await (await sharedServer()).connect();
  const { limits } = await shared.call('server.info');
  shared.close();
  assert.is(limits['max_sessions'], 16);
  assert.is(limits['tabs_per_session'], 20);
  assert.is(limits['pending_requests_per_connection'], 32);
  assert.is(limits['subscriptions_per_connection'], 32);
  assert.is(limits['states_kept_per_tab'], 8);
  assert.is(limits['states_kept_for_closed_tabs'], 64);
  assert.is(limits['states_retained_per_session'], 256);

  const { limits: own } = await client.call('server.info');
  assert.is(own['max_sessions'], MAX.sessions);
  assert.is(own['tabs_per_session'], MAX.tabs);
  assert.is(own['pending_requests_per_connection'], MAX.pending);
  assert.is(own['subscriptions_per_connection'], MAX.subscriptions);
});

s('sessions: the one past --max-sessions is refused (default session too) until one is closed', async () => {
  const ids: string[] = [];
  for (let i = 0; i < MAX.sessions; i++) ids.push((await client.call('session.create', { name: `limit-${i}` })).session_id);
  const refused = await client.callError('session.create', { name: 'one-too-many' });
  assertLimitError(refused, 'max_sessions', MAX.sessions, /session\.close.*--max-sessions/);
  // The principal's implicit default session counts like any other.
  assertLimitError(await client.callError('observe', {}), 'max_sessions', MAX.sessions, /session\.close/);
  const { sessions } = await client.call('session.list');
  assert.is(sessions.length, MAX.sessions, 'a refused creation leaves nothing behind');
  await client.call('session.close', { session_id: ids[0] });
  const again = await client.call('session.create', { name: 'after-close' });
  assert.type(again.session_id, 'string');
});

s('tabs: tabs.new past --max-tabs-per-session is refused until one is closed; popups are not refused but count', async () => {
  const { session_id } = await client.call('session.create', { name: 'tabs' });
  const { target_id: actTab } = await client.call('tabs.new', { session_id, url: fixtures.url('/act.html') });
  const { target_id: spare } = await client.call('tabs.new', { session_id, select: false });
  const refused = await client.callError('tabs.new', { session_id, url: fixtures.url('/child.html') });
  assertLimitError(refused, 'tabs_per_session', MAX.tabs, /tabs\.close.*--max-tabs-per-session/);
  assert.is(refused.data?.tabs, MAX.tabs);
  const tabsOf = async () => (await client.call('tabs.list', { session_id })).tabs;
  assert.is((await tabsOf()).length, MAX.tabs, 'the refused call opened nothing');

  await client.call('tabs.close', { session_id, target_id: spare });
  const { target_id: reopened } = await client.call('tabs.new', { session_id, select: false });
  assert.type(reopened, 'string', 'under the limit again: tabs.new works');

  // A page may still open a popup at the limit: it is listed (never closed behind the client's
  // back), and it counts, so tabs.new stays refused.
  const o = await client.call('observe', { session_id, target_id: actTab });
  const r = await client.call('act', { session_id, state_id: o.state_id, action: 'click', ref: ref(o, 'Open in new tab') });
  assert.ok(['completed', 'interrupted'].includes(r.status), JSON.stringify(r));
  const tabs = await until('the popup is listed', tabsOf, (list) => list.length === MAX.tabs + 1);
  assert.is(tabs.length, MAX.tabs + 1);
  assertLimitError(await client.callError('tabs.new', { session_id }), 'tabs_per_session', MAX.tabs, /tabs\.close/);
});

s('requests in flight: each batch element counts; the one past the limit is refused at once, the others run', async () => {
  const batch = Array.from({ length: MAX.pending + 2 }, (_, i) => ({ jsonrpc: '2.0', id: i + 1, method: 'server.info', params: {} }));
  const replies = JSON.parse(await client.sendRaw(JSON.stringify(batch))) as Array<{ id: number; result?: Info; error?: RpcErrorShape }>;
  assert.equal(replies.map((r) => r.id), batch.map((b) => b.id), 'every element answered, in order');
  const ok = replies.filter((r) => r.result);
  const refused = replies.filter((r) => r.error);
  assert.is(ok.length, MAX.pending);
  assert.is(refused.length, 2);
  assert.equal(refused.map((r) => r.id), [MAX.pending + 1, MAX.pending + 2], 'admitted in batch order');
  for (const r of refused) {
    assertLimitError(r.error!, 'pending_requests_per_connection', MAX.pending, /wait for their replies.*--max-pending-per-connection/);
  }
  // Exactly the limit in one batch is fine.
  const exact = JSON.parse(await client.sendRaw(JSON.stringify(batch.slice(0, MAX.pending)))) as Array<{ result?: unknown }>;
  assert.ok(exact.every((r) => r.result), 'a batch of exactly the limit runs whole');
});

s('requests in flight: separate messages count too, only on their own connection, and the count goes back to zero', async () => {
  const { session_id } = await client.call('session.create', { name: 'pending' });
  // One slow call and two queued behind it in the session: three in flight for about three seconds.
  const order: string[] = [];
  const slow = client.request('tabs.new', { session_id, url: fixtures.url('/slow?ms=3000') }).then((r) => (order.push('slow'), r));
  const queued = [1, 2].map(() => client.request('tabs.list', { session_id }));
  const refused = await client.request('server.info', {});
  order.push('refused');
  assertLimitError(refused.error as RpcErrorShape, 'pending_requests_per_connection', MAX.pending, /in flight/);

  // Another connection has its own allowance and sees the three in flight.
  const other = await server.connect();
  const seen = await other.call('server.info');
  assert.is(seen.counts['pending_requests'], MAX.pending + 1, 'three of the first connection and this call');
  other.close();

  assert.not.ok((await slow).error, JSON.stringify(await slow));
  for (const reply of await Promise.all(queued)) assert.not.ok(reply.error, JSON.stringify(reply));
  assert.equal(order, ['refused', 'slow'], 'refused at once, not after the slow call');
  const after = await client.call('server.info');
  assert.is(after.counts['pending_requests'], 1, 'under the limit again; only this call is in flight');
});

s('subscriptions: the one past --max-subscriptions-per-connection is refused until one is ended', async () => {
  const { session_id } = await client.call('session.create', { name: 'subs' });
  const ids: string[] = [];
  for (let i = 0; i < MAX.subscriptions; i++) {
    ids.push((await client.call('events.subscribe', { session_id })).subscription_id);
  }
  const refused = await client.callError('events.subscribe', { session_id, kinds: ['console'] });
  assertLimitError(refused, 'subscriptions_per_connection', MAX.subscriptions, /events\.unsubscribe.*--max-subscriptions-per-connection/);
  // The limit is per connection: another one has its own.
  const other = await server.connect();
  assert.type((await other.call('events.subscribe', { session_id })).subscription_id, 'string');
  other.close();
  await client.call('events.unsubscribe', { subscription_id: ids[0] });
  assert.type((await client.call('events.subscribe', { session_id })).subscription_id, 'string');
  assert.is((await client.call('server.info')).counts['subscriptions'], MAX.subscriptions, 'the other connection closed: its one is gone');
});

s('retained states: 8 per tab; an evicted state is refused as stale_state; server.info counts them', async () => {
  const { session_id } = await client.call('session.create', { name: 'states' });
  await client.call('tabs.new', { session_id, url: fixtures.url('/act.html') });
  const first = await client.call('observe', { session_id });
  let last = first;
  for (let i = 0; i < 10; i++) last = await client.call('observe', { session_id });
  const info = await client.call('server.info');
  assert.is(info.counts['states'], info.limits['states_kept_per_tab'], 'only the last 8 observations of the tab are kept');
  const stale = await client.call('act', { session_id, state_id: first.state_id, action: 'click', ref: ref(first, 'Count') });
  assert.is(stale.status, 'stale_observation');
  assert.is(stale.error_type, 'stale_state');
  assert.match(stale.error_text ?? '', /observe again/);
  const fresh = await client.call('act', { session_id, state_id: last.state_id, action: 'click', ref: ref(last, 'Count') });
  assert.is(fresh.status, 'completed', 'the current state still acts');
  await client.call('session.close', { session_id });
  assert.is((await client.call('server.info')).counts['states'], 0, 'a closed session takes its states with it');
});

s('retained states: one session keeps at most its cap, oldest non-current first', () => {
  const store = new StateStore({ maxRecords: 20 });
  const state = (targetId: string): NewState => ({
    targetId,
    frameId: targetId,
    frames: new Map(),
    targets: new Map(),
    elements: [],
    textHash: 0,
    dialogPending: false,
  });
  const issued: Array<{ tab: string; id: string }> = [];
  for (let round = 0; round < 8; round++) {
    for (const tab of ['A', 'B', 'C', 'D']) issued.push({ tab, id: store.issue(state(tab)).stateId });
  }
  assert.is(store.size, 20, 'capped at 20 records over 4 tabs (8 per tab would be 32)');
  for (const tab of ['A', 'B', 'C', 'D']) {
    const newest = issued.filter((i) => i.tab === tab).at(-1)!.id;
    assert.is(store.current(tab)?.stateId, newest, `tab ${tab} keeps its current state`);
  }
  const evicted = issued.slice(0, 12).map((i) => i.id);
  for (const id of evicted) {
    assert.is(store.get(id), undefined, 'the oldest records went');
    assert.ok(store.wasIssued(id), 'an evicted id is still known as issued (stale, not unknown)');
  }
  for (const { id } of issued.slice(12)) assert.ok(store.get(id), 'the newest 20 stay');
  // Current states alone past the cap: the oldest current ones go, never the one just issued.
  const small = new StateStore({ maxRecords: 3 });
  const ids = ['A', 'B', 'C', 'D', 'E'].map((tab) => small.issue(state(tab)).stateId);
  assert.is(small.size, 3);
  assert.ok(small.get(ids[4]!));
  assert.is(small.current('A'), undefined);
  assert.is(small.current('E')?.stateId, ids[4]);
});

s('server.info counts: CDP listeners, states, requests in flight and memory; listeners return after a session closes', async () => {
  const base = await client.call('server.info');
  const { session_id } = await client.call('session.create', { name: 'counts' });
  await client.call('tabs.new', { session_id, url: fixtures.url('/act.html') });
  await client.call('observe', { session_id });
  const busy = await client.call('server.info');
  for (
    const key of [
      'cdp_listeners',
      'cdp_sessions',
      'tabs',
      'states',
      'pending_requests',
      'rss_bytes',
      'heap_used_bytes',
      'subscriptions',
    ] as const
  ) {
    assert.type(busy.counts[key], 'number', key);
  }
  assert.ok(busy.counts['rss_bytes']! > busy.counts['heap_used_bytes']! && busy.counts['heap_used_bytes']! > 0);
  assert.is(busy.counts['pending_requests'], 1, 'server.info itself');
  assert.ok(busy.counts['states']! >= 1);
  assert.ok(busy.counts['cdp_listeners']! > (base.counts['cdp_listeners'] ?? 0), 'two tabs add listeners');
  await client.call('session.close', { session_id });
  const after = await until(
    'listeners back to where they were',
    () => client.call('server.info'),
    (info) => info.counts['cdp_listeners'] === base.counts['cdp_listeners'] && info.counts['tabs'] === base.counts['tabs'],
  );
  assert.is(after.counts['states'], 0);
  assert.is(after.counts['sessions'], 0);
});

s.run();
