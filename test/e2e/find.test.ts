// observe's find (PROTOCOL.md §6 "find"): the elements matching some words, from the whole
// document whatever max_elements is, in shadow roots and frames too, with refs act takes. Each
// answer is checked against a whole read of the same page (every ref whose name holds the words is
// found, none twice, none that a whole read does not give), and its cost against a whole read's.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { MAX_FIND_MATCHES } from '../../src/wire/observe-bounds.ts';
import { evaluate, sentDuring, tabOf } from '../helpers/page.ts';
import { openAlone, withSession } from '../helpers/session-suite.ts';
import { waitUntil } from '../helpers/wait.ts';
import type { ActResult, Observation } from '../helpers/wire.ts';

const s = suite('find');
const ctx = withSession(s, 'find');
let targetId: string;

async function open(path: string): Promise<void> {
  targetId = await openAlone(ctx, path);
}

/**
 * `open`, then one small look: the renderer's accessibility is on and our world is set up, so that
 * what a test of a large page measures is the find, not that first set-up on a loaded machine.
 */
async function openLarge(path: string): Promise<void> {
  await open(path);
  await observe({ max_elements: 1 });
}

function observe(params: Record<string, unknown> = {}): Promise<Observation> {
  return ctx.client.call('observe', { session_id: ctx.sessionId, target_id: targetId, ...params }) as Promise<Observation>;
}

function find(words: string, params: Record<string, unknown> = {}): Promise<Observation> {
  return observe({ find: words, ...params });
}

function act(stateId: string, action: Record<string, unknown>): Promise<ActResult> {
  return ctx.client.call('act', { session_id: ctx.sessionId, target_id: targetId, state_id: stateId, ...action }) as Promise<ActResult>;
}

/**
 * A find checked against `whole`, an untruncated observation of the same page: every element of
 * it whose name holds all the words is found, each found ref once, and each is a ref of the whole
 * read with the same entry.
 */
function checkAgainstWhole(found: Observation, whole: Observation, words: string): void {
  assert.is(whole.truncated, false, 'the whole read is whole');
  const refs = found.elements.map((element) => element.ref);
  assert.is(new Set(refs).size, refs.length, `no ref twice: ${refs.join(' ')}`);
  assert.equal(found.matches?.map((match) => match.ref), refs, 'matches and elements are the same refs in the same order');
  const byRef = new Map(whole.elements.map((element) => [element.ref, element]));
  for (const element of found.elements) {
    const same = byRef.get(element.ref);
    assert.ok(same, `${element.ref} (${element.role} "${element.name}") is a ref of the whole read`);
    assert.equal({ ...element, in_viewport: undefined }, { ...same, in_viewport: undefined }, `${element.ref}: the same entry`);
  }
  const wanted = words.toLowerCase().split(/\s+/);
  const named = whole.elements.filter((element) => wanted.every((word) => element.name.toLowerCase().includes(word)));
  assert.ok(named.length > 0, `the whole read has elements named with "${words}"`);
  for (const element of named) assert.ok(refs.includes(element.ref), `${element.ref} "${element.name}" is found by "${words}"`);
}

s('the last entry of the long index: its ref, path and text, at a cost in proportion to the answer; act clicks it', async () => {
  await openLarge('/long-index.html');
  const session = tabOf(ctx.server, targetId).session;
  let found: Observation | undefined;
  const sent = await sentDuring(session, async () => {
    found = await find('zzone_seek', { max_elements: 5 });
  });
  const answer = found!;
  const link = answer.elements.find((element) => element.name === 'zzone_seek()');
  assert.ok(link, answer.tree);
  assert.is(link.role, 'link');
  assert.ok(link.href?.endsWith('/reference/regex/toolkit.regex.html'), link.href);
  const match = answer.matches!.find((m) => m.ref === link.ref)!;
  assert.equal(match.path, ['main', '"Index"', '"Z"']);
  assert.is(match.text, 'zzone_seek() (function in toolkit.regex)');
  assert.ok(answer.tree.includes(`main › "Index" › "Z" › link "zzone_seek()" ${link.ref}`), answer.tree);
  assert.is(answer.truncated, false);
  // No read of the whole tree: one accessibility read per element found (and none of the document).
  const methods = sent.map((m) => m.method);
  assert.not.ok(methods.includes('Accessibility.getFullAXTree'), 'no whole read');
  assert.not.ok(methods.includes('DOMSnapshot.captureSnapshot'), 'no snapshot');
  const partial = methods.filter((m) => m === 'Accessibility.getPartialAXTree').length;
  assert.ok(partial <= answer.elements.length + 2, `${partial} accessibility reads for ${answer.elements.length} matches`);

  // Its role filter: only links; a button matches none of these words.
  const links = await find('zzone_seek', { find_role: 'LINK' });
  assert.ok(links.elements.length > 0 && links.elements.every((element) => element.role === 'link'));
  const buttons = await find('zzone_seek', { find_role: 'button' });
  assert.equal(buttons.elements, []);

  // A find is the tab's current state: it makes an earlier observation stale (and a later one makes
  // it stale), and act takes its refs.
  const full = await observe();
  await find('zzone_flush');
  const staleFull = await act(full.state_id, { action: 'click', ref: full.elements[0]!.ref });
  assert.is(staleFull.error_type, 'stale_state');
  const earlier = await find('zzone_flush');
  await observe();
  const staleFind = await act(earlier.state_id, { action: 'click', ref: earlier.elements[0]!.ref });
  assert.is(staleFind.error_type, 'stale_state');
  const current = await find('zzone_seek');
  const ref = current.elements.find((element) => element.name === 'zzone_seek()')!.ref;
  assert.is(ref, link.ref, 'the same node, the same ref');
  const clicked = await act(current.state_id, { action: 'click', ref });
  assert.ok(['completed', 'verified'].includes(clicked.status), `${clicked.status} ${clicked.error_type} ${clicked.error_text}`);
  assert.ok(clicked.fresh_state?.url.endsWith('/reference/regex/toolkit.regex.html'), clicked.fresh_state?.url);
});

s('on a smaller index, a find equals what a whole read names, whatever max_elements', async () => {
  await open('/long-index.html?entries=120');
  const whole = await observe({ max_elements: 500 });
  for (const words of ['read', 'toolkit.io', 'Dark mode', 'stream z']) {
    const found = await find(words, { max_elements: 1 });
    assert.ok(found.elements.length <= MAX_FIND_MATCHES);
    if (found.truncated) continue;
    if (!whole.elements.some((e) => words.toLowerCase().split(' ').every((w) => e.name.toLowerCase().includes(w)))) continue;
    checkAgainstWhole(found, whole, words);
  }
  // Nearby text: a module link matches by its entry's words, though its name is the module's.
  const entry = whole.elements.find((element) => element.role === 'link' && /^toolkit\./.test(element.name))!;
  const byEntry = await find(entry.name);
  assert.ok(byEntry.matches!.every((match) => match.text.toLowerCase().includes(entry.name.toLowerCase())));
});

s('shadow roots and frames: found as a whole read has them, and acted on', async () => {
  await open('/shadow-iframe.html');
  // Both frames loaded; this whole read also hands the closed shadow root to the page's monitor.
  const whole = await waitUntil(
    () => observe({ max_elements: 500 }),
    (o) => o.elements.filter((e) => e.name === 'Frame button 3').length === 2,
    {
      what: 'both frames observed',
    },
  );
  const found = await find('button');
  checkAgainstWhole(found, whole, 'button');
  const deep = found.elements.find((element) => element.name === 'Deep button')!;
  assert.ok(deep, found.tree);
  const inFrames = found.matches!.filter((match) => match.path[0]?.startsWith('iframe '));
  assert.ok(inFrames.length >= 20, `the buttons of both frames: ${found.tree}`);
  const crossFrame = found.elements.find((e) => e.name === 'Frame button 3' && e.frame_id !== found.frame_id);
  assert.ok(crossFrame);
  const clicked = await act(found.state_id, { action: 'click', ref: deep.ref });
  assert.ok(['completed', 'verified'].includes(clicked.status), `${clicked.status} ${clicked.error_type} ${clicked.error_text}`);
  assert.is(await evaluate(ctx.server, targetId, "document.getElementById('status').textContent"), 'clicked Deep button');
  const again = await find('frame button 3');
  assert.is(again.elements.length, 2, again.tree);
  const cross = await act(again.state_id, { action: 'click', ref: again.elements[1]!.ref });
  assert.ok(['completed', 'verified'].includes(cross.status), `${cross.status} ${cross.error_type} ${cross.error_text}`);
});

s("Python's documentation index: the entry for asyncio.gather", async () => {
  await openLarge('/python-docs/genindex-all.html');
  const found = await find('gather asyncio', { find_role: 'link' });
  const link = found.elements.find((element) =>
    element.href?.endsWith('/library/asyncio-task.html') && element.name === '(in module asyncio)'
  );
  assert.ok(link, found.tree);
  const match = found.matches!.find((m) => m.ref === link.ref)!;
  assert.ok(match.text.includes('gather()') && match.text.includes('(in module asyncio)'), match.text);
  assert.ok(JSON.stringify(found).length < 4_000, `a small answer: ${JSON.stringify(found).length} bytes`);
});

s('no match, bad input', async () => {
  await open('/long-index.html?entries=50');
  const none = await find('qqqq nothing');
  assert.equal(none.elements, []);
  assert.equal(none.matches, []);
  assert.is(none.tree, 'no element matches "qqqq nothing"');
  for (
    const params of [
      { find: '' },
      { find: '   ' },
      { find_role: 'link' },
      { find: 'a', root_ref: '@1' },
      { find: 'a', include_text: true },
      { find: 'a', since: none.state_id },
      { find: Array.from({ length: 17 }, (_, i) => `w${i}`).join(' ') },
    ]
  ) {
    const error = await ctx.client.callError('observe', { session_id: ctx.sessionId, target_id: targetId, ...params });
    assert.is(error.data?.error_type, 'invalid_params', JSON.stringify(params));
  }
});

s.run();
