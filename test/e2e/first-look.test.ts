// The first look reads what its answer needs (ax-prefix.ts): an observation with max_elements N
// reads the observed document from the top until its first N refs, later ones read further or
// patch what they read. Each case checks the answer against a whole read of the same page
// (TabReader.wholeReads: getFullAXTree), and that the read did not cost what a whole one does.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ELEMENTS_PER_PROBE, PREFIX_MIN_ELEMENTS } from '../../src/observe/observer.ts';
import { evaluate, readerOf, sentDuring, tabOf } from '../helpers/page.ts';
import { openForFirstLook, withSession } from '../helpers/session-suite.ts';
import type { Observation } from '../helpers/wire.ts';

const s = suite('first look');
const ctx = withSession(s, 'first-look');
let targetId: string;

async function open(path: string): Promise<void> {
  targetId = await openForFirstLook(ctx, path);
}

const reader = () => readerOf(ctx.server, ctx.sessionId, targetId);

async function observe(maxElements: number, extra: Record<string, unknown> = {}): Promise<Observation> {
  return (await ctx.client.call('observe', {
    session_id: ctx.sessionId,
    target_id: targetId,
    include_text: true,
    max_elements: maxElements,
    ...extra,
  })) as Observation;
}

/** The same observation from a whole read of the page as it is now (nothing kept, getFullAXTree). */
async function wholeRead(maxElements: number, extra: Record<string, unknown> = {}): Promise<{ observation: Observation; nodes: number }> {
  const tab = reader();
  tab.forgetReads();
  tab.wholeReads = { budget: { perFrameMs: 30_000, totalMs: 60_000 } };
  const before = tab.counts.snapshot().axNodesRead;
  try {
    const observation = await observe(maxElements, extra);
    return { observation, nodes: tab.counts.snapshot().axNodesRead - before };
  } finally {
    tab.wholeReads = undefined;
    tab.forgetReads();
  }
}

function same(actual: Observation, expected: Observation, what: string): void {
  assert.is(actual.tree, expected.tree, `tree: ${what}`);
  assert.is(actual.text, expected.text, `text: ${what}`);
  const differ = actual.elements.findIndex((element, i) => JSON.stringify(element) !== JSON.stringify(expected.elements[i]));
  assert.equal(
    actual.elements,
    expected.elements,
    `elements: ${what} (first differing: ${JSON.stringify([actual.elements[differ], expected.elements[differ]])})`,
  );
  assert.is(actual.truncated, expected.truncated, `truncated: ${what}`);
}

/**
 * A first observation of N (a fresh read), then M > N (read further), each against a whole read.
 * `closedRoots`: the page has closed shadow roots, whose snapshot, taken when the read further
 * finds them, is not kept (the monitor was not handed them).
 */
async function firstLookThenMore(
  path: string,
  n: number,
  m: number,
  closedRoots = false,
): Promise<{ first: Observation; firstNodes: number }> {
  await open(path);
  const tab = reader();
  tab.forgetReads();
  const before = tab.counts.snapshot().axNodesRead;
  const first = await observe(n);
  const firstNodes = tab.counts.snapshot().axNodesRead - before;
  const more = await observe(m);
  // Nothing changed: the first read was kept and read further, not read again from the top; and
  // what it read further is kept in its turn (the same observation again reads nothing).
  const calls = tab.counts.snapshot().axReadCalls;
  const again = await observe(m);
  if (!closedRoots) assert.is(tab.counts.snapshot().axReadCalls - calls, 0, `${path}: the read further was not kept`);
  same(again, more, `${path}: ${m} again`);
  const { observation: wholeM } = await wholeRead(m);
  same(more, wholeM, `${path}: ${m} after ${n}`);
  const { observation: wholeN } = await wholeRead(n);
  same(first, wholeN, `${path}: first look of ${n}`);
  return { first, firstNodes };
}

s('a first look of N refs, and then of more, says what a whole read says (large page, documentation index)', async () => {
  for (const [path, n, m] of [['/large-table.html', 20, 150], ['/long-index.html?entries=400', 50, 300]] as const) {
    const { first } = await firstLookThenMore(path, n, m);
    assert.is(first.elements.length, n, `${path}: ${n} refs`);
    assert.ok(first.truncated, `${path}: truncated`);
  }
});

s('… and on pages with iframes, shadow roots, delegating listeners and pointer-only controls', async () => {
  for (
    const path of [
      '/docs-code.html',
      '/shadow-iframe.html',
      '/delegating-app.html',
      '/clickables.html',
      '/docs-page.html',
      '/cards.html',
      '/ui-kit.html',
    ]
  ) {
    await firstLookThenMore(path, 3, 40, path === '/ui-kit.html');
  }
});

s('a first look with max_elements 50 on the long index does not read the whole document', async () => {
  const path = '/long-index.html?entries=800';
  const { first, firstNodes } = await firstLookThenMore(path, 50, 150);
  const { nodes: wholeNodes } = await wholeRead(50);
  assert.is(first.elements.length, 50);
  assert.ok(wholeNodes > 10_000, `a whole read of the index returns its ${wholeNodes} nodes`);
  assert.ok(firstNodes * 10 < wholeNodes, `the first look read ${firstNodes} nodes, a whole read ${wholeNodes}`);
});

s('after a change, a prefix read is patched (or read again) and says what a whole read says', async () => {
  await open('/long-index.html?entries=400');
  reader().forgetReads();
  await observe(60);
  const cases = [
    // Inside what was read: patched in.
    "document.querySelector('.theme-toggle').click()",
    "document.querySelector('#e3 a').textContent = 'renamed_entry()'",
    "document.querySelector('.sidebar ul').insertAdjacentHTML('afterbegin', '<li><a href=\"#new\">new module</a></li>')",
    // Past what was read, and at the end of the document.
    "document.querySelector('#e390').remove()",
    "document.body.append(Object.assign(document.createElement('p'), { textContent: 'Toast one' }))",
    // Before everything: what comes first changes what the first 60 refs are.
    "document.querySelector('.header').insertAdjacentHTML('afterbegin', '<button>Skip</button><button>Menu</button>')",
  ];
  for (const script of cases) {
    await evaluate(ctx.server, targetId, script);
    const after = await observe(60);
    const { observation: whole } = await wholeRead(60);
    same(after, whole, `after: ${script}`);
    await observe(60); // the prefix read to patch next
  }
});

s('a name taken from a field past what a first look reads carries no value, as in a whole read', async () => {
  await open('/long-index.html?entries=400');
  // A header button named by a label and a search field at the very end of the page, which holds
  // what the user typed: Chromium's name of the button includes it.
  await evaluate(
    ctx.server,
    targetId,
    `document.querySelector('.header').insertAdjacentHTML('afterbegin', '<button aria-labelledby="far-label far-field">x</button>');
     document.querySelector('.footer').insertAdjacentHTML('beforeend', '<span id="far-label">Find in</span> <input id="far-field" aria-label="Scope">');
     document.getElementById('far-field').value = 'typed words'; true`,
  );
  reader().forgetReads();
  const first = await observe(20);
  const button = first.elements.find((element) => element.role === 'button' && element.name.startsWith('Find in'));
  assert.ok(button, first.tree);
  assert.not.ok(first.tree.includes('typed words'), first.tree);
  const { observation: whole } = await wholeRead(20);
  same(first, whole, 'a name from a far field');
});

s('a name that a change takes from a field past what was read carries no value, as in a whole read', async () => {
  await open('/long-index.html?entries=400');
  await evaluate(
    ctx.server,
    targetId,
    `document.querySelector('.header').insertAdjacentHTML('afterbegin', '<button id="near">Find</button>');
     document.querySelector('.footer').insertAdjacentHTML('beforeend', '<span id="far-label">Find in</span> <input id="far-field" aria-label="Scope">');
     document.getElementById('far-field').value = 'typed words'; true`,
  );
  reader().forgetReads();
  await observe(20);
  // Patched in: the button, inside what was read, is now named by elements past it.
  await evaluate(ctx.server, targetId, `document.getElementById('near').setAttribute('aria-labelledby', 'far-label far-field'); true`);
  const patched = await observe(20);
  assert.ok(patched.elements.some((element) => element.role === 'button' && element.name.startsWith('Find in')), patched.tree);
  assert.not.ok(JSON.stringify(patched).includes('typed words'), patched.tree);
  const { observation: whole } = await wholeRead(20);
  same(patched, whole, 'a name from a far field, patched in');
});

s('root_ref on a prefix read reads only its subtree and its path: an element further down than a fresh first look reads', async () => {
  await open('/long-index.html?entries=400');
  reader().forgetReads();
  const first = await observe(500);
  const link = first.elements[480]!;
  const kept = await observe(20, { root_ref: link.ref });
  // Nothing kept: the read is of the link's path from the document and of its subtree, not of
  // the 480 links before it.
  reader().forgetReads();
  const before = reader().counts.snapshot();
  const fresh = await observe(20, { root_ref: link.ref });
  const after = reader().counts.snapshot();
  const { observation: whole } = await wholeRead(20, { root_ref: link.ref });
  same(kept, whole, 'root_ref, from the kept read');
  same(fresh, whole, 'root_ref, from a fresh first look');
  assert.ok(fresh.elements.some((element) => element.ref === link.ref), fresh.tree);
  const calls = after.axReadCalls - before.axReadCalls;
  assert.ok(calls <= 30, `root_ref's first look took ${calls} accessibility calls (${after.axNodesRead - before.axNodesRead} nodes)`);
  // What was read stays usable: an observation of the whole page afterwards reads on from it.
  const page = await observe(150);
  const { observation: whole150 } = await wholeRead(150);
  same(page, whole150, 'the whole page after a root_ref first look');
});

s('root_ref on a card of a prefix read: its subtree is read on, and only it, until the answer is whole', async () => {
  // A news feed whose cards are clickable as a whole (cursor: pointer) and hold eight links each.
  await open('/feed.html');
  reader().forgetReads();
  const first = await observe(6);
  const card = first.elements.find((element) => element.role === 'article');
  assert.ok(card, first.tree);
  const before = reader().counts.snapshot().axReadCalls;
  const kept = await observe(20, { root_ref: card.ref });
  const calls = reader().counts.snapshot().axReadCalls - before;
  // Level by level in the card alone (from the top of the page: 16 calls).
  assert.ok(calls <= 10, `reading on in the card took ${calls} accessibility calls`);
  const { observation: whole } = await wholeRead(20, { root_ref: card.ref });
  same(kept, whole, 'root_ref of a card read on from the kept read');
  assert.ok(kept.elements.length > 6, kept.tree);
});

s('a large document in a frame is read by prefix too, same-site and cross-site, and read further there', async () => {
  for (const query of ['', '&cross=1']) {
    await open(`/framed-docs.html?entries=400${query}`);
    // The frame is known and its document read (a cross-site frame attaches on its own session).
    for (let tries = 0; tries < 50; tries++) {
      const seen = await observe(5);
      if (seen.frames.length === 2 && seen.frames.every((frame) => frame.status === 'observed')) break;
    }
    const tab = reader();
    tab.forgetReads();
    const before = tab.counts.snapshot().axNodesRead;
    const first = await observe(40);
    const nodes = tab.counts.snapshot().axNodesRead - before;
    const more = await observe(200);
    const { observation: whole40, nodes: wholeNodes } = await wholeRead(40);
    const { observation: whole200 } = await wholeRead(200);
    same(first, whole40, `first look of 40${query}`);
    same(more, whole200, `read further to 200${query}`);
    assert.ok(first.elements.some((element) => element.frame_id !== first.frames[0]!.frame_id), first.tree);
    assert.ok(nodes * 5 < wholeNodes, `a first look of 40 read ${nodes} nodes, a whole read ${wholeNodes}${query}`);
  }
});

s('a first look asks about the ends of the paths first: fewer accessibility calls than a read level by level', async () => {
  // Level by level, the first 150 refs of the table (rows of six cells: text, a button, a link, a
  // field, a checkbox, a select) took 376 calls (a row, its cells, then each control's contents),
  // those of the index (800 entries) 406.
  for (const [path, most] of [['/large-table.html', 260], ['/long-index.html?entries=800', 260]] as const) {
    await open(path);
    const tab = reader();
    tab.forgetReads();
    const before = tab.counts.snapshot().axReadCalls;
    const first = await observe(150);
    const calls = tab.counts.snapshot().axReadCalls - before;
    assert.is(first.elements.length, 150, path);
    assert.ok(calls <= most, `${path}: a first look of 150 took ${calls} accessibility calls`);
    const { observation: whole } = await wholeRead(150);
    same(first, whole, `${path}: first look of 150`);
  }
});

s('a small document is read whole at its first look, a large one only as far as its answer needs', async () => {
  const methodsOfFirstLook = async (path: string) => {
    await open(path);
    reader().prefixFrom = PREFIX_MIN_ELEMENTS;
    const sent = await sentDuring(tabOf(ctx.server, targetId).session, () => observe(150));
    return sent.map(({ method }) => method).filter((method) => method.startsWith('Accessibility.'));
  };
  const small = await methodsOfFirstLook('/article.html');
  assert.equal(small, ['Accessibility.getFullAXTree'], 'the article (a few hundred elements): one whole read');
  const large = await methodsOfFirstLook('/large-table.html');
  assert.not.ok(large.includes('Accessibility.getFullAXTree'), 'the 1,500-control table: no whole read');
  assert.ok(large.includes('Accessibility.getPartialAXTree'));
});

s('a large page of highlighted code, whose probes would be many calls, is read whole at its first look', async () => {
  await open('/task-guide.html');
  const tab = reader();
  const firstLook = async (elementsPerProbe: number) => {
    tab.forgetReads();
    tab.prefixFrom = PREFIX_MIN_ELEMENTS;
    tab.elementsPerProbe = elementsPerProbe;
    let observation: Observation | undefined;
    const sent = await sentDuring(tabOf(ctx.server, targetId).session, async () => observation = await observe(150));
    return { methods: sent.map(({ method }) => method).filter((method) => method.startsWith('Accessibility.')), observation: observation! };
  };
  const elements = await evaluate<number>(ctx.server, targetId, 'document.getElementsByTagName("*").length');
  assert.ok(elements >= PREFIX_MIN_ELEMENTS, `${elements} elements: above the prefix threshold`);
  const first = await firstLook(ELEMENTS_PER_PROBE);
  assert.equal(first.methods, ['Accessibility.getFullAXTree'], 'one whole read');
  // Read by prefix, every token of the code before the 151st ref is a probe: more calls than that is worth.
  const probed = await firstLook(0);
  assert.ok(probed.methods.length > elements / ELEMENTS_PER_PROBE, `read by prefix: ${probed.methods.length} calls`);
  assert.is(probed.observation.elements.length, first.observation.elements.length);
  same(first.observation, (await wholeRead(150)).observation, 'the same as a whole read');
});

s.run();
