// The facts of a first look read by prefix come from the page (src/observe/prefix-facts.ts), not
// from a whole-document snapshot. The oracle: on every page the first-look and observe tests use,
// for every node the render may ask about, the page's facts equal a snapshot's taken at the same
// moment (box, clickable, own pointer, drag and drop, node name, text boxes), and the observation
// made with them equals the one made with the snapshot (tree, text, elements, boxes), at a first
// look and after reading further.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { AxViewNode } from '../../src/observe/ax-tree.ts';
import type { Box, DocumentFacts } from '../../src/observe/page-facts.ts';
import { readSnapshot, SNAPSHOT_STYLES } from '../../src/observe/page-facts.ts';
import { isEditableContainer, isSelect } from '../../src/observe/render.ts';
import { PREFIX_MIN_ELEMENTS } from '../../src/observe/observer.ts';
import { callPageRaw, PageObject } from '../../src/browser/page-module.ts';
import { backendIdOf, NODE_LIST } from '../../src/observe/node-list.ts';
import { evaluate, readerOf, sentDuring, tabOf } from '../helpers/page.ts';
import { openForFirstLook, withSession } from '../helpers/session-suite.ts';
import type { Observation } from '../helpers/wire.ts';

const s = suite('page facts');
const ctx = withSession(s, 'page-facts');
let targetId: string;

async function open(path: string): Promise<void> {
  targetId = await openForFirstLook(ctx, path);
}

const reader = () => readerOf(ctx.server, ctx.sessionId, targetId);

async function observe(maxElements: number): Promise<Observation> {
  return (await ctx.client.call('observe', {
    session_id: ctx.sessionId,
    target_id: targetId,
    include_text: true,
    include_boxes: true,
    max_elements: maxElements,
  })) as Observation;
}

/** The same first look with the facts of a whole snapshot (nothing kept). */
async function withSnapshot(maxElements: number): Promise<Observation> {
  const tab = reader();
  tab.forgetReads();
  tab.factsFromPage = false;
  try {
    return await observe(maxElements);
  } finally {
    tab.factsFromPage = true;
    tab.forgetReads();
  }
}

function same(actual: Observation, expected: Observation, what: string): void {
  assert.is(actual.tree, expected.tree, `tree: ${what}`);
  assert.is(actual.text, expected.text, `text: ${what}`);
  assert.equal(actual.elements, expected.elements, `elements: ${what}`);
  assert.equal(actual.boxes, expected.boxes, `boxes: ${what}`);
  assert.is(actual.truncated, expected.truncated, `truncated: ${what}`);
}

/** Boxes agree within this (CSS px): both are the layout's float geometry, summed with the scroll. */
const BOX_TOLERANCE = 0.5;

function boxesDiffer(a: Box | undefined, b: Box | undefined): boolean {
  if (!a || !b) return a !== b;
  return a.some((value, i) => Math.abs(value - b[i]!) > BOX_TOLERANCE);
}

/**
 * The nodes of a read's tree the render may ask the facts of: not what lies inside a field (its
 * content is its value); of what lies inside a <select> only the node name (no ref there, and the
 * select itself ends the search for controls below it); and not a node past the last one whose
 * children were read that has none of its children read (the read stopped before it, after the refs
 * the answer needs; a render that reaches it meets the unread children and reads further first).
 */
function consulted(tree: AxViewNode): Array<{ node: AxViewNode; inSelect: boolean }> {
  const order: Array<{ node: AxViewNode; inSelect: boolean }> = [];
  const stack = [...tree.children].reverse().map((node) => ({ node, inSelect: false }));
  while (stack.length > 0) {
    const { node, inSelect } = stack.pop()!;
    if (node.unread || node.backendNodeId === undefined) continue;
    order.push({ node, inSelect });
    if (isEditableContainer(node)) continue;
    for (let i = node.children.length - 1; i >= 0; i--) stack.push({ node: node.children[i]!, inSelect: inSelect || isSelect(node) });
  }
  const read = (node: AxViewNode) => node.children.some((child) => !child.unread);
  const last = order.findLastIndex(({ node }) => read(node));
  return order.filter(({ node }, i) => i <= last || isEditableContainer(node) || node.children.length === 0 || read(node));
}

/**
 * The kept read's page facts against a snapshot with `cursor` taken now, for every node its tree
 * holds: how many were compared, and what differs.
 */
async function againstSnapshot(what: string): Promise<{ compared: number; differing: string[] }> {
  const tab = tabOf(ctx.server, targetId);
  const kept = reader().lastRead(tab.mainFrameId);
  assert.ok(kept, `${what}: the read was kept`);
  const sessionRead = kept.read.sessionSnapshots.find((candidate) => candidate.session === tab.session);
  assert.ok(sessionRead?.fromPage, `${what}: the facts came from the page`);
  const page = sessionRead.documents[0]!;
  const truth = readSnapshot(
    await tab.session.send('DOMSnapshot.captureSnapshot', { computedStyles: SNAPSHOT_STYLES, includeDOMRects: false }),
  )
    .find((document) => document.frameId === page.frameId) as DocumentFacts;
  assert.ok(truth, `${what}: the document is in the snapshot`);
  const tree = kept.read.frameReads.find((read) => read.frame.id === tab.mainFrameId)?.tree;
  assert.ok(tree, `${what}: a tree`);
  let compared = 0;
  const differing: string[] = [];
  for (const { node, inSelect } of consulted(tree)) {
    const id = node.backendNodeId!;
    compared++;
    if (node.role === 'StaticText') {
      // A text with a line break is shown as lines of its own (render.ts, textLine: `pre`): its box
      // is never looked at, nor that of a text of spaces only (nothing to stand apart).
      if (node.name.includes('\n') || node.name.trim() === '') continue;
      if (boxesDiffer(page.textBoxes.get(id), truth.textBoxes.get(id))) {
        differing.push(`text ${JSON.stringify(node.name.slice(0, 30))} ${id}: ${page.textBoxes.get(id)} for ${truth.textBoxes.get(id)}`);
      }
      continue;
    }
    const fact = page.nodes.get(id);
    const expected = truth.nodes.get(id);
    if (inSelect) {
      if (fact?.nodeName !== expected?.nodeName) {
        differing.push(`${node.role} in a select ${id}: ${fact?.nodeName} for ${expected?.nodeName}`);
      }
      continue;
    }
    const { box: factBox, ...factRest } = fact ?? {};
    const { box: expectedBox, ...expectedRest } = expected ?? {};
    // A pseudo-element's box is not the page's to measure: it is only looked at for a ref, which
    // one gets only with a pointer of its own, and then the page gives no facts (a snapshot is taken).
    const pseudo = expected?.nodeName.startsWith('::') === true;
    if (JSON.stringify(factRest) !== JSON.stringify(expectedRest) || (!pseudo && boxesDiffer(factBox, expectedBox))) {
      differing.push(
        `${node.role} ${JSON.stringify(node.name.slice(0, 30))} ${id}: ${JSON.stringify(fact)} for ${JSON.stringify(expected)}`,
      );
    }
  }
  return { compared, differing };
}

s('the walk records a read node whose children were not read, and nothing inside it', async () => {
  await open('/docs-code.html');
  const tab = tabOf(ctx.server, targetId);
  const frame = tab.frames.get(tab.mainFrameId)!;
  const contextId = await ctx.server.server.host.current!.worlds.contextFor(frame.session, frame.id, frame.loaderId);
  const objectOf = async (expression: string) => {
    const { result } = await frame.session.send('Runtime.evaluate', { expression, contextId });
    return new PageObject(result.objectId!);
  };
  const idOf = async (expression: string) =>
    (await frame.session.send('DOM.describeNode', { objectId: (await objectOf(expression)).objectId })).node.backendNodeId;
  // The walk's end: the page's last element; left unread: the highlighted blocks (every token a span).
  const walked = async (unread: PageObject[]) => {
    const { result } = await callPageRaw(
      { session: frame.session, executionContextId: contextId },
      'pageFacts',
      [await objectOf('document.body.lastElementChild'), ...unread],
      NODE_LIST,
    );
    const [, ...nodes] = result.deepSerializedValue!.value as Parameters<typeof backendIdOf>[0][];
    return new Set(nodes.map(backendIdOf));
  };
  const blocks = await Promise.all([0, 1, 2].map((i) => objectOf(`document.querySelectorAll('pre')[${i}]`)));
  const all = await walked([]);
  const some = await walked(blocks);
  const [pre, token] = [
    await idOf("document.querySelectorAll('pre')[1]"),
    await idOf("document.querySelectorAll('pre')[1].querySelector('span')"),
  ];
  assert.ok(all.has(pre) && all.has(token), 'a whole walk goes into the block');
  assert.ok(some.has(pre), 'a node left unread has its own facts');
  assert.not.ok(some.has(token), 'and nothing inside it');
  const tokens = await evaluate<number>(
    ctx.server,
    targetId,
    "[...document.querySelectorAll('pre')].slice(0, 3).reduce((n, pre) => n + pre.querySelectorAll('*').length, 0)",
  );
  assert.ok(all.size - some.size >= tokens, `${all.size - some.size} nodes fewer, ${tokens} elements inside the blocks`);
});

const PAGES = [
  '/long-index.html?entries=400',
  '/large-table.html',
  '/shadow-iframe.html',
  '/delegating-app.html',
  '/clickables.html',
  '/docs-page.html',
  '/docs-code.html',
  '/cards.html',
  '/ui-kit.html',
  '/todomvc.html',
  '/form.html',
  '/article.html',
  '/incremental.html',
  '/mutable.html',
  '/notifications.html',
  '/table-values.html',
  '/buttons-400.html',
  '/pricing.html',
  '/login.html',
  '/cart.html',
  '/checkout.html',
  '/act.html',
  '/with-iframe.html',
  '/frame-buttons.html',
  // Python's documentation (Debian's python3-doc): a search form whose button's label lies in the
  // input's user-agent shadow tree, and admonitions whose texts a walk meets only after its end.
  '/python-docs/library/functions.html',
];

s("on every page, the page facts of what a first look reads are the snapshot's, and so is the observation", async () => {
  const fromPage: string[] = [];
  const failures: string[] = [];
  const check = (what: string, work: () => void) => {
    try {
      work();
    } catch (error) {
      failures.push(`${what}: ${error instanceof Error ? error.message : String(error)}`);
    }
  };
  for (const path of PAGES) {
    await open(path);
    const tab = reader();
    tab.forgetReads();
    const before = tab.counts.snapshot().factsFromPage;
    const first = await observe(30);
    if (tab.counts.snapshot().factsFromPage > before) {
      fromPage.push(path);
      const { compared, differing } = await againstSnapshot(`${path}: first look`);
      if (differing.length > 0) failures.push(`${path}: first look (${compared} compared): ${differing.join('; ')}`);
      check(`${path}: compared`, () => assert.ok(compared > 0));
    }
    const more = await observe(400); // read further: its facts are taken again
    if (tab.lastRead(tabOf(ctx.server, targetId).mainFrameId)?.read.sessionSnapshots.some((read) => read.fromPage)) {
      const { compared, differing } = await againstSnapshot(`${path}: read further`);
      if (differing.length > 0) failures.push(`${path}: read further (${compared} compared): ${differing.join('; ')}`);
    }
    const [firstTruth, moreTruth] = [await withSnapshot(30), await withSnapshot(400)];
    check(`${path}: first look`, () => same(first, firstTruth, `${path}: first look`));
    check(`${path}: read further`, () => same(more, moreTruth, `${path}: read further`));
  }
  assert.equal(failures, [], failures.join('\n'));
  assert.ok(fromPage.length >= 17, `facts from the page on ${fromPage.length} pages: ${fromPage.join(' ')}`);
  // Texts the walk does not reach are measured by CDP, not left to a snapshot of the whole page.
  assert.ok(fromPage.includes('/python-docs/library/functions.html'), `facts from the page on ${fromPage.join(' ')}`);
});

/** What a component library and a page's own scripts put at the top of a page: every rule the facts follow. */
const RULES_HTML = `
<style>
  .contents { display: contents; cursor: pointer }
  .tile { cursor: pointer } .tile .plain { cursor: auto }
  tab-strip { cursor: pointer }
  .chip { cursor: pointer; user-select: none }
</style>
<div class="contents"><span title="Inside contents">inside contents</span><a title="Anchor without href">anchor</a></div>
<div class="tile" title="Tile"><span title="Tile text">tile text</span><span class="plain" title="Plain">plain <b>bold</b></span><div hidden><span>hidden</span></div></div>
<tab-strip><span slot="tabs" title="First tab">first tab</span><span slot="tabs" title="Second tab" style="cursor: pointer">second tab</span></tab-strip>
<form action="#"><label>Remember me <input type="checkbox" name="remember"></label>
  <label for="plan-pro">Pro</label><input type="radio" id="plan-pro" name="plan">
  <label>Label of a div <div class="chip">chip</div></label>
  <button>Send</button><button type="button">Preview</button><button type="reset">Clear</button>
  <fieldset disabled><button class="with-listener">Locked</button><input value="locked"></fieldset></form>
<button>Outside a form</button>
<details><summary>More options</summary><summary>Second summary</summary><p>hidden part</p></details>
<div onclick="void 0" class="inline-handler">Inline handler</div>
<div class="listener-mousedown">Pressed on mousedown</div>
<span class="chip" draggable="true">Drag me</span><div ondragover="void 0">Drop here</div>
<div contenteditable="true"><p>Editable paragraph</p></div>
<svg width="60" height="20"><a href="#svg-link"><text x="0" y="15">SVG link</text></a></svg>
<ul><li>plain item</li><li class="chip">pointer item</li></ul>`;

const RULES_SCRIPT = `
  customElements.define('tab-strip', class extends HTMLElement {
    constructor() {
      super();
      this.attachShadow({ mode: 'open' }).innerHTML = '<div part="bar"><slot name="tabs"></slot></div>';
    }
  });
  document.body.insertAdjacentHTML('afterbegin', ${JSON.stringify(RULES_HTML)});
  document.querySelector('.with-listener').addEventListener('click', () => {});
  document.querySelector('.listener-mousedown').addEventListener('mousedown', () => {});
  document.querySelector('.chip').addEventListener('click', () => {});
  true`;

s(
  '… and where a rule of its own decides: labels, forms, summaries, handlers, drag and drop, editing, slots, display: contents',
  async () => {
    await open('/clickables.html');
    await evaluate(ctx.server, targetId, RULES_SCRIPT);
    const tab = reader();
    tab.forgetReads();
    const before = tab.counts.snapshot().factsFromPage;
    const first = await observe(60);
    assert.is(tab.counts.snapshot().factsFromPage, before + 1, 'the facts came from the page');
    const { compared, differing } = await againstSnapshot('rules');
    assert.equal(differing, [], differing.join('\n'));
    assert.ok(compared > 60, `${compared} compared`);
    same(first, await withSnapshot(60), 'rules');
  },
);

s("what the page cannot tell (a pointer on a pseudo-element, a closed shadow root, a same-process iframe) is the snapshot's", async () => {
  const cases: Array<[string, string]> = [
    [
      '/clickables.html',
      `document.head.insertAdjacentHTML('beforeend', '<style>.go::before { content: "▶"; cursor: pointer; display: inline-block; padding: 4px }</style>');
      document.body.insertAdjacentHTML('afterbegin', '<span class="go">Play</span>'); true`,
    ],
    ['/pricing.html', 'true'],
    ['/with-iframe.html', 'true'],
  ];
  for (const [path, change] of cases) {
    await open(path);
    await evaluate(ctx.server, targetId, change);
    const tab = reader();
    tab.forgetReads();
    const before = tab.counts.snapshot();
    const first = await observe(30);
    const after = tab.counts.snapshot();
    assert.is(after.factsFromPage, before.factsFromPage, `${path}: no facts from the page`);
    assert.is(after.snapshotsFull, before.snapshotsFull + 1, `${path}: a snapshot`);
    same(first, await withSnapshot(30), path);
  }
});

s('a closed shadow root that a first look does not show is watched: a control that appears in it later is seen', async () => {
  await open('/toast-host.html');
  reader().forgetReads();
  const first = await observe(20);
  assert.not.match(first.tree, 'Undo');
  await evaluate(ctx.server, targetId, "window.notify('Message archived.'); true");
  const after = await observe(20);
  assert.match(after.tree, /button "Undo" @\d+/);
  same(after, await withSnapshot(20), 'after the toast');
});

s('a read further whose facts come from a snapshot with a closed shadow root keeps its read, and the root is watched', async () => {
  await open('/closed-widget.html');
  reader().forgetReads();
  const first = await observe(2);
  assert.not.match(first.tree, 'Rate 5 stars');
  // Reading further reaches the widget, a custom element without an open shadow root: its facts
  // come from a snapshot, which lists the closed root. The read is kept all the same, the root
  // handed to the monitor: the same observation again reads nothing.
  const further = await observe(30);
  assert.match(further.tree, /button "Rate 5 stars" @\d+/);
  const before = (await ctx.client.call('server.info')).diagnostics;
  const again = await observe(30);
  const after = (await ctx.client.call('server.info')).diagnostics;
  assert.is(after.frame_reads_reused - before.frame_reads_reused, 1, `the kept read is reused: ${JSON.stringify(after)}`);
  assert.is(after.frame_reads_full, before.frame_reads_full, 'nothing is read in full');
  assert.is(again.tree, further.tree);
  // The monitor sees a change inside the closed root.
  await evaluate(ctx.server, targetId, "window.rated('Thanks for rating'); true");
  const changed = await observe(30);
  assert.match(changed.tree, /button "Thanks for rating" @\d+/);
  same(changed, await withSnapshot(30), 'after the change in the closed root');
});

s('a first look of the long index and of the 1,500-control table takes no snapshot', async () => {
  for (const path of ['/long-index.html', '/large-table.html']) {
    await open(path);
    const tab = reader();
    tab.prefixFrom = PREFIX_MIN_ELEMENTS;
    tab.forgetReads();
    const sent = await sentDuring(tabOf(ctx.server, targetId).session, () => observe(150));
    const methods = sent.map(({ method }) => method);
    assert.not.ok(methods.includes('DOMSnapshot.captureSnapshot'), `${path}: no snapshot`);
    assert.ok(methods.includes('DOMDebugger.getEventListeners'), `${path}: the listeners asked`);
    const kept = tab.lastRead(tabOf(ctx.server, targetId).mainFrameId);
    assert.ok(kept?.read.sessionSnapshots[0]?.fromPage, `${path}: the facts are the page's`);
  }
});

s.run();
