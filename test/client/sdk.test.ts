// The SDK (src/client) against the real server and Chromium, on Node (the `ws` package) and on
// Deno (its own WebSocket): act outcomes as results and errors as typed errors, a socket killed
// mid-act (the page sees one click and the caller gets the act's real result), an answer lost on
// the way, events across a reconnect (none lost, none twice), abort and client timeouts.
// Connections are broken by a loopback TCP proxy between the SDK and the server.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import {
  type Client,
  connect,
  ConnectionError,
  isPagewireError,
  type Observation,
  RpcError,
  type SessionEvent,
  type WebSocketLike,
} from '../../src/client/index.ts';
import type { TestClient } from '../helpers/client.ts';
import type { FixtureServer } from '../helpers/fixture-server.ts';
import { watchedSuite } from '../helpers/watched-suite.ts';
import type { TestServer } from '../helpers/pagewire.ts';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.ts';

const s = suite('client SDK');
let server: TestServer;
let fixtures: FixtureServer;
let watcher: TestClient;
const { sessions } = watchedSuite(s, (context) => ({ server, fixtures, watcher } = context));

function portOf(url: string): number {
  return Number(new URL(url).port);
}

/** An SDK client through a fresh proxy, recording every frame it writes. */
async function viaProxy(options: { reconnect?: { initialDelayMs?: number; maxDelayMs?: number; giveUpAfterMs?: number } } = {}) {
  const proxy: TcpProxy = await startTcpProxy({ host: '127.0.0.1', port: portOf(server.server.url) });
  const written: string[] = [];
  const Base = (globalThis as { WebSocket?: new (url: string) => WebSocketLike }).WebSocket ??
    ((await import('ws')).WebSocket as unknown as new (url: string) => WebSocketLike);
  const client = await connect(`ws://127.0.0.1:${proxy.port}/`, {
    token: server.token,
    reconnect: { initialDelayMs: 20, maxDelayMs: 200, ...options.reconnect },
    createSocket: (url) => {
      const socket = new Base(url);
      const send = socket.send.bind(socket);
      socket.send = (data: string) => {
        written.push(data);
        send(data);
      };
      return socket;
    },
  });
  return { proxy, client, written, frames: (method: string) => written.map((f) => JSON.parse(f)).filter((f) => f.method === method) };
}

async function checkoutSession(client: Client, name: string, delay = 300) {
  const session = await client.createSession({ name });
  sessions.push(session.id!);
  await session.tabs.new({ url: fixtures.url(`/sdk/checkout.html?delay=${delay}`) });
  const observation = await session.observe();
  return { session, observation };
}

function refOf(observation: Observation, name: string): string {
  const element = observation.elements.find((e) => e.name === name);
  if (!element) throw new Error(`no element named ${name} in\n${observation.tree}`);
  return element.ref;
}

/** The watcher's view of the session's console lines (the page's own record of what happened). */
async function consoleOf(sessionId: string) {
  const { subscription_id } = await watcher.call<{ subscription_id: string }>('events.subscribe', {
    session_id: sessionId,
    kinds: ['console'],
    after_seq: 0,
  });
  const texts = () =>
    watcher.notifications
      .filter((n) => (n.params as { subscription_id: string }).subscription_id === subscription_id)
      .map((n) => String((n.params as { data: { text: string } }).data.text));
  return {
    texts,
    seen: (text: string) =>
      watcher.waitForNotification((n) => {
        const p = n.params as { subscription_id: string; data: { text?: string } };
        return p.subscription_id === subscription_id && p.data.text === text;
      }),
  };
}

s(
  'act outcomes come back as results; server errors throw RpcError with error_type; a refused socket throws connection_failed',
  async () => {
    const client = await connect(server.url);
    try {
      const { session, observation } = await checkoutSession(client, 'sdk-basic');
      const place = refOf(observation, 'Place order');
      const done = await session.act({ action: 'click', ref: place }, { state: observation, wait_for: { text: 'Order confirmed (1)' } });
      assert.is(done.status, 'verified');
      assert.ok(done.fresh_state?.tree.includes('Orders placed: 1'));
      assert.is(session.lastObservation?.state_id, done.fresh_state?.state_id);
      // The same state again: an outcome, not an exception.
      const stale = await session.act({ action: 'click', ref: place }, { state: observation });
      assert.is(stale.status, 'stale_observation');
      assert.is(stale.error_type, 'stale_state');
      // Without { state }: the handle's last observation (the fresh one of the first act).
      const again = await session.act({ action: 'click', ref: place }, { wait_for: { text: 'Order confirmed (2)' } });
      assert.is(again.status, 'verified');

      const missing = await client.session('s_not_there').observe().catch((e: unknown) => e);
      assert.instance(missing, RpcError);
      assert.is((missing as RpcError).error_type, 'session_not_found');
      assert.is((missing as RpcError).code, -32004);
      assert.ok(isPagewireError(missing, 'session_not_found'));
      const invalid = await session.act({ action: 'click', ref: 'button' }, {}).catch((e: unknown) => e);
      assert.is((invalid as RpcError).error_type, 'invalid_params');
      assert.ok(Array.isArray((invalid as RpcError).data['issues']));
    } finally {
      client.close();
    }
    const refused = await connect(server.server.url, { token: 'wrong-token' }).catch((e: unknown) => e);
    assert.instance(refused, ConnectionError);
    assert.is((refused as ConnectionError).error_type, 'connection_failed');
    assert.not.match((refused as Error).message, /wrong-token/);
  },
);

s('one call opens a page (act navigate with no observation, tabs.new with observe) and wait answers with the page', async () => {
  const client = await connect(server.url);
  try {
    const session = await client.createSession({ name: 'sdk-open-wait' });
    sessions.push(session.id!);
    await session.tabs.new();
    const navigated = await session.act({ action: 'navigate', url: fixtures.url('/autosave.html') });
    assert.is(navigated.status, 'completed', navigated.error_text);
    assert.match(navigated.fresh_state!.tree, /button "Save draft"/);
    const waited = await session.wait({ text: 'Draft restored', timeout_ms: 10_000 });
    assert.is(waited.status, 'met');
    assert.match(waited.observation.tree, /Draft restored/);
    assert.is(session.lastObservation?.state_id, waited.observation.state_id);
    const opened = await session.tabs.new({ url: fixtures.url('/autosave.html?restore_ms=60000'), observe: true });
    assert.is(session.lastObservation?.state_id, opened.observation!.state_id);
    const unmet = await session.wait({ text: 'Draft restored', timeout_ms: 300 });
    assert.is(unmet.status, 'condition_not_met');
    // back, forward and reload alone need no observation either, on a handle that saw nothing.
    const bare = client.session(session.id!);
    const reloaded = await bare.act({ action: 'reload' });
    assert.is(reloaded.status, 'completed', reloaded.error_text);
    assert.match(reloaded.fresh_state!.tree, /button "Save draft"/);
    const refused = await client.session(session.id!).act({ action: 'scroll', delta_y: 0 }).then(() => undefined, (e: Error) => e);
    assert.match(String(refused), /needs an observation/);
  } finally {
    client.close();
  }
});

s('a big page in parts: observe with max_bytes, then its cursor, every element once', async () => {
  const client = await connect(server.url);
  try {
    const session = await client.createSession({ name: 'sdk-parts' });
    sessions.push(session.id!);
    await session.tabs.new({ url: fixtures.url('/large-table.html') });
    const whole = await session.observe();
    let part = await session.observe({ max_bytes: 4096 });
    const refs = part.elements.map((e) => e.ref);
    while (part.next_cursor) {
      part = await session.observe({ cursor: part.next_cursor, max_bytes: 4096 });
      refs.push(...part.elements.map((e) => e.ref));
      assert.is(session.lastObservation?.state_id, part.state_id);
    }
    assert.ok(refs.length > 0);
    assert.equal(refs, whole.elements.map((e) => e.ref));
  } finally {
    client.close();
  }
});

s('an annotated screenshot through the SDK: state_id and not_drawn typed as the wire has them', async () => {
  const client = await connect(server.url);
  try {
    const session = await client.createSession({ name: 'sdk-annotate' });
    sessions.push(session.id!);
    const { observation } = await session.tabs.new({ url: fixtures.url('/team-console.html'), observe: true });
    const shot = await session.screenshot({
      annotate: true,
      refs: [refOf(observation!, 'Invite member'), refOf(observation!, 'Export members (CSV)')],
    });
    assert.is(shot.state_id, observation!.state_id);
    assert.equal(shot.not_drawn, [refOf(observation!, 'Export members (CSV)')]);
    const refused = await session.screenshot({ annotate: true, refs: ['@999'] }).then(() => undefined, (e: RpcError) => e);
    assert.is(refused?.error_type, 'invalid_params');
  } finally {
    client.close();
  }
});

s('pdf: the tab printed to a file in the session folder; bad ranges are an RpcError invalid_params', async () => {
  const client = await connect(server.url);
  try {
    const session = await client.createSession({ name: 'sdk-pdf' });
    sessions.push(session.id!);
    await session.tabs.new({ url: fixtures.url('/invoice.html') });
    const pdf = await session.pdf({ landscape: true, paper: 'a4', ranges: '2-3' });
    assert.is(pdf.pages, 2);
    assert.ok(pdf.size > 1000 && pdf.path.includes(`/${session.id}/`) && pdf.path.endsWith('.pdf'), JSON.stringify(pdf));
    const refused = await session.pdf({ ranges: 'all' }).then(() => undefined, (e: unknown) => e);
    assert.ok(refused instanceof RpcError && refused.error_type === 'invalid_params', String(refused));
  } finally {
    client.close();
  }
});

s("observe({format: 'markdown'}): the main content as Markdown; an act without a state acts on it", async () => {
  const client = await connect(server.url);
  try {
    const reader = await client.createSession({ name: 'sdk-markdown' });
    sessions.push(reader.id!);
    await reader.tabs.new({ url: fixtures.url('/release-notes.html') });
    const page = await reader.observe({ format: 'markdown' });
    assert.is(page.tree, '');
    const ref = /\[migration guide\]\((@\d+)\)/.exec(page.markdown ?? '')?.[1];
    assert.ok(ref, page.markdown);
    const clicked = await reader.act({ action: 'click', ref: ref! });
    assert.ok(clicked.status === 'completed' || clicked.status === 'verified', JSON.stringify(clicked));
  } finally {
    client.close();
  }
});

s('the network log and storage state through the SDK: a signed-in state moves to a new session', async () => {
  const client = await connect(server.url);
  try {
    const shopper = await client.createSession({ name: 'sdk-shopper' });
    sessions.push(shopper.id!);
    const { last_seq } = await shopper.network();
    await shopper.tabs.new({ url: fixtures.url('/session/login?user=carol') });
    const { entries } = await shopper.network({ since: last_seq });
    assert.ok(entries.some((e) => e.url === fixtures.url('/session/login') && e.status === 302), JSON.stringify(entries));
    const state = await shopper.storageState();
    assert.ok(state.cookies.some((c) => c.name === 'sid' && c.value.startsWith('carol-') && c.httpOnly));
    const returning = await client.createSession({ name: 'sdk-returning', storage_state: state });
    sessions.push(returning.id!);
    await returning.tabs.new({ url: fixtures.url('/storage-app.html') });
    const seen = await returning.observe({ include_text: true });
    assert.match(seen.text ?? '', /Who: carol/);
  } finally {
    client.close();
  }
});

s(
  'a socket killed mid-act: the SDK reconnects, re-sends the act with the same request_id, the page saw one click, and the caller gets the real result',
  async () => {
    const { proxy, client, frames } = await viaProxy();
    try {
      const { session, observation } = await checkoutSession(client, 'sdk-kill', 1200);
      const log = await consoleOf(session.id!);
      const acting = session.act({ action: 'click', ref: refOf(observation, 'Place order') }, {
        state: observation,
        wait_for: { text: 'Order confirmed (1)' },
      });
      await log.seen('order clicked 1');
      proxy.cut();
      const result = await acting;
      assert.is(result.status, 'verified', JSON.stringify(result).slice(0, 400));
      assert.ok(result.fresh_state?.tree.includes('Orders placed: 1'));
      assert.is(client.reconnects, 1);
      const acts = frames('act');
      assert.is(acts.length, 2, 'sent once, then once more on the new socket');
      assert.is(acts[0].params.request_id, acts[1].params.request_id);
      assert.match(acts[0].params.request_id, /^sdk_[0-9a-f]{32}$/);
      await log.seen('order confirmed 1');
      assert.equal(log.texts().filter((t) => t.startsWith('order clicked')), ['order clicked 1']);
    } finally {
      client.close();
    }
  },
);

s("an act's answer lost on the way: the re-sent act is answered from the request_id record (replayed), nothing runs twice", async () => {
  const { proxy, client, frames } = await viaProxy();
  try {
    const { session, observation } = await checkoutSession(client, 'sdk-lost-reply', 100);
    const log = await consoleOf(session.id!);
    const lost = proxy.swallowReplies();
    const acting = session.act({ action: 'click', ref: refOf(observation, 'Place order') }, {
      state: observation,
      wait_for: { text: 'Order confirmed (1)' },
    });
    await lost; // the server answered; the answer never reached the SDK
    proxy.cut();
    const result = await acting;
    assert.is(result.status, 'verified');
    assert.is(result.replayed, true);
    assert.is(frames('act').length, 2);
    const after = await session.observe();
    assert.ok(after.tree.includes('Orders placed: 1'), after.tree);
    assert.equal(log.texts().filter((t) => t.startsWith('order clicked')), ['order clicked 1']);
  } finally {
    client.close();
  }
});

s('reads in flight are re-sent after a drop; a call that must not run twice fails with connection_lost instead', async () => {
  const { proxy, client, frames } = await viaProxy();
  try {
    const { session, observation } = await checkoutSession(client, 'sdk-reads', 1200);
    const log = await consoleOf(session.id!);
    const acting = session.act({ action: 'click', ref: refOf(observation, 'Place order') }, {
      state: observation,
      wait_for: { text: 'Order confirmed (1)' },
    });
    await log.seen('order clicked 1');
    const opened = frames('tabs.new').length;
    // Both wait behind the act in the session's queue on the server.
    const reading = session.tabs.list();
    reading.catch(() => {});
    acting.catch(() => {});
    const opening = session.tabs.new({ url: 'about:blank' });
    const openingFailed = opening.then(
      () => undefined,
      (e: unknown) => e,
    );
    // Written at once on the open socket: both are on the wire when it drops.
    assert.is(frames('tabs.list').length, 1);
    assert.is(frames('tabs.new').length, opened + 1);
    proxy.cut();
    const [tabs, openError, act] = await Promise.all([reading, openingFailed, acting]);
    assert.is(act.status, 'verified');
    assert.ok(tabs.tabs.length >= 2);
    assert.is(frames('tabs.list').length, 2, 'the read was written again');
    assert.is(frames('tabs.new').length, opened + 1, 'tabs.new was not');
    assert.instance(openError, ConnectionError);
    assert.is((openError as ConnectionError).error_type, 'connection_lost');
  } finally {
    client.close();
  }
});

s(
  'abort: an act aborted mid-flight sends cancel and returns outcome_unknown at once; aborted reads reject with the reason; client budgets',
  async () => {
    const client = await connect(server.url, { graceMs: 3000 });
    try {
      const { session, observation } = await checkoutSession(client, 'sdk-abort', 100);
      const log = await consoleOf(session.id!);
      const controller = new AbortController();
      const started = Date.now();
      const acting = session.act(
        { action: 'click', ref: refOf(observation, 'Place order') },
        { state: observation, wait_for: { text: 'This never appears' }, timeout_ms: 20_000, signal: controller.signal },
      );
      await log.seen('order clicked 1');
      controller.abort();
      const result = await acting;
      assert.ok(Date.now() - started < 5_000, `took ${Date.now() - started} ms`);
      assert.is(result.status, 'outcome_unknown');
      assert.is(result.error_type, 'operation_cancelled');
      // The session is free again: the cancel reached the server.
      const next = await session.observe({ timeoutMs: 5_000 });
      assert.ok(next.tree.includes('Orders placed: 1'));

      const early = new AbortController();
      early.abort(new Error('not now'));
      const notSent = await session.act({ action: 'click', ref: refOf(next, 'Place order') }, { signal: early.signal });
      assert.is(notSent.status, 'outcome_unknown');
      assert.is(notSent.execution, 'not_dispatched');
      const readAborted = await session.observe({ signal: early.signal }).catch((e: unknown) => e);
      assert.is((readAborted as Error).message, 'not now');

      // A read queued behind a long act on the server runs out of its client-side budget.
      const slow = session.act({ action: 'click', ref: refOf(next, 'Place order') }, {
        wait_for: { text: 'Order confirmed (2)' },
        timeout_ms: 20_000,
      });
      await log.seen('order clicked 2');
      await session.cancel();
      const slowResult = await slow;
      assert.is(slowResult.status, 'outcome_unknown');
      const blocker = session.act(
        { action: 'click', ref: refOf(await session.observe(), 'Place order') },
        { wait_for: { text: 'This never appears' }, timeout_ms: 20_000 },
      );
      await log.seen('order clicked 3');
      const timedOut = await session.tabs.list({ timeoutMs: 300 }).catch((e: unknown) => e);
      assert.is((timedOut as ConnectionError).error_type, 'client_timeout');
      await session.cancel();
      assert.is((await blocker).status, 'outcome_unknown');
    } finally {
      client.close();
    }
  },
);

s(
  'events across a reconnect: every event once, in order, for a stream with afterSeq and for a live-only one that had seen none yet',
  async () => {
    const { proxy, client } = await viaProxy();
    try {
      const { session, observation } = await checkoutSession(client, 'sdk-events');
      const tick = refOf(observation, 'Log tick');
      // The page is driven by another client on its own socket, which the proxy does not touch.
      let state = observation.state_id;
      const clickTick = async () => {
        const result = await watcher.call<{ status: string; fresh_state: { state_id: string } }>('act', {
          session_id: session.id,
          state_id: state,
          action: 'click',
          ref: tick,
        });
        assert.is(result.status, 'completed');
        state = result.fresh_state.state_id;
      };
      const all = session.events({ kinds: ['console'], afterSeq: 0 });
      await all.ready;
      const received: SessionEvent[] = [];
      const take = async (n: number, stream = all, into = received) => {
        for (let i = 0; i < n; i++) {
          const next = await stream.next();
          assert.not.ok(next.done);
          into.push(next.value as SessionEvent);
        }
      };
      for (let i = 0; i < 3; i++) await clickTick();
      await take(3);
      const liveOnly = session.events({ kinds: ['console'] });
      await liveOnly.ready;
      proxy.refuse(true);
      proxy.cut();
      for (let i = 0; i < 3; i++) await clickTick(); // published while the SDK is away
      proxy.refuse(false);
      await take(3);
      for (let i = 0; i < 2; i++) await clickTick();
      await take(2);
      const texts = received.map((e) => (e.kind === 'console' ? e.data.text : e.kind));
      assert.equal(texts, ['tick 1', 'tick 2', 'tick 3', 'tick 4', 'tick 5', 'tick 6', 'tick 7', 'tick 8']);
      const seqs = received.map((e) => e.seq);
      assert.equal([...seqs].sort((a, b) => a - b), seqs);
      assert.is(new Set(seqs).size, seqs.length);
      assert.ok(client.reconnects >= 1);
      const live: SessionEvent[] = [];
      await take(5, liveOnly, live);
      assert.equal(
        live.map((e) => (e.kind === 'console' ? e.data.text : e.kind)),
        ['tick 4', 'tick 5', 'tick 6', 'tick 7', 'tick 8'],
      );
      await all.return();
      await liveOnly.return();
      assert.is((await all.next()).done, true);
    } finally {
      client.close();
    }
  },
);

s('pollEvents: one long poll of the retained events, resumed with last_seq, each event once', async () => {
  const client = await connect(server.url);
  try {
    const { session, observation } = await checkoutSession(client, 'sdk-poll');
    const start = await session.pollEvents();
    assert.equal(start.events, []);
    const waiting = session.pollEvents({ after_seq: start.last_seq, kinds: ['console'], wait_ms: 30_000 });
    await session.act({ action: 'click', ref: refOf(observation, 'Log tick') });
    const first = await waiting;
    assert.equal(first.events.map((e) => (e.kind === 'console' ? e.data.text : e.kind)), ['tick 1']);
    const next = await session.pollEvents({ after_seq: first.last_seq, kinds: ['console'] });
    assert.equal(next.events, []);
  } finally {
    client.close();
  }
});

s('a server that stays away: after giveUpAfterMs, calls waiting for the socket and event streams fail with connection_closed', async () => {
  const { proxy, client } = await viaProxy({ reconnect: { giveUpAfterMs: 400 } });
  const session = await client.createSession({ name: 'sdk-give-up' });
  sessions.push(session.id!);
  const stream = session.events({ kinds: ['console'] });
  await stream.ready;
  proxy.refuse(true);
  proxy.cut();
  const [info, next] = await Promise.all([client.serverInfo().catch((e: unknown) => e), stream.next().catch((e: unknown) => e)]);
  assert.is((info as ConnectionError).error_type, 'connection_closed');
  assert.is((next as ConnectionError).error_type, 'connection_closed');
  assert.match((info as Error).message, /could not reconnect/);
  assert.ok(proxy.accepted === 1, 'the refused attempts never got through');
  proxy.refuse(false);
});

s.run();
