// Observations after a change re-read only what changed (observer.ts, ax-document.ts,
// change-monitor.ts). Each case changes a real page one way, observes (patched or reused read),
// then forgets the cached read and observes again (full read): both must say the same.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { evaluate, readerOf, tabOf } from '../helpers/page.ts';
import { openAlone, withSession } from '../helpers/session-suite.ts';
import { freshState, type Observation, type ServerDiagnostics as Counts } from '../helpers/wire.ts';

const s = suite('incremental observation');
const ctx = withSession(s, 'incremental');
let targetId: string;

async function open(path: string): Promise<void> {
  targetId = await openAlone(ctx, path);
}

const observe = () => ctx.client.call('observe', { session_id: ctx.sessionId, target_id: targetId, include_text: true, max_elements: 500 });

async function counts(): Promise<Counts> {
  return (await ctx.client.call('server.info')).diagnostics;
}

/** Opens the incremental fixture, runs `script` in it, and observes once the page is quiet. */
async function openWithScript(script: string): Promise<Observation & { state_id: string }> {
  await open('/incremental.html');
  await evaluate(ctx.server, targetId, script);
  await quiet();
  return (await observe()) as Observation & { state_id: string };
}

/** Acts on the tab and says how its fresh observation was read (server.info diagnostics, before and after). */
async function actCounted(stateId: string, params: Record<string, unknown>) {
  const before = await counts();
  const answer = await ctx.client.call('act', { session_id: ctx.sessionId, target_id: targetId, state_id: stateId, ...params });
  const after = await counts();
  return {
    answer,
    prefetched: after.changes_prefetched - before.changes_prefetched,
    preread: after.ax_parts_prefetched - before.ax_parts_prefetched,
    full: after.frame_reads_full - before.frame_reads_full,
  };
}

/**
 * Changes the page with `script`, observes, and checks the answer against a full read. Returns
 * how the frames were read in the first observation.
 */
/** Observes until a read finds nothing changed (frames still loading fire load and resize events). */
async function quiet(): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const before = await counts();
    await observe();
    const after = await counts();
    if (after.frame_reads_full === before.frame_reads_full && after.frame_reads_patched === before.frame_reads_patched) return;
  }
  throw new Error('the page never stopped changing');
}

async function changeAndCompare(script: string): Promise<{ patched: number; full: number; observation: Observation }> {
  await quiet(); // the last read to patch
  await evaluate(ctx.server, targetId, script);
  const before = await counts();
  const patched = await observe();
  const after = await counts();
  readerOf(ctx.server, ctx.sessionId, targetId).forgetReads();
  const full = await observe();
  assert.is(patched.tree, full.tree, `tree after: ${script}`);
  assert.is(patched.text, full.text, `text after: ${script}`);
  assert.equal(patched.elements, full.elements, `elements after: ${script}`);
  return {
    patched: after.frame_reads_patched - before.frame_reads_patched,
    full: after.frame_reads_full - before.frame_reads_full,
    observation: patched,
  };
}

s('small changes are patched in, and the result equals a full read', async () => {
  await open('/incremental.html');
  await observe();
  const cases: Array<[string, (o: Observation) => boolean]> = [
    ["document.querySelector('#status').textContent = 'busy'", (o) => o.tree.includes('busy')],
    ["document.querySelector('#counter b').textContent = '7'", (o) => o.tree.includes('button "Count: 7"')],
    ["document.querySelector('#query-label').textContent = 'Find orders'", (o) => o.tree.includes('searchbox "Find orders"')],
    ["document.querySelector('#hint').textContent = 'Customer name'", (o) => o.elements.some((e) => e.name === 'Customer name')],
    [
      "const r = document.querySelector('#r2').cloneNode(true); r.id = 'r4'; r.querySelector('button').textContent = 'Open 4'; document.querySelector('#orders tbody').append(r)",
      (o) => o.tree.includes('button "Open 4"'),
    ],
    ["document.querySelector('#r1').remove()", (o) => !o.tree.includes('Open 1')],
    ["document.querySelector('#r3 input').click()", (o) => o.elements.some((e) => e.name === 'Paid 3' && e.checked === true)],
    ["document.querySelector('#more').classList.remove('hidden')", (o) => o.tree.includes('Hidden until shown')],
    ["document.querySelector('#card').classList.add('pointer')", (o) => o.elements.some((e) => e.role === 'generic')],
    [
      "document.querySelector('#list').insertAdjacentHTML('beforeend', '<li>Third <a href=\"#x\">link</a></li>')",
      (o) => o.tree.includes('link "link"'),
    ],
    ["document.querySelector('#r2 button').setAttribute('aria-label', 'Open order two')", (o) => o.tree.includes('Open order two')],
    ["document.body.append(Object.assign(document.createElement('p'), { textContent: 'Toast one' }))", (o) => o.tree.includes('Toast one')],
    [
      "document.body.append(Object.assign(document.createElement('div'), { textContent: 'Plain toast' }))",
      (o) => o.tree.includes('Plain toast'),
    ],
    [
      "document.body.insertAdjacentHTML('beforeend', '<div role=\"status\"><button>Undo</button></div>')",
      (o) => o.tree.includes('button "Undo"'),
    ],
    [
      "document.querySelector('#orders tbody').append(Object.assign(document.createElement('tr'), { innerHTML: '<td>Order 9</td>' }))",
      (o) => o.tree.includes('Order 9'),
    ],
  ];
  for (const [script, shows] of cases) {
    const { patched, full, observation } = await changeAndCompare(script);
    assert.ok(shows(observation), `the observation shows the change: ${script}\n${observation.tree}`);
    assert.is(full, 0, `no full read for: ${script}`);
    assert.is(patched, 1, `one patched frame for: ${script}`);
  }
});

s('a change below a listener decides whether it delegates the same way in a patched read as in a full one', async () => {
  await open('/delegating-app.html');
  await observe();
  // Each case changes what an element with a listener holds, or its cursor, not the element itself.
  const cases: Array<[string, (o: Observation) => boolean]> = [
    ["document.querySelector('#member-ana td:last-child').textContent = 'no actions'", (o) => /\n *row @\d+\n *"Ana Lima"/.test(o.tree)],
    [
      "document.querySelector('#member-ana td:last-child').innerHTML = '<button type=\"button\">Edit Ana</button>'",
      (o) => /\n *row\n *"Ana Lima"/.test(o.tree),
    ],
    [
      "document.querySelector('#open-card').insertAdjacentHTML('beforeend', '<button type=\"button\">Refresh</button>')",
      (o) => o.tree.includes('button "Refresh"') && !/generic @\d+\n *"12"/.test(o.tree),
    ],
    ["document.querySelector('#member-ben').classList.add('row-link')", (o) => /\n *row @\d+\n *"Ben Okafor"/.test(o.tree)],
    ["document.querySelector('#tasks').classList.add('nav-item')", (o) => /\n *list @\d+\n *"Write the release notes Mon"/.test(o.tree)],
  ];
  for (const [script, shows] of cases) {
    const { patched, full, observation } = await changeAndCompare(script);
    assert.ok(shows(observation), `the observation shows the change: ${script}\n${observation.tree}`);
    assert.is(full, 0, `no full read for: ${script}`);
    assert.is(patched, 1, `one patched frame for: ${script}`);
  }
});

s('text runs read the same patched as in full: a count in a sentence, a token in code, a line added to a code block', async () => {
  const chat: Array<[string, (o: Observation) => boolean]> = [
    ["document.querySelector('#banner .count').textContent = '2'", (o) => o.tree.includes('"You have 2 new messages today."')],
    [
      "document.querySelector('#synced').textContent = 'a minute ago'",
      (o) => o.tree.includes('"Last synced a minute ago · 4 people online"'),
    ],
    [
      "document.querySelector('.conversation .preview em').insertAdjacentHTML('afterend', '<b>!</b>')",
      (o) => o.tree.includes('"Ana Lima replied to @you in #design! 9:12"'),
    ],
  ];
  const docs: Array<[string, (o: Observation) => boolean]> = [
    ["document.querySelector('#panel-js .token.number').textContent = '5'", (o) => o.tree.includes('retries: 5 });')],
    [
      'document.querySelector(\'#panel-js code\').insertAdjacentHTML(\'beforeend\', \'\\n<span class="token keyword">export</span> <span class="token keyword">default</span> client<span class="token punctuation">;</span>\')',
      (o) => /\n +"export default client;"\n/.test(o.tree),
    ],
    ["document.querySelector('[aria-controls=panel-py]').click()", (o) => o.tree.includes('"    async with client.session() as session:"')],
  ];
  for (const [page, cases] of [['/notifications.html', chat], ['/docs-code.html', docs]] as const) {
    await open(page);
    await observe();
    for (const [script, shows] of cases) {
      const { observation } = await changeAndCompare(script);
      assert.ok(shows(observation), `the observation shows the change: ${script}\n${observation.tree}`);
    }
  }
});

s('values and checked states set by script, without an event, are seen', async () => {
  await open('/incremental.html');
  const { patched, observation } = await changeAndCompare(
    "document.querySelector('#r2 input').checked = true; document.querySelector('#query').value = 'secret words'",
  );
  assert.is(patched, 1);
  assert.ok(observation.elements.some((e) => e.name === 'Paid 2' && e.checked === true));
  assert.ok(observation.elements.some((e) => e.name === 'Search orders' && e.has_value === true));
  assert.not.ok(JSON.stringify(observation).includes('secret words'), 'values are never shown');
});

s('a typed value or a ticked box moves no box: the last geometry is kept', async () => {
  await open('/incremental.html');
  await quiet();
  const before = await counts();
  const { patched, observation } = await changeAndCompare(
    "const q = document.querySelector('#query'); q.value = 'abc'; q.dispatchEvent(new Event('input', { bubbles: true })); document.querySelector('#r1 input').click()",
  );
  const after = await counts();
  assert.is(patched, 1);
  assert.ok(observation.elements.some((e) => e.name === 'Paid 1' && e.checked === true));
  assert.ok(after.snapshots_kept > before.snapshots_kept, 'the snapshot was kept');
  assert.is(after.snapshots_light - before.snapshots_light, 0, 'no new snapshot for the patched read');
});

s('text changed in place keeps the last geometry only while every box stays where it was', async () => {
  await open('/incremental.html');
  await quiet();
  // A block's text replaced by text of the same extent: no element came, went or moved.
  let before = await counts();
  let change = await changeAndCompare("document.querySelector('#status').textContent = 'busy'");
  let after = await counts();
  assert.ok(change.observation.tree.includes('"busy"'));
  assert.is(change.patched, 1);
  assert.is(after.snapshots_light - before.snapshots_light, 0, 'no snapshot for text that moved nothing');
  assert.ok(after.snapshots_kept > before.snapshots_kept, 'the snapshot was kept');
  // Text long enough to wrap onto many lines pushes everything below it out of the viewport:
  // the boxes moved, so they are read again (and in_viewport follows, as in a full read).
  await quiet();
  before = await counts();
  change = await changeAndCompare("document.querySelector('#status').textContent = 'busy '.repeat(4000)");
  after = await counts();
  assert.is(change.patched, 1);
  assert.is(after.snapshots_light - before.snapshots_light, 1, 'moved boxes are read again');
  const size = change.observation.elements.find((e) => e.name === 'Size');
  assert.equal([size?.visible, size?.in_viewport], [true, false], 'the select was pushed below the viewport');
});

s('scrolling the document moves no box in it: the snapshot is kept and in_viewport follows', async () => {
  await open('/article.html');
  await quiet();
  const first = (o: Observation) => o.elements.find((e) => e.role === 'link');
  const before = await counts();
  const scrolled = await changeAndCompare(
    "new Promise((resolve) => { addEventListener('scroll', () => resolve(true), { once: true }); scrollTo(0, 3000); })",
  );
  const after = await counts();
  assert.is(scrolled.full, 0);
  assert.is(after.snapshots_light - before.snapshots_light, 0, 'no snapshot for a scroll');
  assert.ok(after.snapshots_kept > before.snapshots_kept, 'the snapshot was kept');
  assert.is(first(scrolled.observation)?.in_viewport, false, 'the first link scrolled out of view');
  assert.ok(scrolled.observation.elements.some((e) => e.in_viewport === true), 'others scrolled into view');
});

s('a text field scrolling its own text moves no box, on a page too big to measure its boxes', async () => {
  // Typing past a field's width scrolls the field's text, not the document: over MAX_BOXES
  // elements the monitor cannot measure that nothing moved, so the scroll itself must not count.
  await open('/large-table.html');
  await quiet();
  const before = await counts();
  const { patched, observation } = await changeAndCompare(
    "new Promise((resolve) => { const note = document.querySelector('#row1 input[type=text]'); note.addEventListener('scroll', () => resolve(true), { once: true }); note.value = 'w'.repeat(300); note.dispatchEvent(new Event('input', { bubbles: true })); note.scrollLeft = 100000; })",
  );
  const after = await counts();
  assert.is(patched, 1);
  assert.ok(observation.elements.some((e) => e.name === 'Note for row 1' && e.has_value === true));
  assert.is(after.snapshots_light - before.snapshots_light, 0, 'no snapshot for a field scrolling its text');
  assert.ok(after.snapshots_kept > before.snapshots_kept, 'the snapshot was kept');
});

s('what changed last time is read right behind the question, and used when it changed again', async () => {
  await open('/incremental.html');
  await quiet();
  const change = async (script: string) => {
    await evaluate(ctx.server, targetId, script);
    const before = await counts();
    const observation = await observe();
    const after = await counts();
    return {
      observation,
      early: after.ax_parts_prefetched - before.ax_parts_prefetched,
      patched: after.frame_reads_patched - before.frame_reads_patched,
    };
  };
  await change("document.querySelector('#status').textContent = 'saving'");
  const again = await change("document.querySelector('#status').textContent = 'saved'");
  assert.is(again.patched, 1);
  assert.is(again.early, 1, 'the status line was read early');
  assert.ok(again.observation.tree.includes('"saved"'));
  const elsewhere = await change("document.querySelector('#counter b').textContent = '5'");
  assert.is(elsewhere.early, 0, 'an early read of something that did not change is not used');
  assert.ok(elsewhere.observation.tree.includes('button "Count: 5"'));
  readerOf(ctx.server, ctx.sessionId, targetId).forgetReads();
  const full = await observe();
  assert.is(elsewhere.observation.tree, full.tree);
  assert.equal(elsewhere.observation.elements, full.elements);
});

s('a stylesheet or title change reads the document again in full', async () => {
  await open('/incremental.html');
  const style = await changeAndCompare("document.head.insertAdjacentHTML('beforeend', '<style>#status { display: none }</style>')");
  assert.is(style.full, 1);
  assert.ok(!style.observation.tree.includes('idle'));
  const title = await changeAndCompare("document.title = 'Renamed orders'");
  assert.is(title.full, 1);
});

s('changes inside open and closed shadow roots and inside iframes are patched too', async () => {
  await open('/shadow-iframe.html');
  // Wait for both frames.
  for (let i = 0; i < 100; i++) {
    const o = await observe();
    if (
      o.frames.length === 3 && o.frames.every((f) => f.status === 'observed') &&
      o.elements.filter((e) => /^Frame button/.test(String(e.name))).length === 20
    ) break;
  }
  // The cross-site frame's owner element was asked for once: the same parent document keeps it.
  const page = tabOf(ctx.server, targetId).session;
  const ownerQuestions: unknown[] = [];
  const original = page.sendRaw;
  page.sendRaw = function (method, params, options) {
    if (method === 'DOM.getFrameOwner') ownerQuestions.push(params);
    return original.call(this, method, params, options);
  };
  const deep = await changeAndCompare(
    "document.querySelector('#outer').shadowRoot.querySelector('inner-box').shadowRoot.querySelector('button').textContent = 'Deeper button'",
  );
  assert.ok(deep.observation.tree.includes('Deeper button'));
  assert.is(deep.full, 0);
  const closed = await changeAndCompare("window.renameClosedButton('Renamed closed')");
  assert.ok(closed.observation.tree.includes('Renamed closed'));
  assert.is(closed.full, 0);
  const framed = await changeAndCompare(
    "document.querySelector('#same-origin').contentDocument.querySelector('button').textContent = 'Framed change'",
  );
  assert.ok(framed.observation.tree.includes('Framed change'));
  assert.is(framed.full, 0);
  assert.is(framed.patched, 1);
  page.sendRaw = original;
  assert.equal(ownerQuestions, [], 'full reads and patched ones alike placed the frame without asking again');
});

s('a control added at the top of a closed shadow root is seen; a closed root holding a pseudo-element keeps its reads', async () => {
  await open('/shadow-iframe.html');
  await quiet();
  const added = await changeAndCompare("window.addToClosedBox('Added closed')");
  assert.ok(added.observation.tree.includes('Added closed'), added.observation.tree);
  // A design-system switch: a closed root whose label draws the switch with ::before.
  await open('/ui-kit.html');
  await observe();
  const before = await counts();
  await observe();
  const after = await counts();
  assert.is(after.frame_reads_full - before.frame_reads_full, 0, 'the first read was kept');
  assert.ok(after.frame_reads_reused > before.frame_reads_reused);
});

s('a fragment navigation reads only the old and new :target elements', async () => {
  await open('/incremental.html');
  const shown = await changeAndCompare("location.hash = '#panel'");
  assert.ok(shown.observation.tree.includes('button "Panel button"'), shown.observation.tree);
  assert.is(shown.full, 0);
  const hidden = await changeAndCompare("location.hash = '#title'");
  assert.not.ok(hidden.observation.tree.includes('Panel button'));
  assert.is(hidden.full, 0);
});

s('after a page with iframes navigates away, its frames are gone and reads are reused again', async () => {
  await open('/shadow-iframe.html');
  for (let i = 0; i < 100; i++) if ((await observe()).frames.length === 3) break;
  await evaluate(ctx.server, targetId, `location.href = ${JSON.stringify(ctx.fixtures.url('/incremental.html'))}`);
  let o = await observe();
  for (let i = 0; i < 100 && !o.tree.includes('Orders'); i++) o = await observe();
  assert.equal(o.frames.map((f) => f.status), ['observed'], `only the new document: ${JSON.stringify(o.frames)}`);
  const before = await counts();
  await observe();
  const after = await counts();
  assert.is(after.frame_reads_full - before.frame_reads_full, 0);
  assert.is(after.frame_reads_reused - before.frame_reads_reused, 1);
});

s('rules that show or hide other elements on a state, a sibling or focus within are followed', async () => {
  await open('/incremental-css.html');
  const checked = await changeAndCompare("document.querySelector('#toggle').click()");
  assert.ok(checked.observation.tree.includes('button "Panel action"'), `:checked + .panel\n${checked.observation.tree}`);
  const expanded = await changeAndCompare("document.querySelector('#opener').setAttribute('aria-expanded', 'true')");
  assert.ok(expanded.observation.tree.includes('link "Menu one"'), `[aria-expanded] + .menu\n${expanded.observation.tree}`);
  const invalid = await changeAndCompare(
    "const f = document.querySelector('#code'); f.value = 'abc'; f.dispatchEvent(new Event('input', { bubbles: true }))",
  );
  assert.ok(invalid.observation.tree.includes('Digits only'), `:invalid ~ .error\n${invalid.observation.tree}`);
  const focused = await changeAndCompare("document.querySelector('#inside').focus()");
  assert.ok(focused.observation.tree.includes('Press enter to search'), `:focus-within\n${focused.observation.tree}`);
  // Deep below a sibling: Chromium's relatives of the checkbox do not reach it.
  const deep = await changeAndCompare("document.querySelector('#toggle2').click()");
  assert.ok(deep.observation.tree.includes('More details'), `:checked ~ .deep .inner .more\n${deep.observation.tree}`);
  for (const { full } of [checked, expanded, invalid, deep]) assert.is(full, 0, 'read from the parent, not in full');
});

s("an act's fresh observation takes the changes as the page settles, and equals a full read", async () => {
  // A click handler that changes the page at once and again from a zero-delay timer: the settle
  // waits for the timer, and the changes taken with it must include both.
  let state: Observation = await openWithScript(
    "document.querySelector('#counter').addEventListener('click', () => { document.querySelector('#counter b').textContent = '1'; setTimeout(() => document.body.append(Object.assign(document.createElement('p'), { textContent: 'Saved later' })), 0); }); true",
  );
  const act = async (params: Record<string, unknown>) => {
    const counted = await actCounted((state as Observation & { state_id: string }).state_id, params);
    assert.ok(counted.answer.status === 'completed' || counted.answer.status === 'verified', counted.answer.status);
    return counted;
  };
  const ref = (name: string) => state.elements.find((e) => e.name === name)!.ref;
  const click = await act({ action: 'click', ref: ref('Count: 0') });
  assert.is(click.prefetched, 1, 'the changes came with the settle');
  assert.is(click.full, 0, 'and were patched in');
  assert.ok(freshState(click.answer).tree.includes('button "Count: 1"'), freshState(click.answer).tree);
  assert.ok(freshState(click.answer).tree.includes('Saved later'), `the timer's change is in: ${freshState(click.answer).tree}`);
  // A full read, observed with act's defaults, that the fresh observation must equal.
  const fullReadEquals = async (fresh: Observation): Promise<Observation> => {
    readerOf(ctx.server, ctx.sessionId, targetId).forgetReads();
    const read = await ctx.client.call('observe', { session_id: ctx.sessionId, target_id: targetId });
    assert.is(fresh.tree, read.tree);
    assert.equal(fresh.elements, read.elements);
    return read;
  };
  let full = await fullReadEquals(freshState(click.answer));

  state = full;
  const fill = await act({ action: 'fill', ref: ref('Search orders'), text: 'abc' });
  assert.is(fill.prefetched, 1);
  assert.is(fill.preread, 1, 'the field was read while the page settled');
  full = await fullReadEquals(freshState(fill.answer));
  assert.ok(freshState(fill.answer).elements.some((e) => e.name === 'Search orders' && e.has_value === true));

  // A page that empties the field again from a timer after its input: that early read is stale,
  // so the field is read again after the settle.
  await evaluate(
    ctx.server,
    targetId,
    "document.querySelector('#query').addEventListener('input', (event) => setTimeout(() => { event.target.value = ''; }, 0)); true",
  );
  state = full;
  const emptied = await act({ action: 'fill', ref: ref('Search orders'), text: 'xyz' });
  assert.is(emptied.preread, 0, 'the early read was not used');
  full = await fullReadEquals(freshState(emptied.answer));
  assert.ok(freshState(emptied.answer).elements.some((e) => e.name === 'Search orders' && e.has_value === false));

  // A batch takes the changes with its last input only; wait_for runs after it, so then none are.
  state = full;
  const batch = await act({
    actions: [{ action: 'check', ref: ref('Paid 1'), checked: true }, { action: 'check', ref: ref('Paid 2'), checked: true }],
  });
  assert.is(batch.prefetched, 1);
  assert.equal(freshState(batch.answer).elements.filter((e) => e.checked === true).map((e) => e.name), ['Paid 1', 'Paid 2']);
  state = freshState(batch.answer);
  const waited = await act({ action: 'check', ref: ref('Paid 3'), checked: true, wait_for: { text: 'Orders' } });
  assert.is(waited.prefetched, 0);
});

s('a fill whose handler updates a status line again has that line read while the page settles', async () => {
  let state = await openWithScript(
    "document.querySelector('#query').addEventListener('input', (event) => { document.querySelector('#status').textContent = 'typed ' + event.target.value; }); true",
  );
  const fill = async (text: string) => {
    const ref = state.elements.find((e) => e.name === 'Search orders')!.ref;
    const { answer, preread, full } = await actCounted(state.state_id, { action: 'fill', ref, text });
    assert.is(answer.status, 'completed');
    state = freshState(answer);
    return { tree: freshState(answer).tree, preread, full };
  };
  const first = await fill('one');
  assert.is(first.preread, 1, 'the first time, only the field is known to change');
  assert.match(first.tree, /typed one/);
  const second = await fill('two');
  assert.is(second.preread, 2, 'the second time, the status line that changed last time is read early too');
  assert.is(second.full, 0);
  assert.match(second.tree, /typed two/);
  // The fresh observation equals a full read made with act's defaults.
  readerOf(ctx.server, ctx.sessionId, targetId).forgetReads();
  const read = await ctx.client.call('observe', { session_id: ctx.sessionId, target_id: targetId });
  assert.is(second.tree, read.tree);
});

s('an unchanged page is not read again', async () => {
  await open('/incremental.html');
  await observe();
  const before = await counts();
  await observe();
  const after = await counts();
  assert.is(after.frame_reads_full - before.frame_reads_full, 0);
  assert.is(after.frame_reads_patched - before.frame_reads_patched, 0);
  assert.ok(after.frame_reads_reused > before.frame_reads_reused);
});

s.run();
