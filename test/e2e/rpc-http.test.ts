// The HTTP door, POST /rpc (PROTOCOL.md §13), from curl-style clients: the same checks and answers
// as the WebSocket (Host, Origin, token; parse errors, batches, limits as JSON-RPC answers), the
// statuses of what HTTP itself refuses (401, 403, 405, 413, 415), an act re-sent with its
// request_id answered from its record, and events.poll (§9), the long poll for clients without a
// socket: nothing lost or read twice between polls, the wait ending with an event, a closed
// session or the caller going away.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { replyProblem } from '../helpers/wire-check.ts';
import { type Answer, exchange } from '../helpers/http-exchange.ts';
import { type FixtureServer, fixtureServer } from '../helpers/fixture-server.ts';
import { watchedSuite } from '../helpers/watched-suite.ts';
import { startTestServer, type TestServer } from '../helpers/pagewire.ts';
import type { TestClient } from '../helpers/client.ts';

const s = suite('POST /rpc and events.poll');
let server: TestServer;
let fixtures: FixtureServer;
let watcher: TestClient;
const { sessions } = watchedSuite(s, (context) => ({ server, fixtures, watcher } = context));

const JSON_TYPE = { 'content-type': 'application/json' };

function bearer(token = server.token): Record<string, string> {
  return { ...JSON_TYPE, authorization: `Bearer ${token}` };
}

let nextId = 1;
/** One call over POST /rpc; its reply is checked strictly against the method's schema. */
async function rpc(method: string, params: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
  const answer = await exchange(server.server.rpcUrl, 'POST', bearer(), JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params }));
  assert.is(answer.status, 200, answer.body);
  assert.is(answer.headers['content-type'], 'application/json');
  const reply = JSON.parse(answer.body) as Record<string, unknown>;
  assert.is(replyProblem(method, reply), undefined);
  return reply;
}

async function result<T = Record<string, unknown>>(method: string, params: Record<string, unknown> = {}): Promise<T> {
  const reply = await rpc(method, params);
  assert.ok(reply['result'] !== undefined, JSON.stringify(reply));
  return reply['result'] as T;
}

async function newSession(name: string): Promise<string> {
  const { session_id } = await result<{ session_id: string }>('session.create', { name });
  sessions.push(session_id);
  return session_id;
}

s('the same checks as the socket, in the same order: Host and Origin 403, token 401, then what HTTP refuses: 405, 415, 413', async () => {
  const url = server.server.rpcUrl;
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'server.info' });
  const status = (answer: Answer) => `${answer.status} ${answer.body.trim()}`;
  assert.is(status(await exchange(url, 'POST', { ...bearer(), host: 'evil.example' }, body)), '403 host not allowed');
  assert.is(status(await exchange(url, 'POST', { ...bearer(), origin: 'http://evil.example' }, body)), '403 origin not allowed');
  // A bad Host is refused before a missing token is noticed.
  assert.is((await exchange(url, 'POST', { ...JSON_TYPE, host: 'evil.example' }, body)).status, 403);
  const noToken = await exchange(url, 'POST', JSON_TYPE, body);
  assert.is(status(noToken), '401 missing or wrong token');
  assert.is(noToken.headers['www-authenticate'], 'Bearer');
  const wrong = await exchange(url, 'POST', bearer('not-the-token'), body);
  assert.is(wrong.status, 401);
  assert.not.match(wrong.body, 'not-the-token');
  // The query's token works too; the header wins over it.
  assert.is((await exchange(`${url}?token=${server.token}`, 'POST', JSON_TYPE, body)).status, 200);
  assert.is((await exchange(`${url}?token=${server.token}`, 'POST', bearer('wrong'), body)).status, 401);

  const get = await exchange(url, 'GET', { authorization: `Bearer ${server.token}` });
  assert.is(get.status, 405);
  assert.is(get.headers['allow'], 'POST');
  assert.is((await exchange(url, 'POST', { authorization: `Bearer ${server.token}`, 'content-type': 'text/plain' }, body)).status, 415);
  assert.is((await exchange(url, 'POST', { ...bearer(), 'content-type': 'application/json; charset=utf-8' }, body)).status, 200);
  const big = await exchange(
    url,
    'POST',
    bearer(),
    JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'server.info', params: { x: 'x'.repeat(1024 * 1024) } }),
  );
  assert.is(big.status, 413);
  assert.match(big.body, 'too large');
  // The listener still serves after each refusal.
  assert.is((await exchange(url, 'POST', bearer(), body)).status, 200);
});

s('the body is a socket frame: parse errors, batches, notifications and limits are the same JSON-RPC answers', async () => {
  const url = server.server.rpcUrl;
  const parse = await exchange(url, 'POST', bearer(), '{"jsonrpc": "2.0", "id": 1, "method": ');
  assert.is(parse.status, 200);
  assert.equal(JSON.parse(parse.body).error.data.error_type, 'parse_error');
  const batch = await exchange(
    url,
    'POST',
    bearer(),
    JSON.stringify([
      { jsonrpc: '2.0', id: 'a', method: 'server.info' },
      { jsonrpc: '2.0', method: 'session.list' },
      { jsonrpc: '2.0', id: 'b', method: 'no.such.method' },
      { jsonrpc: '2.0', id: 'c', method: 'observe', params: [] },
    ]),
  );
  const replies = JSON.parse(batch.body) as Array<{ id: string; result?: { name: string }; error?: { data: { error_type: string } } }>;
  assert.equal(replies.map((r) => r.id), ['a', 'b', 'c']);
  assert.is(replies[0]!.result?.name, 'pagewire');
  assert.is(replies[1]!.error?.data.error_type, 'method_not_found');
  assert.is(replies[2]!.error?.data.error_type, 'invalid_params');
  const notification = await exchange(url, 'POST', bearer(), JSON.stringify({ jsonrpc: '2.0', method: 'server.info' }));
  assert.is(notification.status, 204);
  assert.is(notification.body, '');
  const deep = await exchange(
    url,
    'POST',
    bearer(),
    `{"jsonrpc":"2.0","id":7,"method":"server.info","params":{"a":${'['.repeat(200)}${']'.repeat(200)}}}`,
  );
  assert.equal(JSON.parse(deep.body).error.data, { error_type: 'invalid_request', limit: 'nesting_depth', max: 128 });
  // One HTTP request is one connection: the pending limit counts its batch's elements.
  const limited = await startTestServer(['--max-pending-per-connection', '2']);
  const three = await exchange(
    limited.server.rpcUrl,
    'POST',
    bearer(limited.token),
    JSON.stringify([1, 2, 3].map((id) => ({ jsonrpc: '2.0', id, method: 'server.info' }))),
  );
  const answers = JSON.parse(three.body) as Array<{ result?: unknown; error?: { data: { limit?: string } } }>;
  assert.equal(answers.map((a) => a.error?.data.limit ?? 'ok'), ['ok', 'ok', 'pending_requests_per_connection']);
  // What needs a lasting connection is refused, with the way to go instead.
  const subscribe = await rpc('events.subscribe', {});
  assert.is((subscribe['error'] as { data: { error_type: string } }).data.error_type, 'invalid_request');
  assert.match((subscribe['error'] as { message: string }).message, 'events.poll');
  const screencast = await rpc('screencast.start', {});
  assert.is((screencast['error'] as { data: { error_type: string } }).data.error_type, 'invalid_request');
});

s('a session over HTTP: open, observe, act; an act re-sent with its request_id is answered from its record and runs once', async () => {
  const sessionId = await newSession('rpc-http-act');
  await result('tabs.new', { session_id: sessionId, url: fixtures.url('/sdk/checkout.html?delay=50') });
  const seen = await result<{ state_id: string; elements: Array<{ ref: string; name: string }> }>('observe', { session_id: sessionId });
  const place = seen.elements.find((e) => e.name === 'Place order')!.ref;
  const act = {
    session_id: sessionId,
    state_id: seen.state_id,
    action: 'click',
    ref: place,
    wait_for: { text: 'Order confirmed (1)' },
    request_id: 'http-once-1',
  };
  const first = await result<{ status: string; replayed?: boolean; fresh_state: { tree: string } }>('act', act);
  assert.is(first.status, 'verified');
  const again = await result<{ status: string; replayed?: boolean }>('act', act);
  assert.is(again.status, 'verified');
  assert.is(again.replayed, true);
  const after = await result<{ tree: string }>('observe', { session_id: sessionId });
  assert.match(after.tree, 'Orders placed: 1');
  // The WebSocket sees the same session: one method table, one set of sessions.
  const { sessions: listed } = await watcher.call('session.list');
  assert.ok(listed.some((one) => one.session_id === sessionId));
});

s(
  'events.poll: retained events after after_seq, resumed with last_seq (each once), kinds, and a wait that ends with the first event',
  async () => {
    const sessionId = await newSession('rpc-http-poll');
    await result('tabs.new', { session_id: sessionId, url: fixtures.url('/sdk/checkout.html') });
    let state = (await result<{ state_id: string }>('observe', { session_id: sessionId })).state_id;
    const tick = async () => {
      const observed = await watcher.call('observe', { session_id: sessionId });
      const ref = observed.elements.find((e) => e.name === 'Log tick')!.ref;
      const acted = await watcher.call('act', { session_id: sessionId, state_id: observed.state_id, action: 'click', ref });
      state = acted.fresh_state!.state_id;
    };
    // Omitted after_seq: nothing retained, only what comes; a wait of 0 answers at once.
    const start = await result<{ events: unknown[]; last_seq: number; evicted: number }>('events.poll', { session_id: sessionId });
    assert.equal(start.events, []);
    assert.ok(start.last_seq > 0, 'the tab opened and navigated: the session has events');
    assert.is(start.evicted, 0);

    await tick();
    await tick();
    type Poll = { events: Array<{ seq: number; kind: string; data: { text?: string } }>; last_seq: number; evicted: number };
    const first = await result<Poll>('events.poll', { session_id: sessionId, after_seq: start.last_seq, kinds: ['console'] });
    assert.equal(first.events.map((e) => e.data.text), ['tick 1', 'tick 2']);
    assert.ok(first.last_seq >= first.events.at(-1)!.seq, 'last_seq covers the acts that were not asked for too');
    // The same after_seq reads the same events again; last_seq reads none of them twice.
    const again = await result<Poll>('events.poll', { session_id: sessionId, after_seq: start.last_seq, kinds: ['console'] });
    assert.equal(again.events.map((e) => e.seq), first.events.map((e) => e.seq));
    const none = await result<Poll>('events.poll', { session_id: sessionId, after_seq: first.last_seq, kinds: ['console'] });
    assert.equal(none.events, []);

    // A long poll answers when the first event of its kinds comes, not at the end of its wait.
    const started = Date.now();
    const waiting = result<Poll>('events.poll', { session_id: sessionId, after_seq: first.last_seq, kinds: ['console'], wait_ms: 30_000 });
    await tick();
    const woken = await waiting;
    assert.equal(woken.events.map((e) => e.data.text), ['tick 3']);
    assert.ok(Date.now() - started < 15_000, `took ${Date.now() - started} ms`);
    // A wait with nothing coming ends empty, at its end.
    const empty = await result<Poll>('events.poll', { session_id: sessionId, after_seq: woken.last_seq, kinds: ['dialog'], wait_ms: 200 });
    assert.equal(empty.events, []);
    assert.ok(empty.last_seq >= woken.last_seq);
    void state;
  },
);

s('events.poll ends its wait when the session closes (with session_closed) and when its caller goes away', async () => {
  const sessionId = await newSession('rpc-http-poll-close');
  const { last_seq } = await result<{ last_seq: number }>('events.poll', { session_id: sessionId });
  const waiting = result<{ events: Array<{ kind: string; data: { reason?: string } }> }>('events.poll', {
    session_id: sessionId,
    after_seq: last_seq,
    wait_ms: 60_000,
  });
  await watcher.call('session.close', { session_id: sessionId });
  const closed = await waiting;
  assert.equal(closed.events.map((e) => [e.kind, e.data.reason]), [['session_closed', 'closed_by_client']]);
  const gone = await rpc('events.poll', { session_id: sessionId });
  assert.is((gone['error'] as { data: { error_type: string } }).data.error_type, 'session_not_found');

  // A caller that goes away: its poll no longer counts as a request in flight.
  const other = await newSession('rpc-http-poll-gone');
  const pending = async () => (await watcher.call('server.info')).counts.pending_requests ?? 0;
  const before = await pending();
  const controller = new AbortController();
  const polling = fetch(server.server.rpcUrl, {
    method: 'POST',
    headers: bearer(),
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'events.poll', params: { session_id: other, wait_ms: 60_000 } }),
    signal: controller.signal,
  }).catch((error: unknown) => error);
  for (let i = 0; (await pending()) === before && i < 200; i++) await new Promise((resolve) => setTimeout(resolve, 10));
  assert.is(await pending(), before + 1, 'the poll is waiting');
  controller.abort();
  await polling;
  let now = await pending();
  for (let i = 0; now !== before && i < 200; i++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
    now = await pending();
  }
  assert.is(now, before, 'the poll ended with its request');
});

s('CORS: a page of an accepted Origin may POST /rpc with its token in a header; its preflight carries no token', async () => {
  const pages = await fixtureServer();
  const allowed = await startTestServer(['--allow-origin', pages.origin]);
  const url = allowed.server.rpcUrl;
  const pre = await exchange(url, 'OPTIONS', {
    origin: pages.origin,
    'access-control-request-method': 'POST',
    'access-control-request-headers': 'authorization,content-type',
  });
  assert.is(pre.status, 204);
  assert.is(pre.headers['access-control-allow-origin'], pages.origin);
  assert.is(pre.headers['access-control-allow-methods'], 'POST');
  assert.is(pre.headers['access-control-allow-headers'], 'authorization, content-type, pagewire-instance');
  const call = await exchange(
    url,
    'POST',
    { ...bearer(allowed.token), origin: pages.origin },
    JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'server.info' }),
  );
  assert.is(call.status, 200);
  assert.is(call.headers['access-control-allow-origin'], pages.origin);
  assert.is(call.headers['vary'], 'Origin');
  const refused = await exchange(url, 'OPTIONS', { origin: pages.otherOrigin, 'access-control-request-method': 'POST' });
  assert.is(refused.status, 403);
  assert.is(refused.headers['access-control-allow-origin'], undefined);
});

s.run();
