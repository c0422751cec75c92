// act against real pages (PROTOCOL.md §7): every error word, every action, navigation readiness,
// dialogs, popups, request ids and cancel.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { TestClient } from '../helpers/client.ts';
import type { FixtureServer } from '../helpers/fixture-server.ts';
import { evaluate, tabOf } from '../helpers/page.ts';
import type { TestServer } from '../helpers/pagewire.ts';
import { withSession } from '../helpers/session-suite.ts';
import { type ActResult, type Observation, ref } from '../helpers/wire.ts';

const s = suite('act');
let server: TestServer;
let fixtures: FixtureServer;
let client: TestClient;
let sessionId: string;

withSession(s, 'act', (context) => ({ server, fixtures, client, sessionId } = context));

async function open(path: string): Promise<Observation> {
  const { target_id } = await client.call('tabs.new', { session_id: sessionId, url: fixtures.url(path) });
  await closeOtherTabs(target_id);
  return observe();
}

/** One tab per test: the session stays far below its tab limit. */
async function closeOtherTabs(keep: string): Promise<void> {
  const { tabs } = await client.call('tabs.list', { session_id: sessionId });
  for (const tab of tabs) if (tab.target_id !== keep) await client.call('tabs.close', { session_id: sessionId, target_id: tab.target_id });
}
function observe(params: Record<string, unknown> = {}): Promise<Observation> {
  return client.call('observe', { session_id: sessionId, ...params });
}
function act(params: Record<string, unknown>): Promise<ActResult> {
  return client.call('act', { session_id: sessionId, ...params });
}
// A text line of the tree is a quoted string alone on its line.
const statusOf = (o: Observation | undefined) =>
  /^ *"(clicked[^"]*|idle|agree[^"]*|fruit[^"]*|submitted[^"]*|far[^"]*|confirm[^"]*|dropped[^"]*|covered[^"]*|typed[^"]*|nothing yet)"$/m
    .exec(o?.tree ?? '')?.[1];

s('click: completed, executed once, with a fresh observation that is the new current state', async () => {
  const o = await open('/act.html');
  const r = await act({ state_id: o.state_id, action: 'click', ref: ref(o, 'Count') });
  assert.is(r.status, 'completed');
  assert.is(r.execution, 'completed');
  assert.is(r.observation, 'captured');
  assert.is(r.postcondition, 'not_requested');
  assert.equal(r.completed, [0]);
  assert.is(statusOf(r.fresh_state), 'clicked 1');
  assert.is.not(r.fresh_state!.state_id, o.state_id);
  // The fresh state is current: it can be acted on.
  const again = await act({ state_id: r.fresh_state!.state_id, action: 'click', ref: ref(r.fresh_state!, 'Count') });
  assert.is(statusOf(again.fresh_state), 'clicked 2');
});

s('unknown versus consumed state ids; a superseded state is stale; neither touches the page', async () => {
  const o = await open('/act.html');
  const unknown = await act({ state_id: 'st_00000000_1', action: 'click', ref: ref(o, 'Count') });
  assert.is(unknown.status, 'stale_observation');
  assert.is(unknown.error_type, 'unknown_state');
  assert.is(unknown.execution, 'not_dispatched');
  // unknown_state did not consume the current state:
  const first = await act({ state_id: o.state_id, action: 'click', ref: ref(o, 'Count') });
  assert.is(first.status, 'completed');
  const reused = await act({ state_id: o.state_id, action: 'click', ref: ref(o, 'Count') });
  assert.is(reused.status, 'stale_observation');
  assert.is(reused.error_type, 'stale_state');
  const older = first.fresh_state!;
  const newer = await observe();
  const superseded = await act({ state_id: older.state_id, action: 'click', ref: ref(older, 'Count') });
  assert.is(superseded.error_type, 'stale_state');
  const latest = await observe();
  assert.is(statusOf(latest), 'clicked 1', 'only the one valid act ran');
  void newer;
});

s('a transparent overlay: click_intercepted naming what was hit, handler not run, dispatched_unknown', async () => {
  const o = await open('/act.html');
  const r = await act({ state_id: o.state_id, action: 'click', ref: ref(o, 'Covered') });
  assert.is(r.status, 'action_failed');
  assert.is(r.error_type, 'click_intercepted');
  assert.is(r.execution, 'dispatched_unknown');
  assert.is(r.hit?.tag, 'div');
  assert.is(statusOf(r.fresh_state), 'idle', 'the covered button never got the click');
});

s('a same-URL reload between observe and act is document_changed', async () => {
  const o = await open('/act.html');
  const targetId = o.target_id;
  const tab = tabOf(server, targetId);
  const loaded = new Promise((resolve) => tab.events.on('navigated', resolve));
  await tab.session.send('Page.reload');
  await loaded;
  const r = await act({ state_id: o.state_id, action: 'click', ref: ref(o, 'Count') });
  assert.is(r.status, 'stale_observation');
  assert.is(r.error_type, 'document_changed');
  assert.is(r.execution, 'not_dispatched');
});

s('a node replaced by an identical twin is node_detached, never clicked', async () => {
  const o = await open('/mutable.html');
  await evaluate(server, o.target_id, `removeButton('Delta'); addButton('Delta')`);
  const r = await act({ state_id: o.state_id, action: 'click', ref: ref(o, 'Delta') });
  assert.is(r.status, 'stale_reference');
  assert.is(r.error_type, 'node_detached');
  assert.is(r.execution, 'not_dispatched');
});

s('a field replaced by an identical twin is node_detached for fill: nothing focused, nothing typed', async () => {
  const o = await open('/act.html');
  await evaluate(server, o.target_id, `const old = document.getElementById('name'); const twin = old.cloneNode(); old.replaceWith(twin)`);
  const r = await act({ state_id: o.state_id, action: 'fill', ref: ref(o, 'Name'), text: 'never' });
  assert.is(r.status, 'stale_reference');
  assert.is(r.error_type, 'node_detached');
  assert.is(r.execution, 'not_dispatched');
  assert.equal(await evaluate(server, o.target_id, `[document.getElementById('name').value, document.activeElement === document.body]`), [
    '',
    true,
  ]);
});

s('a field acted on before, then replaced by a twin, is node_detached: the kept handle is still checked', async () => {
  const o = await open('/act.html');
  const first = await act({ state_id: o.state_id, action: 'fill', ref: ref(o, 'Name'), text: 'first' });
  assert.is(first.status, 'completed');
  const fresh = first.fresh_state!;
  await evaluate(
    server,
    o.target_id,
    `const old = document.getElementById('name'); const twin = old.cloneNode(); twin.id = 'twin'; old.replaceWith(twin); document.activeElement.blur()`,
  );
  const r = await act({ state_id: fresh.state_id, action: 'fill', ref: ref(fresh, 'Name'), text: 'never' });
  assert.is(r.error_type, 'node_detached');
  assert.is(r.execution, 'not_dispatched');
  // The clone copied the value the first fill typed; the second typed nothing anywhere.
  assert.equal(await evaluate(server, o.target_id, `[document.getElementById('twin').value, document.activeElement === document.body]`), [
    'first',
    true,
  ]);
});

s('a second act on the same element needs no node lookup', async () => {
  const o = await open('/act.html');
  const session = tabOf(server, o.target_id).session;
  const lookups: unknown[] = [];
  const original = session.sendRaw;
  session.sendRaw = function (method, params, options) {
    if (method === 'DOM.resolveNode') lookups.push((params as { backendNodeId: number }).backendNodeId);
    return original.call(this, method, params, options);
  };
  try {
    const first = await act({ state_id: o.state_id, action: 'fill', ref: ref(o, 'Name'), text: 'one' });
    assert.is(first.status, 'completed');
    const afterFirst = lookups.length;
    assert.ok(afterFirst > 0, 'the first act looks the node up');
    const second = await act({ state_id: first.fresh_state!.state_id, action: 'fill', ref: ref(first.fresh_state!, 'Name'), text: 'two' });
    assert.is(second.status, 'completed');
    assert.is(lookups.length, afterFirst, 'the second act looks nothing up');
  } finally {
    session.sendRaw = original;
  }
  assert.is(await evaluate(server, o.target_id, `document.getElementById('name').value`), 'two');
});

s('fill reaches fields in a same-origin and a cross-site iframe', async () => {
  let o = await open('/login.html?cross=1');
  for (let i = 0; i < 100 && o.elements.filter((e) => e.name === 'Frame password').length < 2; i++) o = await observe();
  const fields = o.elements.filter((e) => e.name === 'Frame password');
  assert.is(fields.length, 2, 'both frames observed');
  const tab = tabOf(server, o.target_id);
  const valueIn = async (frameId: string) => {
    const session = tab.frames.get(frameId)!.session;
    // The same-origin frame shares the page's process and session: read it through its iframe.
    if (session === tab.session) {
      return evaluate<string>(
        server,
        o.target_id,
        `document.getElementById('frame').contentDocument.getElementById('frame-password').value`,
      );
    }
    const { result } = await session.send('Runtime.evaluate', {
      expression: `document.getElementById('frame-password').value`,
      returnByValue: true,
    });
    return result.value as string;
  };
  for (const [index, field] of fields.entries()) {
    const r = await act({ state_id: o.state_id, action: 'fill', ref: field.ref, text: `frame-secret-${index}` });
    assert.is(r.status, 'completed', r.error_text);
    assert.is(await valueIn(field.frame_id), `frame-secret-${index}`);
    o = r.fresh_state!;
  }
  assert.not.equal(fields[0]!.frame_id, fields[1]!.frame_id);
  assert.is(await evaluate(server, o.target_id, `document.getElementById('username').value`), 'alice-visible');
});

s('a ref the state never had is ref_not_found', async () => {
  const o = await open('/act.html');
  const r = await act({ state_id: o.state_id, action: 'click', ref: '@99999' });
  assert.is(r.status, 'stale_reference');
  assert.is(r.error_type, 'ref_not_found');
});

s('a closed tab is target_changed; a removed iframe is frame_detached', async () => {
  const o = await open('/act.html');
  await client.call('tabs.new', { session_id: sessionId, select: false }); // so it is not the last tab
  await client.call('tabs.close', { session_id: sessionId, target_id: o.target_id });
  const closed = await act({ state_id: o.state_id, action: 'click', ref: ref(o, 'Count') });
  assert.is(closed.error_type, 'target_changed');
  const framed = await open('/shadow-iframe.html');
  const frameObservation = await observe({
    frame_id: (await client.call('frames.list', { session_id: sessionId })).frames.find((f) =>
      f.url.endsWith('/frame-buttons.html') && f.url.includes('127.0.0.1')
    )!.frame_id,
  });
  await evaluate(server, framed.target_id, `document.getElementById('same-origin').remove()`);
  const detached = await act({ state_id: frameObservation.state_id, action: 'click', ref: ref(frameObservation, 'Frame button 1') });
  assert.is(detached.error_type, 'frame_detached');
});

s('an input whose focus handler moves focus elsewhere is focus_mismatch', async () => {
  const o = await open('/act.html');
  const r = await act({ state_id: o.state_id, action: 'type', ref: ref(o, 'Thief'), text: 'abc' });
  assert.is(r.status, 'action_failed');
  assert.is(r.error_type, 'focus_mismatch');
  assert.is(r.execution, 'dispatched_unknown');
});

s('nested open shadow roots, a closed root, a same-origin and a cross-site iframe', async () => {
  let o = await open('/shadow-iframe.html');
  for (let i = 0; i < 100 && o.elements.filter((e) => e.name === 'Frame button 3').length < 2; i++) o = await observe();
  let r = await act({ state_id: o.state_id, action: 'click', ref: ref(o, 'Deep button') });
  assert.is(statusOf(r.fresh_state), 'clicked Deep button');
  o = r.fresh_state!;
  r = await act({ state_id: o.state_id, action: 'click', ref: ref(o, 'Closed button') });
  assert.is(statusOf(r.fresh_state), 'clicked Closed button');
  o = r.fresh_state!;
  r = await act({ state_id: o.state_id, action: 'type', ref: ref(o, 'Deep input'), text: 'hello' });
  assert.is(r.status, 'completed', r.error_text);
  assert.is(statusOf(r.fresh_state), 'typed 5 chars');
  o = r.fresh_state!;
  // fill settles in parallel with its insertion (perform.ts): the page's input handler has run.
  r = await act({ state_id: o.state_id, action: 'fill', ref: ref(o, 'Deep input'), text: 'replaced' });
  assert.is(r.status, 'completed', r.error_text);
  assert.is(statusOf(r.fresh_state), 'typed 8 chars');
  o = r.fresh_state!;
  const [same, cross] = o.elements.filter((e) => e.name === 'Frame button 3');
  r = await act({ state_id: o.state_id, action: 'click', ref: same!.ref });
  assert.is(r.status, 'completed', r.error_text);
  assert.match(r.fresh_state!.tree, /^ *"clicked Frame button 3"$/m);
  o = r.fresh_state!;
  const crossRef = o.elements.filter((e) => e.name === 'Frame button 3')[1]!.ref;
  assert.is(crossRef, cross!.ref, 'refs stay stable across the act');
  r = await act({ state_id: o.state_id, action: 'click', ref: crossRef });
  assert.is(r.status, 'completed', r.error_text);
  assert.is(r.fresh_state!.tree.match(/^ *"clicked Frame button 3"$/gm)?.length, 2, 'both frames report a click');
});

s('fill, check, select, press Enter to submit, hover menu, drag and drop, scroll into view', async () => {
  let o = await open('/act.html');
  let r = await act({ state_id: o.state_id, action: 'fill', ref: ref(o, 'Name'), text: 'Ada' });
  assert.is(r.status, 'completed');
  assert.is(await evaluate(server, o.target_id, `document.getElementById('name').value`), 'Ada');
  o = r.fresh_state!;
  r = await act({ state_id: o.state_id, action: 'check', ref: ref(o, 'Agree'), checked: 'Yes' });
  assert.is(statusOf(r.fresh_state), 'agree true');
  o = r.fresh_state!;
  r = await act({ state_id: o.state_id, action: 'select', ref: ref(o, 'Fruit'), label: 'Banana' });
  assert.is(statusOf(r.fresh_state), 'fruit b');
  o = r.fresh_state!;
  r = await act({ state_id: o.state_id, action: 'select', ref: ref(o, 'Fruit'), value: 'c' });
  assert.is(r.status, 'action_failed');
  assert.match(r.error_text!, /disabled/);
  o = await observe();
  r = await act({
    state_id: o.state_id,
    actions: [{ action: 'type', ref: ref(o, 'Query'), text: 'cats' }, { action: 'press', key: 'Enter' }],
  });
  assert.equal(r.completed, [0, 1]);
  assert.is(statusOf(r.fresh_state), 'submitted cats');
  o = r.fresh_state!;
  r = await act({ state_id: o.state_id, action: 'hover', ref: ref(o, 'Menu') });
  assert.ok(r.fresh_state!.elements.some((e) => e.name === 'Menu item'), 'the hover menu opened');
  o = r.fresh_state!;
  const dragSource = o.tree.split('\n').find((line) => /^group @\d+$/.test(line))!.split(' ')[1]!;
  r = await act({ state_id: o.state_id, action: 'drag', ref: dragSource, to_ref: ref(o, 'Drop zone') });
  assert.is(statusOf(r.fresh_state), 'dropped moved');
  o = r.fresh_state!;
  r = await act({ state_id: o.state_id, action: 'click', ref: ref(o, 'Far button') });
  assert.is(statusOf(r.fresh_state), 'far clicked');
  const scrolled = await evaluate<number>(server, o.target_id, 'scrollY');
  assert.ok(scrolled > 1000, `scrolled to ${scrolled}`);
});

s('navigation: a link waits for the new document; hash is same-document; 404 is a document', async () => {
  let o = await open('/act.html');
  let r = await act({ state_id: o.state_id, action: 'click', ref: ref(o, 'Next page') });
  assert.is(r.status, 'completed');
  assert.is(r.fresh_state!.url, fixtures.url('/child.html'));
  assert.ok(r.events.some((e) => e.kind === 'navigation' && e.data.same_document === false));
  o = await open('/act.html');
  r = await act({ state_id: o.state_id, action: 'click', ref: ref(o, 'Hash link') });
  assert.is(r.status, 'completed');
  assert.ok(r.events.some((e) => e.kind === 'navigation' && e.data.same_document === true));
  o = await open('/act.html');
  r = await act({ state_id: o.state_id, action: 'click', ref: ref(o, 'Missing page') });
  assert.is(r.status, 'completed');
  assert.match(r.fresh_state!.tree, /404 page/);
  o = await open('/act.html');
  r = await act({ state_id: o.state_id, action: 'click', ref: ref(o, 'Slow page') });
  assert.is(r.status, 'completed', r.error_text);
  assert.is(r.fresh_state!.url, fixtures.url('/slow'), 'the act waited for the slow document');
});

s('settling: a navigation a click starts from a timer is waited for; a page that keeps changing is waited out', async () => {
  let o = await open('/act.html');
  await evaluate(
    server,
    o.target_id,
    `(() => {
      const status = document.getElementById('status');
      const later = document.createElement('button');
      later.textContent = 'Navigate later';
      later.onclick = () => setTimeout(() => { location.href = 'child.html'; }, 0);
      const chain = document.createElement('button');
      chain.textContent = 'Chain';
      chain.onclick = () => setTimeout(() => {
        status.textContent = 'clicked chain 1';
        setTimeout(() => { status.textContent = 'clicked chain 2'; }, 2);
      }, 0);
      document.body.prepend(later, chain);
    })()`,
  );
  o = await observe();
  let r = await act({ state_id: o.state_id, action: 'click', ref: ref(o, 'Chain') });
  assert.is(r.status, 'completed', r.error_text);
  assert.is(statusOf(r.fresh_state), 'clicked chain 2', 'the second change, 2 ms after the first, is in the fresh state');
  o = r.fresh_state!;
  r = await act({ state_id: o.state_id, action: 'click', ref: ref(o, 'Navigate later') });
  assert.is(r.status, 'completed', r.error_text);
  assert.is(r.fresh_state!.url, fixtures.url('/child.html'), 'the act waited for the document the timer navigated to');
  assert.ok(r.events.some((e) => e.kind === 'navigation' && e.data.same_document === false));
});

s('navigate, back, forward, reload', async () => {
  let o = await open('/act.html');
  let r = await act({ state_id: o.state_id, action: 'navigate', url: fixtures.url('/child.html') });
  assert.is(r.fresh_state!.url, fixtures.url('/child.html'));
  o = r.fresh_state!;
  r = await act({ state_id: o.state_id, action: 'back' });
  assert.is(r.status, 'completed', r.error_text);
  assert.is(r.fresh_state!.url, fixtures.url('/act.html'));
  o = r.fresh_state!;
  r = await act({ state_id: o.state_id, action: 'forward' });
  assert.is(r.fresh_state!.url, fixtures.url('/child.html'));
  o = r.fresh_state!;
  r = await act({ state_id: o.state_id, action: 'reload' });
  assert.is(r.status, 'completed');
  const stale = await act({ state_id: o.state_id, action: 'reload' });
  assert.is(stale.error_type, 'stale_state');
});

s('a link to a download reports it and leaves the document', async () => {
  const o = await open('/act.html');
  const r = await act({ state_id: o.state_id, action: 'click', ref: ref(o, 'Download report') });
  assert.is(r.status, 'completed', JSON.stringify({ ...r, fresh_state: undefined }));
  assert.match(r.error_text!, /became a download/);
  assert.is(r.fresh_state!.url, fixtures.url('/act.html'), 'the page stays');
  assert.ok(r.events.some((e) => e.kind === 'download' && e.data.suggested_filename === 'report.txt'), JSON.stringify(r.events));
  const navigated = await act({ state_id: r.fresh_state!.state_id, action: 'navigate', url: fixtures.url('/download/report.txt') });
  assert.is(navigated.status, 'completed', JSON.stringify({ ...navigated, fresh_state: undefined }));
  assert.match(navigated.error_text!, /download/);
  assert.is(navigated.fresh_state!.url, fixtures.url('/act.html'));
});

s('a confirm opened by a click: interrupted with the dialog, well before the timeout; modal_blocked after', async () => {
  const o = await open('/act.html');
  const started = Date.now();
  const r = await act({ state_id: o.state_id, action: 'click', ref: ref(o, 'Confirm'), timeout_ms: 10_000 });
  assert.ok(Date.now() - started < 5_000, 'returned before the timeout');
  assert.is(r.status, 'interrupted');
  assert.is(r.execution, 'dispatched_unknown');
  const dialog = r.events.find((e) => e.kind === 'dialog');
  assert.equal(dialog?.data.type, 'confirm');
  assert.equal(dialog?.data.message, 'Sure?');
  assert.equal(r.fresh_state!.dialog, { type: 'confirm', message: 'Sure?' });
  const blocked = await act({ state_id: r.fresh_state!.state_id, action: 'click', ref: ref(o, 'Count') });
  assert.is(blocked.error_type, 'modal_blocked');
  await tabOf(server, o.target_id).session.send('Page.handleJavaScriptDialog', { accept: true });
  const after = await observe();
  assert.is(statusOf(after), 'confirm true');
});

s('a _blank link opens a popup: reported, and later actions of the batch do not run', async () => {
  const o = await open('/act.html');
  const r = await act({
    state_id: o.state_id,
    actions: [{ action: 'click', ref: ref(o, 'Open in new tab') }, { action: 'click', ref: ref(o, 'Count') }],
  });
  assert.is(r.status, 'interrupted');
  assert.equal(r.completed, [0]);
  const popup = r.events.find((e) => e.kind === 'popup');
  assert.ok(popup, JSON.stringify(r.events));
  assert.is(popup!.data.opener_id, o.target_id);
  const { tabs } = await client.call('tabs.list', { session_id: sessionId });
  const opened = tabs.find((t) => t.target_id === popup!.data.target_id);
  assert.is(opened?.opener_id, o.target_id);
  assert.is(opened?.selected, false, 'a popup does not take the selection');
  assert.is(statusOf(r.fresh_state), 'idle');
});

s('a batch interrupted by navigation stops after it', async () => {
  const o = await open('/act.html');
  const r = await act({
    state_id: o.state_id,
    actions: [{ action: 'click', ref: ref(o, 'Count') }, { action: 'click', ref: ref(o, 'Next page') }, {
      action: 'click',
      ref: ref(o, 'Count'),
    }],
  });
  assert.is(r.status, 'interrupted');
  assert.equal(r.completed, [0, 1]);
  assert.is(r.fresh_state!.url, fixtures.url('/child.html'));
});

s('expect and wait_for: verified, condition_not_met', async () => {
  let o = await open('/act.html');
  let r = await act({ state_id: o.state_id, action: 'click', ref: ref(o, 'Show later'), wait_for: { text: 'Appeared' } });
  assert.is(r.status, 'verified');
  assert.is(r.postcondition, 'met');
  assert.ok(r.fresh_state!.elements.some((e) => e.name === 'Appeared'));
  o = r.fresh_state!;
  r = await act({ state_id: o.state_id, action: 'click', ref: ref(o, 'Count'), expect: { selector: '#status', text: 'clicked 1' } });
  assert.is(r.status, 'verified');
  o = r.fresh_state!;
  r = await act({ state_id: o.state_id, action: 'click', ref: ref(o, 'Count'), expect: { selector: '#status', text: 'clicked 9' } });
  assert.is(r.status, 'condition_not_met');
  assert.is(r.postcondition, 'unmet');
  o = r.fresh_state!;
  r = await act({ state_id: o.state_id, action: 'click', ref: ref(o, 'Count'), expect: { selector: 'button', text: 'x' } });
  assert.is(r.postcondition, 'unmet', 'several matches are unmet');
  o = r.fresh_state!;
  r = await act({ state_id: o.state_id, action: 'click', ref: ref(o, 'Count'), wait_for: { url: `${fixtures.origin}/*.html` } });
  assert.is(r.postcondition, 'met');
});

s('request_id: replay executes nothing; other params conflict', async () => {
  const o = await open('/act.html');
  const params = { state_id: o.state_id, action: 'click', ref: ref(o, 'Count'), request_id: `req-${o.state_id}` };
  const [first, concurrent] = await Promise.all([act(params), act(params)]);
  assert.is(first.status, 'completed');
  assert.equal({ ...concurrent, replayed: undefined }, { ...first, replayed: undefined });
  assert.is(concurrent.replayed, true);
  const replay = await act(params);
  assert.is(replay.replayed, true);
  assert.is(statusOf(await observe()), 'clicked 1', 'executed once');
  const conflict = await act({ ...params, ref: ref(o, 'Covered') });
  assert.is(conflict.status, 'request_id_conflict');
  assert.is(conflict.execution, 'not_dispatched');
});

s('cancel during a long wait_for: outcome_unknown with operation_cancelled; idle when nothing runs', async () => {
  const o = await open('/act.html');
  assert.equal(await client.call('cancel', { session_id: sessionId }), { status: 'idle' });
  const running = act({
    state_id: o.state_id,
    action: 'click',
    ref: ref(o, 'Count'),
    wait_for: { text: 'never appears' },
    request_id: `cancel-${o.state_id}`,
  });
  // The act is running (waiting) once its click has landed; the page is read behind the
  // session's queue, which the running act holds.
  const status = () => evaluate<string>(server, o.target_id, `document.getElementById('status').textContent`);
  for (let i = 0; i < 500 && (await status()) !== 'clicked 1'; i++);
  const cancelled = await client.call('cancel', { session_id: sessionId });
  assert.is(cancelled.status, 'cancellation_requested');
  const r = await running;
  assert.is(r.status, 'outcome_unknown');
  assert.is(r.error_type, 'operation_cancelled');
  const replay = await act({
    state_id: o.state_id,
    action: 'click',
    ref: ref(o, 'Count'),
    wait_for: { text: 'never appears' },
    request_id: `cancel-${o.state_id}`,
  });
  assert.is(replay.status, 'outcome_unknown', 'a cancelled request is never replayed as if it had run');
});

s('timeout_ms 0 means the default; 60001 and -1 are invalid params that touch no state', async () => {
  const o = await open('/act.html');
  for (const timeout of [60_001, -1, 1.5]) {
    const error = await client.callError('act', {
      session_id: sessionId,
      state_id: o.state_id,
      action: 'click',
      ref: ref(o, 'Count'),
      timeout_ms: timeout,
    });
    assert.is(error.data?.error_type, 'invalid_params');
  }
  const missing = await client.callError('act', { session_id: sessionId, state_id: o.state_id, action: 'type', ref: ref(o, 'Name') });
  assert.is(missing.data?.error_type, 'invalid_params');
  assert.ok((missing.data?.issues as Array<{ path: string }>).some((i) => i.path === 'text'));
  const badKey = await client.callError('act', { session_id: sessionId, state_id: o.state_id, action: 'press', key: 'Hyper+Q' });
  assert.is(badKey.data?.error_type, 'invalid_params');
  const r = await act({ state_id: o.state_id, action: 'click', ref: ref(o, 'Count'), timeout_ms: 0 });
  assert.is(r.status, 'completed', 'the state was not consumed by the invalid calls');
});

s('screenshot: always attaches one; on_error when the status is not completed or verified (isError)', async () => {
  let o = await open('/act.html');
  const always = await client.call('act', {
    session_id: sessionId,
    state_id: o.state_id,
    action: 'click',
    ref: ref(o, 'Count'),
    screenshot: 'always',
  });
  assert.is(always.screenshot?.mime, 'image/png');
  assert.ok((always.screenshot?.data.length ?? 0) > 1000);
  o = always.fresh_state!;
  const quiet = await client.call('act', {
    session_id: sessionId,
    state_id: o.state_id,
    action: 'click',
    ref: ref(o, 'Count'),
    screenshot: 'on_error',
  });
  assert.is(quiet.screenshot, undefined);
  o = quiet.fresh_state!;
  const failed = await client.call('act', {
    session_id: sessionId,
    state_id: o.state_id,
    action: 'click',
    ref: ref(o, 'Covered'),
    screenshot: 'on_error',
  });
  assert.is(failed.error_type, 'click_intercepted');
  assert.is(failed.screenshot?.mime, 'image/png');
  // One rule with MCP's isError: every status but completed and verified is a failure.
  o = await observe();
  const unmet = await act({
    state_id: o.state_id,
    action: 'click',
    ref: ref(o, 'Count'),
    wait_for: { text: 'never shown anywhere' },
    timeout_ms: 800,
    screenshot: 'on_error',
  });
  assert.is(unmet.status, 'condition_not_met');
  assert.is(unmet.screenshot?.mime, 'image/png', 'condition_not_met has one');
  o = unmet.fresh_state!;
  const interrupted = await act({
    state_id: o.state_id,
    actions: [{ action: 'navigate', url: fixtures.url('/act.html?again=1') }, { action: 'click', ref: ref(o, 'Count') }],
    screenshot: 'on_error',
  });
  assert.is(interrupted.status, 'interrupted');
  assert.is(interrupted.screenshot?.mime, 'image/png', 'interrupted has one');
  o = interrupted.fresh_state!;
  const verified = await act({
    state_id: o.state_id,
    action: 'click',
    ref: ref(o, 'Show later'),
    wait_for: { text: 'Appeared' },
    screenshot: 'on_error',
  });
  assert.is(verified.status, 'verified');
  assert.is(verified.screenshot, undefined);
});

s('upload: confined to the uploads root (forbidden without one)', async () => {
  const o = await open('/act.html');
  const r = await act({ state_id: o.state_id, action: 'upload', ref: ref(o, 'Choose File'), paths: ['/etc/passwd'] });
  assert.is(r.status, 'action_failed');
  assert.is(r.error_type, 'forbidden');
});

s.run();
