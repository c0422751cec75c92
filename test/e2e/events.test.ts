// Events and modal state against real pages (PROTOCOL.md §8, §9).
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import process from 'node:process';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { TestClient } from '../helpers/client.ts';
import { type FixtureServer, fixtureServer } from '../helpers/fixture-server.ts';
import { evaluate, tabOf } from '../helpers/page.ts';
import { startTestServer, type TestServer } from '../helpers/pagewire.ts';
import { onTeardown } from '../helpers/teardown.ts';
import { type Download, type EventKind, freshState, nextEvent as next, type Observation, receivedEvents, ref } from '../helpers/wire.ts';

const s = suite('events and modals');
let server: TestServer;
let fixtures: FixtureServer;
let uploadsRoot: string;

s.before(async () => {
  uploadsRoot = mkdtempSync(join(tmpdir(), 'pagewire-uploads-test-'));
  const outside = mkdtempSync(join(tmpdir(), 'pagewire-outside-test-'));
  writeFileSync(join(uploadsRoot, 'a.txt'), 'alpha');
  writeFileSync(join(uploadsRoot, 'b.txt'), 'bravo!');
  writeFileSync(join(outside, 'secret.txt'), 'secret');
  mkdirSync(join(uploadsRoot, 'sub'));
  symlinkSync(join(outside, 'secret.txt'), join(uploadsRoot, 'sub', 'escape.txt'));
  onTeardown(() => {
    rmSync(uploadsRoot, { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
  });
  server = await startTestServer(['--uploads', uploadsRoot]);
  fixtures = await fixtureServer();
});
s.after(() => server.server.close());

async function sessionWith(client: TestClient, dialogs: string): Promise<string> {
  return (await client.call('session.create', { name: `events-${dialogs}`, dialogs })).session_id;
}
async function openEvents(client: TestClient, sessionId: string): Promise<Observation> {
  await client.call('tabs.new', { session_id: sessionId, url: fixtures.url('/events.html') });
  return client.call('observe', { session_id: sessionId });
}
const events = receivedEvents;
/** The next event of `kind` after seq `after` (of `sessionId`, when given). */
const nextEvent = <K extends EventKind>(client: TestClient, kind: K, after = 0, sessionId?: string) =>
  next(client, kind, (event) => event.seq > after && (sessionId === undefined || event.session_id === sessionId));
/** The next console event whose text is `text`. */
const logged = (client: TestClient, text: string) => next(client, 'console', (event) => event.data.text === text);
const download = (client: TestClient, state: Download['state']) => next(client, 'download', (event) => event.data.state === state);

s('hold: a dialog opened by an act returns interrupted; the event streams; dialog.handle answers it; no_modal after', async () => {
  const client = await server.connect();
  const sessionId = await sessionWith(client, 'hold');
  await client.call('events.subscribe', { session_id: sessionId, kinds: ['dialog'] });
  for (
    const [button, type, accept, status] of [
      ['Alert', 'alert', true, 'idle'],
      ['Confirm', 'confirm', false, 'confirm false'],
      ['Prompt', 'prompt', true, 'prompt my answer'],
    ] as const
  ) {
    const o = await openEvents(client, sessionId);
    const before = events(client, 'dialog').length;
    const r = await client.call('act', { session_id: sessionId, state_id: o.state_id, action: 'click', ref: ref(o, button) });
    assert.is(r.status, 'interrupted');
    const event = await client.waitForNotification(() => events(client, 'dialog').length > before).then(() =>
      events(client, 'dialog').at(-1)!
    );
    assert.is(event.data.type, type);
    assert.is(event.data.message, `${type} text`);
    if (type === 'prompt') assert.is(event.data.default_prompt, 'default answer');
    const blocked = await client.call('observe', { session_id: sessionId });
    assert.is(blocked.dialog?.type, type);
    const handled = await client.call('dialog.handle', {
      session_id: sessionId,
      accept,
      ...(type === 'prompt' ? { prompt_text: 'my answer' } : {}),
    });
    assert.equal(handled, { action: accept ? 'accepted' : 'dismissed', dialog_type: type, message: `${type} text` });
    const after = await client.call('observe', { session_id: sessionId });
    assert.match(after.tree, new RegExp(`^ *"${status}"$`, 'm'));
    const none = await client.callError('dialog.handle', { session_id: sessionId, accept: true });
    assert.is(none.data?.error_type, 'no_modal');
    assert.is(none.code, -32012);
  }
  client.close();
});

s('every act that answers is an act event for whoever watches the session, another connection included', async () => {
  const agent = await server.connect();
  const watcher = await server.connect();
  const sessionId = await sessionWith(agent, 'accept');
  await watcher.call('events.subscribe', { session_id: sessionId, kinds: ['act'] });
  const o = await openEvents(agent, sessionId);
  const r = await agent.call('act', {
    session_id: sessionId,
    state_id: o.state_id,
    action: 'click',
    ref: ref(o, 'Warn'),
    request_id: 'watched-1',
  });
  const seen = await nextEvent(watcher, 'act', 0, sessionId);
  assert.equal(seen.data, {
    actions: ['click'],
    state_id: o.state_id,
    status: r.status,
    execution: r.execution,
    observation: r.observation,
    postcondition: r.postcondition,
    completed: [0],
    fresh_state_id: r.fresh_state!.state_id,
    request_id: 'watched-1',
  });
  assert.is(seen.target_id, o.target_id);
  // A refused act is an act event too, with its error; a replay is not (nothing ran again).
  const refused = await agent.call('act', { session_id: sessionId, state_id: o.state_id, action: 'click', ref: ref(o, 'Warn') });
  assert.is(refused.error_type, 'stale_state');
  const stale = await nextEvent(watcher, 'act', seen.seq, sessionId);
  assert.is(stale.data.error_type, 'stale_state');
  assert.is(stale.data.status, 'stale_observation');
  const replayed = await agent.call('act', {
    session_id: sessionId,
    state_id: o.state_id,
    action: 'click',
    ref: ref(o, 'Warn'),
    request_id: 'watched-1',
  });
  assert.is(replayed.replayed, true);
  const after = await agent.call('observe', { session_id: sessionId });
  await agent.call('act', { session_id: sessionId, state_id: after.state_id, action: 'click', ref: ref(after, 'Warn') });
  const next = await nextEvent(watcher, 'act', stale.seq, sessionId);
  assert.is(next.data.state_id, after.state_id, 'the replay published nothing between them');
  agent.close();
  watcher.close();
});

s('a dialog opened by a timer while no call runs is held and streamed; act is modal_blocked until handled', async () => {
  const client = await server.connect();
  const sessionId = await sessionWith(client, 'hold');
  const o = await openEvents(client, sessionId);
  await client.call('events.subscribe', { session_id: sessionId });
  const opened = nextEvent(client, 'dialog');
  await evaluate(server, o.target_id, 'alertSoon()');
  assert.is((await opened).data.message, 'timer alert');
  const r = await client.call('act', { session_id: sessionId, state_id: o.state_id, action: 'click', ref: ref(o, 'Warn') });
  assert.is(r.error_type, 'modal_blocked');
  await client.call('dialog.handle', { session_id: sessionId, accept: true });
  client.close();
});

s('accept and dismiss policies answer at once, report the dialog, and the act completes', async () => {
  const client = await server.connect();
  for (const [policy, expected] of [['accept', 'confirm true'], ['dismiss', 'confirm false']] as const) {
    const sessionId = await sessionWith(client, policy);
    await client.call('events.subscribe', { session_id: sessionId, kinds: ['dialog'] });
    const o = await openEvents(client, sessionId);
    const r = await client.call('act', {
      session_id: sessionId,
      state_id: o.state_id,
      action: 'click',
      ref: ref(o, 'Confirm'),
    });
    assert.is(r.status, 'completed');
    assert.match(freshState(r).tree, new RegExp(`^ *"${expected}"$`, 'm'));
    const dialog = r.events.find((e) => e.kind === 'dialog');
    assert.is(dialog?.data.handled, policy === 'accept' ? 'accepted' : 'dismissed');
    const streamed = await nextEvent(client, 'dialog', 0, sessionId);
    assert.is(streamed.data.handled, policy === 'accept' ? 'accepted' : 'dismissed');
    assert.is(streamed.session_id, sessionId);
  }
  client.close();
});

s('beforeunload after a real click: held, then accepting lets the navigation proceed', async () => {
  const client = await server.connect();
  const sessionId = await sessionWith(client, 'hold');
  let o = await openEvents(client, sessionId);
  const guarded = await client.call('act', { session_id: sessionId, state_id: o.state_id, action: 'click', ref: ref(o, 'Guard unload') });
  o = freshState(guarded);
  const r = await client.call('act', {
    session_id: sessionId,
    state_id: o.state_id,
    action: 'navigate',
    url: fixtures.url('/child.html'),
    timeout_ms: 10_000,
  });
  assert.is(r.status, 'interrupted', JSON.stringify(r));
  assert.is(r.events.find((e) => e.kind === 'dialog')?.data.type, 'beforeunload');
  await client.call('dialog.handle', { session_id: sessionId, accept: true });
  // The navigation that waited on the dialog now goes ahead (no client-visible event to await
  // besides the stream: poll the tab within a bound).
  let url = '';
  for (let i = 0; i < 200 && !url.endsWith('/child.html'); i++) {
    url = (await client.call('tabs.list', { session_id: sessionId })).tabs.find((t) => t.selected)!.url;
  }
  assert.is(url, fixtures.url('/child.html'));
  client.close();
});

s('file chooser: event, resolve with files, cancel, and refusal outside the root (symlink too)', async () => {
  const client = await server.connect();
  const sessionId = await sessionWith(client, 'hold');
  await client.call('events.subscribe', { session_id: sessionId, kinds: ['file_chooser'] });
  let o = await openEvents(client, sessionId);
  const chooserRef = o.elements.find((e) => e.role === 'button' && /Choose/i.test(e.name))!.ref;
  let r = await client.call('act', { session_id: sessionId, state_id: o.state_id, action: 'click', ref: chooserRef });
  assert.is(r.status, 'completed');
  assert.ok(r.events.some((e) => e.kind === 'file_chooser'));
  const event = await nextEvent(client, 'file_chooser');
  assert.is(event.data.mode, 'select_multiple');
  const refused = await client.callError('file_chooser.resolve', { session_id: sessionId, paths: ['sub/escape.txt'] });
  assert.is(refused.data?.error_type, 'forbidden');
  const outside = await client.callError('file_chooser.resolve', { session_id: sessionId, paths: ['../../etc/passwd'] });
  assert.is(outside.data?.error_type, 'forbidden');
  o = await client.call('observe', { session_id: sessionId });
  const blocked = await client.call('act', { session_id: sessionId, state_id: o.state_id, action: 'click', ref: ref(o, 'Warn') });
  assert.is(blocked.error_type, 'modal_blocked', 'a pending chooser blocks acts; the refusals lost nothing');
  const resolved = await client.call('file_chooser.resolve', { session_id: sessionId, paths: ['a.txt', join(uploadsRoot, 'b.txt')] });
  assert.equal(resolved, { uploaded_count: 2 });
  assert.is(await evaluate(server, o.target_id, `document.getElementById('status').textContent`), 'files a.txt:5,b.txt:6');
  const none = await client.callError('file_chooser.resolve', { session_id: sessionId });
  assert.is(none.data?.error_type, 'no_modal');
  o = await client.call('observe', { session_id: sessionId });
  r = await client.call('act', { session_id: sessionId, state_id: o.state_id, action: 'click', ref: chooserRef });
  await nextEvent(client, 'file_chooser', event.seq);
  assert.equal(await client.call('file_chooser.resolve', { session_id: sessionId, paths: [] }), { cancelled: true });
  assert.is(await evaluate(server, o.target_id, `document.getElementById('status').textContent`), 'chooser cancelled');
  client.close();
});

s('popups from window.open and from a _blank link: events with opener, listed, not selected', async () => {
  const client = await server.connect();
  const sessionId = await sessionWith(client, 'hold');
  await client.call('events.subscribe', { session_id: sessionId, kinds: ['popup', 'tab_closed'] });
  let o = await openEvents(client, sessionId);
  for (const name of ['Open popup', 'Blank link']) {
    const before = events(client, 'popup').length;
    const r = await client.call('act', { session_id: sessionId, state_id: o.state_id, action: 'click', ref: ref(o, name) });
    o = freshState(r);
    await client.waitForNotification(() => events(client, 'popup').length > before);
    const popup = events(client, 'popup').at(-1)!;
    assert.is(popup.data.opener_id, o.target_id);
    const { tabs } = await client.call('tabs.list', { session_id: sessionId });
    const listed = tabs.find((t) => t.target_id === popup.data.target_id);
    assert.is(listed?.opener_id, o.target_id);
    assert.is(listed?.selected, false);
    const closed = nextEvent(client, 'tab_closed', popup.seq);
    await client.call('tabs.close', { session_id: sessionId, target_id: popup.data.target_id });
    assert.is((await closed).data.target_id, popup.data.target_id);
  }
  client.close();
});

s('after_seq replays what was missed while disconnected, then live events, without gaps', async () => {
  const first = await server.connect();
  const sessionId = await sessionWith(first, 'accept');
  await first.call('events.subscribe', { session_id: sessionId, kinds: ['console', 'navigation'] });
  const o = await openEvents(first, sessionId);
  await evaluate(server, o.target_id, `console.log('one'); console.log('two')`);
  const seenSeq = (await logged(first, 'two')).seq;
  first.close();
  await first.closed();
  await evaluate(server, o.target_id, `console.log('three'); console.log('four')`);
  // The events exist in the session's log before the client comes back.
  const session = server.server.registry.all().find((x) => x.id === sessionId)!;
  for (let i = 0; i < 200 && session.events.lastSeq < seenSeq + 2; i++) await evaluate(server, o.target_id, '0');
  const second = await server.connect();
  await second.call('events.subscribe', { session_id: sessionId, kinds: ['console'], after_seq: seenSeq });
  await evaluate(server, o.target_id, `console.log('five')`);
  await logged(second, 'five');
  const texts = events(second, 'console').map((e) => e.data.text);
  assert.equal(texts, ['three', 'four', 'five']);
  const seqs = events(second, 'console').map((e) => e.seq);
  assert.ok(seqs.every((seq, i) => i === 0 || seq > seqs[i - 1]!), 'in seq order');
  const warned = nextEvent(second, 'console', seqs.at(-1));
  await evaluate(server, o.target_id, `[...document.querySelectorAll('button')].find((b) => b.textContent === 'Warn').click()`);
  assert.match(String((await warned).data.text), /token=\[redacted\]/, 'console text is redacted');
  second.close();
});

s('a subscriber that does not read while the page logs 10,000 lines: memory bounded, drops reported, the browser keeps going', async () => {
  const slow = await server.connect();
  const sessionId = await sessionWith(slow, 'accept');
  const o = await openEvents(slow, sessionId);
  await slow.call('events.subscribe', { session_id: sessionId, kinds: ['console'] });
  // Stop reading: the server's socket buffer fills and its outbox must shed events.
  (slow.socket as unknown as { _socket: { pause(): void; resume(): void } })._socket.pause();
  const other = await server.connect();
  const start = Date.now();
  const r = await other.call('act', { session_id: sessionId, state_id: o.state_id, action: 'click', ref: ref(o, 'Flood console') });
  assert.is(r.status, 'completed');
  assert.match(freshState(r).tree, /^ *"logged"$/m);
  assert.ok(Date.now() - start < 20_000, 'the browser and the server kept going');
  const session = server.server.registry.all().find((x) => x.id === sessionId)!;
  for (let i = 0; i < 400 && session.events.lastSeq < 10_000; i++) await other.call('server.info');
  const stats = server.server.hub.stats;
  assert.ok(stats.queuedBytes <= 16 * 1024 * 1024, `queued ${stats.queuedBytes} bytes`);
  assert.ok(stats.droppedTotal > 0, 'events were dropped');
  (slow.socket as unknown as { _socket: { resume(): void } })._socket.resume();
  await evaluate(server, o.target_id, `console.log('after the flood')`);
  await logged(slow, 'after the flood');
  const withDropped = events(slow, 'console').find((e) => (e.dropped ?? 0) > 0);
  assert.ok(withDropped, 'a delivered event carries dropped: N');
  slow.close();
  other.close();
});

s('events.unsubscribe stops delivery; closing a session ends with session_closed', async () => {
  const client = await server.connect();
  const sessionId = await sessionWith(client, 'hold');
  const { subscription_id } = await client.call('events.subscribe', { session_id: sessionId, kinds: ['session_closed', 'console'] });
  const o = await openEvents(client, sessionId);
  assert.equal(await client.call('events.unsubscribe', { subscription_id }), { unsubscribed: true });
  await evaluate(server, o.target_id, `console.log('unseen')`);
  await client.call('events.subscribe', { session_id: sessionId, kinds: ['session_closed'] });
  const closed = nextEvent(client, 'session_closed');
  await client.call('session.close', { session_id: sessionId });
  assert.is((await closed).data.reason, 'closed_by_client');
  assert.not.ok(events(client, 'console').some((e) => e.data.text === 'unseen'));
  client.close();
});

s('downloads: one completed (file in the session folder, listed), one canceled (partial file removed)', async () => {
  const client = await server.connect();
  const sessionId = await sessionWith(client, 'hold');
  await client.call('events.subscribe', { session_id: sessionId, kinds: ['download'] });
  let o = await openEvents(client, sessionId);
  const done = download(client, 'completed');
  const r = await client.call('act', { session_id: sessionId, state_id: o.state_id, action: 'click', ref: ref(o, 'Download report') });
  assert.is(r.status, 'completed');
  const completed = await done;
  assert.is(completed.data.suggested_filename, 'report.txt');
  assert.is(completed.data.received_bytes, 12);
  const path = String(completed.data.path);
  assert.ok(path.endsWith(`${sessionId}/report.txt`), path);
  const { readFileSync, existsSync, readdirSync } = await import('node:fs');
  assert.is(readFileSync(path, 'utf8'), 'report body\n');
  assert.not.ok(path.startsWith(process.env.HOME ?? '/root/'), 'nothing in the home folder');
  const started = events(client, 'download').find((e) => e.data.state === 'started');
  assert.is(started?.data.guid, completed.data.guid);
  const { downloads } = await client.call('downloads.list', { session_id: sessionId });
  assert.equal(downloads.map((d) => [d.guid, d.state, d.path]), [[completed.data.guid, 'completed', path]]);
  o = freshState(r);
  const canceled = download(client, 'canceled');
  await client.call('act', { session_id: sessionId, state_id: o.state_id, action: 'click', ref: ref(o, 'Download broken') });
  const event = await canceled;
  assert.is(event.data.suggested_filename, 'broken.bin');
  const folder = path.slice(0, path.lastIndexOf('/'));
  // The partial file goes once the cancellation's clean-up has run.
  for (let i = 0; i < 200 && readdirSync(folder).some((f) => f.startsWith(String(event.data.guid))); i++) await client.call('server.info');
  assert.equal(readdirSync(folder).filter((f) => f !== 'report.txt'), [], 'no partial file left');
  assert.ok(existsSync(path));
  client.close();
});

s('a renderer crash streams a crash event with a hint', async () => {
  const client = await server.connect();
  const sessionId = await sessionWith(client, 'hold');
  const o = await openEvents(client, sessionId);
  await client.call('events.subscribe', { session_id: sessionId, kinds: ['crash'] });
  const crashed = nextEvent(client, 'crash');
  tabOf(server, o.target_id).session.send('Page.crash').catch(() => {});
  const event = await crashed;
  assert.is(event.data.scope, 'renderer');
  assert.is(event.target_id, o.target_id);
  assert.type(event.data.hint, 'string');
  client.close();
});

s.run();
