// observe against real pages (PROTOCOL.md §6, §11).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { TestClient } from '../helpers/client.ts';
import type { FixtureServer } from '../helpers/fixture-server.ts';
import { evaluate, readerOf, tabOf } from '../helpers/page.ts';
import type { TestServer } from '../helpers/pagewire.ts';
import { openAlone, withSession } from '../helpers/session-suite.ts';
import { waitUntil } from '../helpers/wait.ts';
import type { Observation } from '../helpers/wire.ts';

const s = suite('observe');
let server: TestServer;
let fixtures: FixtureServer;
let client: TestClient;
let sessionId: string;

const ctx = withSession(s, 'observe', (context) => ({ server, fixtures, client, sessionId } = context));

/** One tab per test: the session stays far below its tab limit. */
const open = (path: string) => openAlone(ctx, path);

function observe(params: Record<string, unknown> = {}): Promise<Observation> {
  return client.call('observe', { session_id: sessionId, ...params });
}

/** Observes until `predicate` holds (frames load after DOMContentLoaded), within 10 s. */
function observeUntil(predicate: (o: Observation) => boolean, params: Record<string, unknown> = {}): Promise<Observation> {
  return waitUntil(() => observe(params), predicate, { what: 'the frames', intervalMs: 0 });
}

const byName = (o: Observation, name: string) => o.elements.find((e) => e.name === name);

s('identity: state id, target, frame and the observed document', async () => {
  const targetId = await open('/child.html');
  const o = await observe();
  assert.match(o.state_id, /^st_/);
  assert.is(o.session_id, sessionId);
  assert.is(o.target_id, targetId);
  assert.is(o.frame_id, targetId, 'the main frame id is the target id');
  assert.is(o.document.frame_id, targetId);
  assert.is(o.document.loader_id, tabOf(server, targetId).frames.get(targetId)!.loaderId);
  assert.is(o.document.url, fixtures.url('/child.html'));
  assert.is(o.title, 'Child frame');
  assert.is(o.truncated, false);
  assert.equal(o.elements.map((e) => [e.ref, e.role, e.name]), [['@1', 'button', 'Inner button']]);
  assert.match(o.tree, /button "Inner button" @1/);
  const again = await observe();
  assert.is.not(again.state_id, o.state_id, 'every observation has its own state id');
});

s('open and closed shadow roots, slots, a same-origin and a cross-site iframe', async () => {
  const targetId = await open('/shadow-iframe.html');
  const o = await observeUntil((x) => x.elements.filter((e) => /^Frame button/.test(e.name)).length >= 20);
  for (const name of ['Deep button', 'Deep input', 'Closed button', 'Slotted button']) {
    const element = byName(o, name);
    assert.ok(element, `${name} in ${o.tree}`);
    assert.is(element!.frame_id, targetId);
  }
  const frameButtons = o.elements.filter((e) => e.name === 'Frame button 1');
  assert.is(frameButtons.length, 2, 'one in each iframe');
  const frames = tabOf(server, targetId).frames.list();
  const sameOrigin = frames.find((f) => f.parentId === targetId && !f.crossProcess)!;
  const crossSite = frames.find((f) => f.crossProcess)!;
  assert.ok(crossSite, 'the localhost frame runs in its own process');
  assert.equal(frameButtons.map((e) => e.frame_id).sort(), [sameOrigin.id, crossSite.id].sort());
  assert.ok(o.frames.every((f) => f.status === 'observed'), JSON.stringify(o.frames));
  // The iframe line names the frame by its title; which frame is in each element's frame_id.
  assert.match(o.tree, /\niframe "Cross-site frame"\n button "Frame button 1" @\d+ "Frame button 2" @\d+ /);
  assert.not.match(o.tree, /frame=/);
});

s('cursor:pointer and click-listener divs get refs; a plain div, hidden and aria-hidden nodes do not', async () => {
  await open('/clickables.html');
  const o = await observe();
  const refd = o.elements.map((e) => e.name || o.tree.split('\n').find((l) => l.endsWith(e.ref)));
  assert.ok(
    o.elements.some((e) => e.role === 'generic' && /Pointer div/.test(o.tree.split(e.ref)[1] ?? '')) || o.tree.includes('Pointer div'),
  );
  const lineOf = (text: string) => o.tree.split('\n').findIndex((l) => l.includes(text));
  const refLineAbove = (text: string) => {
    const lines = o.tree.split('\n');
    for (let i = lineOf(text); i >= 0; i--) if (/@\d+$/.test(lines[i]!)) return lines[i]!;
    return '';
  };
  assert.match(refLineAbove('Pointer div'), /^generic @\d+$/, 'the pointer div carries a ref');
  assert.match(refLineAbove('Listener div'), /^generic @\d+$/, 'the listener div carries a ref');
  assert.is(o.elements.filter((e) => e.role === 'generic').length, 2, 'the child span and the plain div do not');
  assert.ok(byName(o, 'Role button span'));
  assert.ok(byName(o, 'First tab'));
  assert.not.ok(o.tree.includes('Hidden'), o.tree);
  const below = byName(o, 'Below the fold')!;
  assert.is(below.visible, true);
  assert.is(below.in_viewport, false);
  assert.is(byName(o, 'Role button span')!.in_viewport, true);
  void refd;
});

/**
 * The refs of the tree line matching `pattern` and of the lines it is nested in, innermost
 * first: which ref'd elements hold it.
 */
function refChain(o: Observation, pattern: RegExp): string[] {
  const lines = o.tree.split('\n');
  const at = lines.findIndex((line) => pattern.test(line));
  if (at < 0) throw new Error(`no line matches ${pattern} in\n${o.tree}`);
  const depth = (line: string) => line.length - line.trimStart().length;
  const chain: string[] = [];
  let within = Infinity;
  for (let i = at; i >= 0; i--) {
    const line = lines[i]!;
    if (i !== at && depth(line) >= within) continue;
    within = depth(line);
    const ref = / (@\d+)$/.exec(line)?.[1];
    if (ref) chain.push(`${line.trim().split(' ')[0]} ${ref}`);
  }
  return chain;
}

const roles = (chain: string[]) => chain.map((entry) => entry.split(' ')[0]);

s('delegating roots: a listener that serves the controls inside it gives no ref; the controls keep theirs', async () => {
  await open('/delegating-app.html');
  const o = await observe({ max_elements: 500 });
  // React-style root container: one listener for the whole app.
  assert.equal(refChain(o, /^ *heading "Inbox"/), [], `nothing holds the app's heading:\n${o.tree}`);
  assert.equal(roles(refChain(o, /"Overdue"/)), [], 'a card without a listener holds no ref');
  // What the root dispatches to: div buttons by role or by cursor, real buttons, links.
  assert.equal(roles(refChain(o, /"Import"/)), ['generic'], 'a cursor:pointer div button');
  for (const name of ['New task', 'Export', 'Account']) assert.ok(o.elements.some((e) => e.role === 'button' && e.name === name), name);
  for (const name of ['Acme Tasks', 'Projects', 'Reports']) assert.ok(o.elements.some((e) => e.role === 'link' && e.name === name), name);
  // A card with React's no-op onclick and only text inside is a control.
  assert.equal(roles(refChain(o, /"Open tasks"/)), ['generic']);
  // A chip list delegating on its container, chips with listeners of their own.
  const all = refChain(o, /"All"/);
  assert.equal(roles(all), ['generic'], 'the chip, not its container');
  assert.is.not(refChain(o, /"Flagged"/)[0], all[0]);
  // A list with a listener, its items styled clickable: the items are the controls.
  assert.equal(roles(refChain(o, /"Write the release notes Mon"/)), ['listitem']);
  assert.equal(roles(refChain(o, /"Inbox"$/)), ['listitem']);
  // Rows whose listener serves their buttons carry none; a clickable row of text does.
  assert.equal(roles(refChain(o, /"Edit Ana"/)), ['button']);
  assert.equal(roles(refChain(o, /"Ana Lima"/)), []);
  assert.equal(roles(refChain(o, /"Pending invite"/)), ['row']);
  // The refs that are there do what a person's click does.
  const clicked = await client.call<{ status: string; fresh_state: Observation }>('act', {
    session_id: sessionId,
    state_id: o.state_id,
    action: 'click',
    ref: refChain(o, /"Import"/)[0]!.split(' ')[1],
  });
  assert.is(clicked.status, 'completed');
  assert.match(clicked.fresh_state.tree, /"action: import"/);
  const invite = await client.call<{ status: string; fresh_state: Observation }>('act', {
    session_id: sessionId,
    state_id: clicked.fresh_state.state_id,
    action: 'click',
    ref: refChain(clicked.fresh_state, /"Pending invite"/)[0]!.split(' ')[1],
  });
  assert.match(invite.fresh_state.tree, /"invite opened"/);
});

s(
  'a documentation page: the body wrapper listener gives no ref; links, fields, copy buttons and a cross-site frame keep theirs',
  async () => {
    await open(`/docs-page.html?frame=${encodeURIComponent(fixtures.otherUrl('/frame-buttons.html'))}`);
    const o = await observeUntil((x) => x.elements.some((e) => e.name === 'Frame button 10'), { max_elements: 500 });
    assert.equal(refChain(o, /^ *heading "Installation"/), [], o.tree);
    assert.equal(o.elements.filter((e) => e.role === 'generic'), [], 'no generic element carries a ref');
    for (const name of ['Overview', 'From PyPI', 'From source', 'Next steps']) {
      assert.ok(
        o.elements.some((e) => e.role === 'link' && e.name === name),
        name,
      );
    }
    assert.is(o.elements.filter((e) => e.role === 'button' && e.name === 'Copy').length, 2);
    assert.ok(byName(o, 'Search docs'));
    assert.equal(roles(refChain(o, /button "Frame button 1"/)), ['button']);
    const frameButton = o.elements.find((e) => e.name === 'Frame button 1')!;
    assert.is.not(frameButton.frame_id, o.frame_id, 'read in the other site’s frame');
  },
);

s('clickable cards, tiles and sortable headers keep their refs; a card whose way in is its link does not', async () => {
  await open('/cards.html');
  const o = await observe({ max_elements: 500 });
  // A listener and only an image and text inside.
  assert.equal(roles(refChain(o, /^ *heading "Arc floor lamp"/)), ['generic'], o.tree);
  // cursor:pointer on the card itself: clickable as a whole, with its own button inside too.
  assert.equal(roles(refChain(o, /button "Save desk lamp"/)), ['button', 'generic']);
  // A listener only, and a link inside: the link is the control.
  assert.equal(roles(refChain(o, /link "View pendant lamp"/)), ['link']);
  assert.equal(roles(refChain(o, /^ *heading "Pendant lamp"/)), []);
  // Listeners on the card and on each swatch: the swatches are the controls.
  assert.equal(roles(refChain(o, /"Black"/)), ['generic']);
  assert.equal(roles(refChain(o, /^ *heading "Globe lamp"/)), []);
  // Tiles styled clickable and handled on the document.
  assert.equal(roles(refChain(o, /"Floor lamps"/)), ['generic']);
  assert.equal(roles(refChain(o, /"Table lamps"/)), ['generic']);
  // Sortable column headers (not focusable, a listener and a pointer cursor).
  assert.ok(o.elements.some((e) => e.role === 'columnheader' && /^Name/.test(e.name)), o.tree);
  assert.ok(o.elements.some((e) => e.role === 'columnheader' && /^Price/.test(e.name)));
  assert.not.ok(o.elements.some((e) => e.role === 'columnheader' && /^Stock/.test(e.name)));
});

s('max_elements: 150 by default with truncated, up to 500 on request, out of range refused', async () => {
  await open('/buttons-400.html');
  const first = await observe();
  assert.is(first.elements.length, 150);
  assert.is(first.truncated, true);
  assert.is(first.elements[0]!.name, 'Button 1');
  assert.is(first.elements[149]!.name, 'Button 150', 'the first ones in document order are kept');
  const all = await observe({ max_elements: 500 });
  assert.is(all.elements.length, 400);
  assert.is(all.truncated, false);
  assert.is(all.elements[0]!.ref, first.elements[0]!.ref, 'refs are stable across observations');
  for (const bad of [0, 501, 1.5]) {
    const error = await client.callError('observe', { session_id: sessionId, max_elements: bad });
    assert.is(error.data?.error_type, 'invalid_params');
  }
});

s('refs survive a DOM change; diff names added, removed and changed elements', async () => {
  const targetId = await open('/mutable.html');
  const before = await observe();
  const alpha = byName(before, 'Alpha')!.ref;
  const echo = byName(before, 'Echo')!.ref;
  await evaluate(server, targetId, `addButton('Foxtrot'); removeButton('Bravo'); renameButton('Charlie', 'Charles')`);
  const after = await observe({ since: before.state_id });
  assert.is(byName(after, 'Alpha')!.ref, alpha, 'an untouched node keeps its ref');
  assert.is(byName(after, 'Echo')!.ref, echo);
  const foxtrot = byName(after, 'Foxtrot')!;
  assert.ok(!before.elements.some((e) => e.ref === foxtrot.ref), 'a new node gets a new ref, never an old one');
  assert.ok(after.diff, 'diff is present');
  assert.is(after.diff!.base, before.state_id);
  assert.equal(after.diff!.added.map((e) => e.name), ['Foxtrot']);
  assert.equal(after.diff!.removed, [byName(before, 'Bravo')!.ref]);
  assert.equal(after.diff!.changed.map((e) => [e.ref, e.name]), [[byName(before, 'Charlie')!.ref, 'Charles']]);
  assert.is(after.diff!.text_changed, true);
  const same = await observe({ since: after.state_id });
  assert.equal([same.diff!.added, same.diff!.changed, same.diff!.removed, same.diff!.text_changed], [[], [], [], false]);
  const unknown = await observe({ since: 'st_nope_1' });
  assert.is(unknown.diff, undefined, 'an unknown base gives the full observation alone');
});

s('a node replaced by an identical twin gets a new ref', async () => {
  const targetId = await open('/mutable.html');
  const before = await observe();
  await evaluate(server, targetId, `removeButton('Delta'); addButton('Delta')`);
  const after = await observe();
  assert.is.not(byName(after, 'Delta')!.ref, byName(before, 'Delta')!.ref);
});

s('redaction: no userinfo, query or fragment in URLs; no input values; no token-looking text', async () => {
  const port = new URL(fixtures.origin).port;
  const { target_id } = await client.call('tabs.new', {
    session_id: sessionId,
    url: `http://alice:pa55word@127.0.0.1:${port}/secrets.html?session=s3cr3t#frag`,
  });
  const o = await observe({ include_text: true });
  const wire = JSON.stringify(o);
  for (
    const secret of [
      'alice',
      'pa55word',
      's3cr3t',
      '#frag',
      'prefilled-secret-value',
      'textarea-secret-content',
      'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9',
      'sk-live-abcdefghijklmnopqrstuvwx',
      'abc123',
    ]
  ) {
    assert.not.ok(wire.includes(secret), `${secret} leaked: ${wire}`);
  }
  assert.is(o.url, fixtures.url('/secrets.html'));
  assert.is(o.document.url, fixtures.url('/secrets.html'));
  const link = o.elements.find((e) => e.role === 'link')!;
  assert.is(link.href, fixtures.url('/child.html'));
  assert.is(byName(o, 'Secret field')!.has_value, true);
  assert.match(o.text!, /\[redacted\]/);
  assert.match(o.text!, /Account details/);
  void target_id;
});

s('include_text returns the visible text; without it there is no text field', async () => {
  await open('/article.html');
  const plain = await observe();
  assert.is(plain.text, undefined);
  const withText = await observe({ include_text: true });
  assert.ok(withText.text!.length > 10_000, `article text is ${withText.text!.length} chars`);
  assert.ok(withText.elements.every((e) => e.role === 'link'));
});

s('root_ref observes only that subtree', async () => {
  await open('/shadow-iframe.html');
  const full = await observeUntil((x) => x.elements.some((e) => e.name === 'Frame button 10'));
  const frameLine = full.tree.split('\n').find((l) => l.startsWith('iframe "Same-origin frame"'))!;
  assert.ok(frameLine, full.tree);
  const deep = byName(full, 'Deep button')!;
  const sub = await observe({ root_ref: deep.ref });
  assert.equal(sub.elements.map((e) => e.ref), [deep.ref]);
  const error = await client.callError('observe', { session_id: sessionId, root_ref: '@99999' });
  assert.is(error.data?.error_type, 'invalid_params');
});

s('a pending dialog: observe answers at once with the dialog and an empty tree', async () => {
  const targetId = await open('/alert.html');
  const tab = tabOf(server, targetId);
  const opened = new Promise((resolve) => tab.dialogs.events.on('opened', resolve));
  await evaluate(server, targetId, 'openAlertSoon()');
  await opened;
  const o = await observe();
  assert.equal(o.dialog, { type: 'alert', message: 'timer alert' });
  assert.is(o.tree, '');
  assert.equal(o.elements, []);
  assert.match(o.state_id, /^st_/);
  await tab.session.send('Page.handleJavaScriptDialog', { accept: true });
  const after = await observe();
  assert.is(after.dialog, undefined);
  assert.ok(byName(after, 'Alert me'));
});

s('an iframe that never finishes loading is unavailable; the rest is returned', async () => {
  await open('/never-loads-frame.html');
  const o = await observe();
  assert.ok(byName(o, 'Working button'));
  const hanging = o.frames.find((f) => f.frame_id !== o.frame_id);
  assert.ok(hanging, JSON.stringify(o.frames));
  assert.is(hanging!.status, 'unavailable');
  assert.type(hanging!.reason, 'string');
  assert.is(o.frames.find((f) => f.frame_id === o.frame_id)!.status, 'observed');
  assert.match(o.tree, /iframe "Hanging frame" \[unavailable: [^\]]+\]/);
});

s('repeated observations of an unchanged page reuse the last read; any change is seen', async () => {
  const form = await open('/form.html');
  void form;
  const first = await observe();
  const again = await observe();
  assert.equal(again.elements, first.elements);
  assert.is(again.tree, first.tree);
  // A property change fires no event and no mutation: the control digest still sees it.
  await evaluate(server, first.target_id, `document.querySelectorAll('input[type=checkbox]')[1].checked = true`);
  const checked = await observe();
  assert.is(byName(checked, 'Text me')!.checked, true);
  // A change inside a closed shadow root, which page scripts cannot observe.
  await open('/shadow-iframe.html');
  await observeUntil((x) => x.elements.filter((e) => e.name === 'Frame button 10').length === 2);
  const before = await observe();
  assert.ok(byName(before, 'Closed button'));
  await evaluate(server, before.target_id, `renameClosedButton('Renamed closed')`);
  const after = await observe();
  assert.ok(byName(after, 'Renamed closed'), after.tree);
  assert.is(byName(after, 'Renamed closed')!.ref, byName(before, 'Closed button')!.ref, 'same node, same ref');
});

s('a form: labels name controls; states; values only as has_value', async () => {
  await open('/form.html');
  const o = await observe();
  assert.is(byName(o, 'Email')!.required, true);
  assert.is(byName(o, 'Account ID')!.disabled, true);
  assert.is(byName(o, 'Email me')!.checked, true);
  assert.is(byName(o, 'Text me')!.checked, false);
  assert.is(byName(o, 'Password')!.has_value, true);
  assert.is(byName(o, 'Full name')!.has_value, false);
  assert.not.ok(JSON.stringify(o).includes('hunter2'));
});

s('values typed or chosen inside table cells, grid rows, labels and buttons are nowhere in the observation', async () => {
  const targetId = await open('/table-values.html');
  const before = await observe();
  // Typed and chosen through act (the text field and the select in table cells), and set by the
  // page (the rest).
  const typed = await client.call('act', {
    session_id: sessionId,
    state_id: before.state_id,
    actions: [
      { action: 'type', ref: byName(before, 'Note for order 7')!.ref, text: 'TYPED-NOTE-1' },
      { action: 'select', ref: byName(before, 'Status for order 7')!.ref, label: 'Cancelled' },
    ],
  });
  assert.is(typed.status, 'completed');
  await evaluate(
    server,
    targetId,
    `
    for (const [id, value] of [['qty', '4242'], ['grid-note', 'TYPED-GRID-2'], ['courier', 'TYPED-COURIER-3'], ['code', 'TYPED-CODE-4'], ['inner', 'TYPED-INNER-5']]) {
      document.getElementById(id).value = value;
    }
    document.getElementById('grid-status').value = 'Closed';
    document.getElementById('when').value = 'Tomorrow';
  `,
  );
  const o = await observe({ include_text: true });
  const wire = JSON.stringify(o);
  for (const value of ['TYPED-NOTE-1', '4242', 'TYPED-GRID-2', 'TYPED-COURIER-3', 'TYPED-CODE-4', 'TYPED-INNER-5']) {
    assert.not.ok(wire.includes(value), `${value} leaked:\n${o.tree}\n${JSON.stringify(o.elements)}`);
  }
  // A chosen option shows only as one of the options of its select, never on its own.
  const withoutOptionLists = (tree: string) => tree.replace(/options: [^\]]*\]/g, '');
  for (const chosen of ['Cancelled', 'Closed', 'Tomorrow']) {
    assert.not.ok(withoutOptionLists(o.tree).includes(chosen), `${chosen} shown:\n${o.tree}`);
    assert.not.ok(o.text!.includes(chosen), `${chosen} in text:\n${o.text}`);
    assert.not.ok(o.elements.some((e) => e.name.includes(chosen)), `${chosen} in a name: ${JSON.stringify(o.elements)}`);
  }
  assert.match(
    o.tree,
    /\n {2}"Order 7"\n {2}textbox "Note for order 7" \[has_value\] @\d+\n {2}combobox "Status for order 7" \[(?:focused, )?options: "Pending", "Shipped", "Cancelled"\] @\d+\n/,
  );
  assert.is(byName(o, 'Status for order 7')!.has_value, true);
  // Names keep their text without the values in them.
  assert.ok(o.elements.some((e) => e.role === 'row' && e.name === 'Line 1'), JSON.stringify(o.elements));
  assert.is(o.elements.find((e) => e.role === 'combobox' && e.name.startsWith('Deliver'))?.name, 'Deliver via');
  assert.is(o.elements.find((e) => e.role === 'button' && e.name.includes('code'))?.name, 'the code');
  assert.ok(byName(o, 'Apply'), JSON.stringify(o.elements));
});

s('inline text runs are one line each: a bold count in a sentence, a chat preview, the to-do counter', async () => {
  await open('/notifications.html');
  const o = await observe({ include_text: true });
  const lines = o.tree.split('\n').map((line) => line.trim());
  assert.ok(lines.includes('"You have 3 new messages today."'), o.tree);
  assert.ok(lines.includes('"Ben Okafor: the build is green again, thanks! 8:40"'), o.tree);
  // A link in a sentence keeps its own line and ref; the sentence is split at it.
  const link = lines.findIndex((line) => /^link "q4-plan\.pdf" @\d+$/.test(line));
  assert.equal(lines.slice(link - 1, link + 2).map((line) => line.replace(/@\d+/, '@')), [
    '"Chen Rui shared"',
    'link "q4-plan.pdf" @',
    '"with the team Yesterday"',
  ]);
  // The time beside a message, set apart by a margin only, is a word of its own.
  assert.ok(lines.includes('"Ana Lima replied to @you in #design 9:12"'), o.tree);
  assert.ok(lines.includes('"Last synced just now · 4 people online"'), o.tree);
  assert.ok(o.text!.split('\n').includes('You have 3 new messages today.'), o.text);
  await open('/todomvc.html');
  const todo = await observe();
  assert.match(todo.tree, /\n "2 items left"\n/);
});

s('a Prism-highlighted code block reads as its source text, one tree line a source line', async () => {
  const targetId = await open('/docs-code.html');
  const o = await observe({ include_text: true, max_elements: 500 });
  const tree = o.tree.split('\n');
  // The source of each shown block, from the page: its text split at its line breaks.
  const blocks = await evaluate<string[][]>(
    server,
    targetId,
    `[...document.querySelectorAll('pre')].filter((pre) => pre.offsetParent && !pre.closest('.linenos')).map((pre) => pre.innerText.split('\\n').map((line) => line.trimEnd()).filter((line) => line.trim()))`,
  );
  assert.is(blocks.length, 5);
  for (const source of blocks) {
    const first = tree.findIndex((line, i) =>
      line.trim() === JSON.stringify(source[0]) && tree[i + 1]?.trim() === JSON.stringify(source[1])
    );
    assert.ok(first > 0 && /^\s*(code|pre)$/.test(tree[first - 1]!), `a code line above ${source[0]}\n${o.tree}`);
    const shown = tree.slice(first, first + source.length).map((line) => JSON.parse(line.trim()) as string);
    source.forEach((line, i) => {
      if (line.length <= 120) assert.is(shown[i], line);
      else {assert.ok(
          shown[i]!.length <= 120 && shown[i]!.startsWith(line.slice(0, 30)) && shown[i]!.endsWith(line.slice(-20)) &&
            shown[i]!.includes(' … '),
          shown[i],
        );}
    });
    // `text` has every line whole.
    assert.ok(o.text!.includes(source.join('\n')), source[0]);
  }
  assert.ok(tree.includes('  "An order is what a customer bought in … at most 100 orders, newest first."'), o.tree);
  assert.ok(!tree.some((line) => /^\s*"[0-9]+"$/.test(line) || line.trim() === '"1 2 3 4 5"'), 'no line-number gutter');
  // Against Playwright MCP's browser_snapshot of this page (bench/README.md): at most half its bytes.
  assert.ok(new TextEncoder().encode(o.tree).length <= 8588 / 2, `${new TextEncoder().encode(o.tree).length} B`);
});

s("a layout that could not be read is said, not passed off as the page's; observing again reads it", async () => {
  const targetId = await open('/clickables.html');
  const whole = await observe();
  const listenerOnly = whole.elements.filter((e) => !['button', 'link', 'checkbox', 'textbox', 'radio', 'combobox'].includes(e.role));
  assert.ok(listenerOnly.length > 0, 'the page has elements clickable only through a listener or a pointer');
  assert.ok(whole.elements.every((e) => e.visible), 'all laid out');
  assert.is(whole.frames[0]!.reason, undefined);
  const { session } = tabOf(server, targetId);
  const original = session.sendRaw;
  session.sendRaw = function (method, params, options) {
    // The renderer's snapshot runs out of the read's time.
    if (method === 'DOMSnapshot.captureSnapshot') return Promise.reject(new Error('no answer within the budget'));
    return original.call(this, method, params, options);
  };
  let degraded: Observation;
  try {
    readerOf(server, sessionId, targetId).forgetReads();
    degraded = await observe();
  } finally {
    session.sendRaw = original;
  }
  assert.is(degraded.frames[0]!.status, 'observed');
  assert.match(degraded.frames[0]!.reason ?? '', /layout could not be read/);
  assert.ok(degraded.elements.every((e) => !e.visible && !e.in_viewport), 'nothing is claimed visible');
  const again = await observe();
  assert.is(again.frames[0]!.reason, undefined, 'the read without a layout was not kept');
  assert.equal(again.elements, whole.elements);
});

s.run();
