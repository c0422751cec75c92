// Sessions, tabs and frames against real Chromium (PROTOCOL.md §4, §5).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { fixtureServer } from '../helpers/fixture-server.ts';
import { sharedServer, startTestServer } from '../helpers/pagewire.ts';
import type { TestClient } from '../helpers/client.ts';
import { waitUntil, within } from '../helpers/wait.ts';
import { type FrameSummary as Frame, type Observation, ref } from '../helpers/wire.ts';
import { evaluate, sentDuring } from '../helpers/page.ts';

const s = suite('sessions, tabs and frames');
let client: TestClient;

s.before(async () => {
  client = await (await sharedServer()).connect();
});
s.after(() => client.close());

async function newSession(name = 'e2e'): Promise<{ session_id: string; target_id: string }> {
  return client.call('session.create', { name });
}

/**
 * frames.list until `predicate` holds: child frames load after DOMContentLoaded of their parent,
 * and no client-visible event marks that yet, so this polls within a 10 s bound.
 */
function framesUntil(sessionId: string, predicate: (frames: Frame[]) => boolean): Promise<Frame[]> {
  return waitUntil(async () => (await client.call('frames.list', { session_id: sessionId })).frames, predicate, {
    what: 'the child frames',
  });
}

s('session.create opens one selected about:blank tab', async () => {
  const { session_id, target_id } = await newSession();
  assert.type(session_id, 'string');
  const { tabs } = await client.call('tabs.list', { session_id });
  assert.is(tabs.length, 1);
  assert.is(tabs[0]!.target_id, target_id);
  assert.is(tabs[0]!.url, 'about:blank');
  assert.ok(tabs[0]!.selected);
  await client.call('session.close', { session_id });
});

s('tabs.new with a URL waits for the page, lists it with its title, and frames.list shows its iframe', async () => {
  const fixtures = await fixtureServer();
  const { session_id } = await newSession();
  const { target_id } = await client.call('tabs.new', {
    session_id,
    url: fixtures.url('/with-iframe.html?secret=1#frag'),
  });
  const { tabs } = await client.call('tabs.list', { session_id });
  assert.is(tabs.length, 2);
  const tab = tabs.find((t) => t.target_id === target_id)!;
  assert.is(tab.title, 'Frames fixture');
  assert.is(tab.url, fixtures.url('/with-iframe.html'), 'query and fragment are redacted');
  assert.ok(tab.selected, 'a new tab is selected by default');
  const frames = await framesUntil(session_id, (f) => f.some((x) => x.url.endsWith('/child.html')));
  assert.is(frames[0]!.frame_id, target_id, 'the main frame comes first and has the target id');
  assert.is(frames[0]!.parent_frame_id, null);
  const child = frames.find((f) => f.url.endsWith('/child.html'));
  assert.ok(child, JSON.stringify(frames));
  assert.is(child!.parent_frame_id, target_id);
  assert.is(child!.name, 'childframe');
  assert.is(child!.cross_process, false);
  await client.call('session.close', { session_id });
});

s('a cross-site iframe is listed as cross_process', async () => {
  const fixtures = await fixtureServer();
  const { session_id } = await newSession();
  await client.call('tabs.new', { session_id, url: fixtures.url('/cross-site.html') });
  const frames = await framesUntil(session_id, (f) => f.some((x) => x.cross_process && x.url.includes('localhost')));
  const remote = frames.find((f) => f.cross_process);
  assert.ok(remote, JSON.stringify(frames));
  assert.is(remote!.url, fixtures.otherUrl('/child.html'));
  assert.is(remote!.parent_frame_id, frames[0]!.frame_id);
  await client.call('session.close', { session_id });
});

s('tabs.new with select:false keeps the selection; tabs.select moves it; explicit ids never fall back', async () => {
  const { session_id, target_id: first } = await newSession();
  const { target_id: second } = await client.call('tabs.new', { session_id, select: false });
  let { tabs } = await client.call('tabs.list', { session_id });
  assert.equal(tabs.map((t) => t.selected), [true, false]);
  await client.call('tabs.select', { session_id, target_id: second });
  ({ tabs } = await client.call('tabs.list', { session_id }));
  assert.equal(tabs.find((t) => t.selected)?.target_id, second);
  // An explicit frame list of the other tab does not change the selection.
  await client.call('frames.list', { session_id, target_id: first });
  ({ tabs } = await client.call('tabs.list', { session_id }));
  assert.equal(tabs.find((t) => t.selected)?.target_id, second);
  const unknown = await client.callError('frames.list', { session_id, target_id: 'NOPE' });
  assert.is(unknown.data?.error_type, 'target_not_found');
  assert.is(unknown.code, -32005);
  const badFrame = await client.callError('frames.select', { session_id, frame_id: 'NOPE' });
  assert.is(badFrame.data?.error_type, 'frame_not_found');
  assert.is(badFrame.code, -32006);
  await client.call('session.close', { session_id });
});

s('tabs.close closes a tab, refuses the last one, and a closed tab is target_not_found', async () => {
  const { session_id, target_id: first } = await newSession();
  const { target_id: second } = await client.call('tabs.new', { session_id });
  assert.equal(await client.call('tabs.close', { session_id, target_id: second }), { closed: true });
  const { tabs } = await client.call('tabs.list', { session_id });
  assert.equal(tabs.map((t) => t.target_id), [first]);
  assert.ok(tabs[0]!.selected, 'the selection falls back to a remaining tab');
  const gone = await client.callError('tabs.select', { session_id, target_id: second });
  assert.is(gone.data?.error_type, 'target_not_found');
  const last = await client.callError('tabs.close', { session_id, target_id: first });
  assert.is(last.data?.error_type, 'last_tab');
  assert.is(last.code, -32008);
  await client.call('session.close', { session_id });
});

s('a tab of another session is target_not_found, never borrowed', async () => {
  const a = await newSession('a');
  const b = await newSession('b');
  const error = await client.callError('tabs.select', { session_id: a.session_id, target_id: b.target_id });
  assert.is(error.data?.error_type, 'target_not_found');
  await client.call('session.close', { session_id: a.session_id });
  await client.call('session.close', { session_id: b.session_id });
});

s('two sessions do not share cookies', async () => {
  const fixtures = await fixtureServer();
  const a = await newSession('cookies-a');
  const b = await newSession('cookies-b');
  await client.call('tabs.new', { session_id: a.session_id, url: fixtures.url('/cookie/set?v=alpha') });
  await client.call('tabs.new', { session_id: a.session_id, url: fixtures.url('/cookie/show') });
  await client.call('tabs.new', { session_id: b.session_id, url: fixtures.url('/cookie/show') });
  const titles = async (sessionId: string) => (await client.call('tabs.list', { session_id: sessionId })).tabs.map((t) => t.title);
  assert.ok((await titles(a.session_id)).includes('cookie alpha'), 'the session that set the cookie sees it');
  assert.ok((await titles(b.session_id)).includes('cookie none'), 'the other session does not');
  await client.call('session.close', { session_id: a.session_id });
  await client.call('session.close', { session_id: b.session_id });
});

s('session.list shows own sessions only; another principal is forbidden on every call', async () => {
  const server = await startTestServer(['--token', 'alice-token-123', '--token', 'bob-token-4567']);
  const alice = await (await import('../helpers/client.ts')).TestClient.connect(
    server.server.url + '?token=alice-token-123',
  );
  const bob = await (await import('../helpers/client.ts')).TestClient.connect(server.server.url, {
    headers: { authorization: 'Bearer bob-token-4567' },
  });
  const { session_id } = await alice.call('session.create', { name: 'mine' });
  const aliceList = await alice.call(
    'session.list',
  );
  assert.equal(aliceList.sessions.map((x) => x.session_id), [session_id]);
  assert.is(aliceList.sessions[0]!.tabs, 1);
  assert.is(aliceList.sessions[0]!.clients, 1);
  const bobList = await bob.call('session.list');
  assert.equal(bobList.sessions, []);
  for (
    const [method, params] of [
      ['tabs.list', { session_id }],
      ['tabs.new', { session_id }],
      ['frames.list', { session_id }],
      ['session.close', { session_id }],
    ] as const
  ) {
    const error = await bob.callError(method, params);
    assert.is(error.data?.error_type, 'forbidden', method);
    assert.is(error.code, -32001);
  }
  const missing = await alice.callError('tabs.list', { session_id: 's_missing' });
  assert.is(missing.data?.error_type, 'session_not_found');
  assert.is(missing.code, -32004);
  alice.close();
  bob.close();
  await server.server.close();
});

s("calls without session_id use the principal's lazily created default session", async () => {
  const server = await startTestServer();
  const c = await server.connect();
  // Concurrent first calls share one default session.
  const [a, b] = await Promise.all([
    c.call('tabs.list'),
    c.call('tabs.list'),
  ]);
  assert.equal(a.tabs.map((t) => t.target_id), b.tabs.map((t) => t.target_id));
  const { sessions } = await c.call('session.list');
  assert.equal(sessions.map((x) => x.name), ['default']);
  c.close();
  await server.server.close();
});

s('a session no client uses is closed after the idle timeout', async () => {
  const server = await startTestServer(['--idle-timeout-s', '1']);
  const c = await server.connect();
  // Each wait is bounded and says how things stood: once in CI this test held the run until the
  // runner's watchdog, with nothing to tell which step never ended.
  try {
    // The server's only session: its close is heard from before it exists, so it cannot come unheard.
    const closed = new Promise<{ id: string; reason: string; at: number }>((resolve) =>
      server.server.registry.events.on('closed', ({ session, reason }) => resolve({ id: session.id, reason, at: Date.now() }))
    );
    const { session_id } = await within(c.call('session.create'), () => 'session.create', 30_000);
    const answeredAt = Date.now();
    const state = () => {
      const session = server.server.registry.all().find((candidate) => candidate.id === session_id);
      return session
        ? `the session, open: ${session.queue.size} calls queued, last used ${Date.now() - session.lastUsedAt} ms ago`
        : 'the session, gone from the registry without a closed event';
    };
    const { id, reason, at } = await within(closed, state, 15_000);
    assert.is(id, session_id);
    assert.is(reason, 'idle_timeout');
    // Idle from when it was handed out: its first tab, opened in a browser launched for it, took
    // longer than the timeout, and that time did not count.
    assert.ok(at - answeredAt >= 900, `closed ${at - answeredAt} ms after session.create answered`);
    const error = await within(c.callError('tabs.list', { session_id }), () => 'tabs.list after the close');
    assert.is(error.data?.error_type, 'session_not_found');
  } finally {
    c.close();
    await within(server.server.close(), () => 'the server with --idle-timeout-s 1 closing', 30_000);
  }
});

s('sessions keep their own front: acting in one session does not hide another, so neither brings its tab forward again', async () => {
  const server = await sharedServer();
  const fixtures = await fixtureServer();
  const open = async (sessionId?: string) => {
    const session_id = sessionId ?? (await newSession('front')).session_id;
    const { target_id, observation } = await client.call('tabs.new', { session_id, url: fixtures.url('/counter.html'), observe: true });
    return { session_id, target_id, observation: observation! };
  };
  const click = async (tab: { session_id: string; target_id: string; observation: Observation }) => {
    const result = await client.call('act', {
      session_id: tab.session_id,
      target_id: tab.target_id,
      state_id: tab.observation.state_id,
      action: 'click',
      ref: ref(tab.observation, 'Increment', 'button'),
    });
    assert.is(result.status, 'completed', result.error_text);
    tab.observation = result.fresh_state!;
  };
  const activations = async (work: () => Promise<void>) =>
    (await sentDuring(server.server.host.current!.connection.root, work)).filter((m) => m.method === 'Target.activateTarget').length;
  const a = await open();
  const b = await open();
  await click(a);
  await click(b);
  assert.is(
    await activations(async () => {
      await click(a);
      await click(b);
      await click(a);
    }),
    0,
    'each session is its own window (headless): its tab stayed in front',
  );
  for (const tab of [a, b]) {
    assert.is(await evaluate(server, tab.target_id, 'document.visibilityState + " " + document.hasFocus()'), 'visible true');
  }
  // Two tabs of one session share its window: acting on the one behind brings it forward.
  const other = await open(a.session_id);
  assert.is(
    await activations(async () => {
      await click(other);
      await click(a);
    }),
    2,
  );
  assert.is(await evaluate(server, other.target_id, 'document.visibilityState'), 'hidden');
  await client.call('session.close', { session_id: a.session_id });
  await client.call('session.close', { session_id: b.session_id });
});

s.run();
