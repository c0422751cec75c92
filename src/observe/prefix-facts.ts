// The page facts of a first look read by prefix (ax-prefix.ts), in proportion to what was read: a
// whole-document DOMSnapshot costs a large document seconds whatever the read needs. The page
// walks its flat tree from the top through the last node read (src/page/facts.ts) and gives each
// element's and text's box, own `cursor: pointer`, drag and drop and what decides its clickability
// but listeners; the listeners come from DOMDebugger.getEventListeners, in the main world, where a
// page's listeners are. Whatever the walk cannot establish (a node read that it did not reach and
// that cannot be named to the page, a node in a closed shadow tree, a pseudo-element with its own
// pointer) gives no answer, and the caller takes the snapshot: a wrong guess costs time, never an
// answer.
import type { Cdp } from '../../protocol/generated/cdp.ts';
import type { FrameRecord } from '../browser/frame-tree.ts';
import type { IsolatedWorlds } from '../browser/isolated-worlds.ts';
import { callPage, callPageRaw, factBits, type FactsAnswer, PageObject, type PseudoFact } from '../browser/page-module.ts';
import type { AxChild, AxViewNode } from './ax-tree.ts';
import { isEditableContainer, isSelect } from './render.ts';
import type { Box, DocumentFacts, NodeFacts } from './page-facts.ts';
import { backendIdOf, NODE_LIST } from './node-list.ts';
import { isCdpError } from '../cdp/errors.ts';
import { quadBox, union } from '../browser/geometry.ts';

type SendOptions = { timeoutMs: number; signal?: AbortSignal };

/** Listener types that make a node respond to clicks (Chromium's Node::WillRespondToMouseClickEvents). */
const CLICK_TYPES = new Set(['click', 'mousedown', 'mouseup', 'DOMActivate']);

/** Nodes read that the walk did not reach, asked of the page one by one: beyond this, the snapshot is cheaper. */
const MAX_EXTRA = 64;

const FACT = factBits();

/** Node.TEXT_NODE, as DOM.describeNode gives it. */
const TEXT_NODE = 3;

/** Read nodes with unread children named to the walk (beyond, it goes into them: slower, the same facts). */
const MAX_NOT_INTO = 256;

/**
 * The DOM nodes of a prefix read's tree that a render may ask the facts of, and must have them, and
 * the last node in the tree's order (document order) whose children were read. Every node after
 * that one is a child of it or of one of its ancestors (its parent had a child read, so it comes no
 * later), which a walk through it meets without going down into them (src/page/facts.ts). Of those,
 * one whose children were not read needs no facts: the read stopped before it, after the refs its
 * answer needs, and a render that reaches it meets its unread children and reads further first
 * (render.ts answers what it needs), which takes the facts again. Not needed either: what lies inside a
 * field (its content is its value) or a <select> (whose options the walk meets, and whose picker a
 * snapshot has no node for).
 */
function readNodes(tree: AxViewNode): { ids: Set<number>; last: number | undefined; unread: number[]; textParents: Map<number, number> } {
  const order: Array<{ id: number; unread: boolean }> = [];
  const textParents = new Map<number, number>();
  let last = -1;
  const stack: Array<{ node: AxChild; parent: number | undefined }> = [...tree.children].reverse().map((node) => ({
    node,
    parent: undefined,
  }));
  while (stack.length > 0) {
    const { node, parent } = stack.pop()!;
    if (node.unread || node.backendNodeId === undefined) continue;
    if (node.role === 'StaticText' && parent !== undefined) textParents.set(node.backendNodeId, parent);
    const field = isEditableContainer(node);
    const unread = !field && node.children.length > 0 && node.children.every((child) => child.unread);
    if (node.children.some((child) => !child.unread)) last = order.length;
    order.push({ id: node.backendNodeId, unread });
    if (field || isSelect(node)) continue;
    for (let i = node.children.length - 1; i >= 0; i--) stack.push({ node: node.children[i]!, parent: node.backendNodeId });
  }
  const ids = new Set(order.filter((entry, i) => i <= last || !entry.unread).map((entry) => entry.id));
  // Those past the last one are children of it or of its ancestors: the walk goes into the
  // former (it goes into all it passes), not the latter.
  const unread = order.filter((entry) => entry.unread).map((entry) => entry.id);
  return { ids, last: last >= 0 ? order[last]!.id : undefined, unread, textParents };
}

/** The nodes (by backendNodeId) with a listener that makes them respond to clicks. */
async function clickListeners(
  frame: FrameRecord,
  documentBackendNodeId: number,
  send: SendOptions,
  objectGroup: string,
): Promise<Set<number>> {
  // Resolved without a context: in the main world, whose listeners are the page's.
  const { object } = await frame.session.sendWith(send, 'DOM.resolveNode', { backendNodeId: documentBackendNodeId, objectGroup });
  if (!object.objectId) throw new Error('the document has no object');
  const { listeners } = await frame.session.sendWith(send, 'DOMDebugger.getEventListeners', {
    objectId: object.objectId,
    depth: -1,
    pierce: true,
  });
  const out = new Set<number>();
  for (const listener of listeners) {
    if (CLICK_TYPES.has(listener.type) && listener.backendNodeId !== undefined) out.add(listener.backendNodeId);
  }
  return out;
}

interface Walked extends FactsAnswer {
  /** The backendNodeId of each record's node. */
  ids: Array<number | undefined>;
}

interface InWorld {
  frame: FrameRecord;
  contextId: number;
  send: SendOptions;
  objectGroup: string;
}

/** A node (or pseudo-element) of the read as an object of our world, to pass to the page. */
async function resolveInWorld(world: InWorld, backendNodeId: number): Promise<PageObject> {
  const { frame, contextId, send, objectGroup } = world;
  const { object } = await frame.session.sendWith(send, 'DOM.resolveNode', { backendNodeId, executionContextId: contextId, objectGroup });
  if (!object.objectId) throw new Error('a node without an object');
  return new PageObject(object.objectId);
}

/**
 * The page's walk through `end`, not going into the read nodes whose children were not read (up
 * to MAX_NOT_INTO of them, each named to the page): a walk that went into them would answer their
 * whole subtrees, and each node answered costs the renderer its serialization
 * (docs/observation.md, "The page's facts, in proportion").
 */
async function walk(world: InWorld, end: number, unread: readonly number[]): Promise<Walked | undefined> {
  const { frame, contextId, send } = world;
  const [last, ...notInto] = await Promise.all([end, ...unread.slice(0, MAX_NOT_INTO)].map((id) => resolveInWorld(world, id)));
  const { result, exceptionDetails } = await callPageRaw(
    { session: frame.session, executionContextId: contextId },
    'pageFacts',
    [last!, ...notInto],
    NODE_LIST,
    send,
  );
  if (exceptionDetails || result.deepSerializedValue?.type !== 'array') return undefined;
  const items = result.deepSerializedValue.value as Cdp.Runtime.DeepSerializedValue[];
  const [json, ...nodes] = items;
  if (typeof json?.value !== 'string') return undefined;
  const answer = JSON.parse(json.value) as FactsAnswer;
  if (answer.records.length !== nodes.length) return undefined;
  return { ...answer, ids: nodes.map(backendIdOf) };
}

/**
 * A text's layout box in the document's coordinates (its quads, from the viewport, with the
 * document's scroll at the walk), as the walk measures one; undefined for a text laid out nowhere.
 */
async function textBoxOf(frame: FrameRecord, backendNodeId: number, scroll: [number, number], send: SendOptions): Promise<Box | undefined> {
  const quads = await frame.session.sendWith(send, 'DOM.getContentQuads', { backendNodeId }).then(
    (answer) => answer.quads,
    (error: unknown) => {
      // "Could not compute content quads": no layout. Anything else (no answer) fails the read.
      if (isCdpError(error) && error.kind === 'protocol') return [];
      throw error;
    },
  );
  if (quads.length === 0) return undefined;
  const { x, y, width, height } = quads.map(quadBox).reduce(union);
  return [x + scroll[0], y + scroll[1], width, height];
}

/** The facts of pseudo-elements the walk did not reach (pseudoFacts), one per backendNodeId. */
async function pseudosOf(world: InWorld, pseudos: readonly number[]): Promise<Array<PseudoFact | null>> {
  if (pseudos.length === 0) return [];
  const objects = await Promise.all(pseudos.map((id) => resolveInWorld(world, id)));
  return callPage({ session: world.frame.session, executionContextId: world.contextId }, 'pseudoFacts', objects, world.send);
}

/**
 * The facts of the nodes `ax` read of the frame's document (the same as a snapshot's for each of
 * them), or undefined when the page cannot establish them all.
 */
export async function readPrefixFacts(options: {
  frame: FrameRecord;
  worlds: IsolatedWorlds;
  tree: AxViewNode;
  documentBackendNodeId: number;
  send: SendOptions;
}): Promise<DocumentFacts | undefined> {
  const { frame, worlds, tree, documentBackendNodeId, send } = options;
  const { ids, last, unread, textParents } = readNodes(tree);
  if (last === undefined) return undefined;
  const objectGroup = `pagewire-facts-${crypto.randomUUID()}`;
  try {
    const contextId = await worlds.contextFor(frame.session, frame.id, frame.loaderId);
    const listening = clickListeners(frame, documentBackendNodeId, send, objectGroup);
    // Awaited below; a read given up before then must not leave its failure unhandled.
    listening.catch(() => {});
    const world = { frame, contextId, send, objectGroup };
    const walked = await walk(world, last, unread);
    if (!walked) return undefined;
    const reached = new Set(walked.ids.filter((id, k) => id !== undefined && (walked!.records[k]![1] & FACT.controlOnly) === 0));
    const missing = [...ids].filter((id) => !reached.has(id));
    if (missing.length > MAX_EXTRA) return undefined;
    const described = await Promise.all(
      missing.map((backendNodeId) => frame.session.sendWith(send, 'DOM.describeNode', { backendNodeId })),
    );
    // A list item's ::marker cannot set a cursor (it takes the item's, which has a box) and has no
    // listener of its own: it never gets a ref, and only its name is asked.
    const markers = missing.filter((_, i) => described[i]!.node.pseudoType === 'marker');
    // A text has nothing but its box: one under a wrapper the walk passes by after its end (an
    // ignored <div> whose texts the read lifts into its parent), a space the walk left out, a
    // control's label in its user-agent shadow tree (an <input type=submit>'s). Its parent must be
    // a node the walk reached, so that nothing it cannot see (a closed shadow tree) hides there.
    // CDP measures it; no script sees it. Its quads are the main frame's viewport's, so a child
    // frame's texts take the snapshot.
    const texts = missing.filter((_, i) => described[i]!.node.nodeType === TEXT_NODE);
    if (texts.length > 0 && frame.parentId !== undefined) return undefined;
    const textParent = texts.map((id) => textParents.get(id));
    if (!textParent.every((parent) => parent !== undefined && reached.has(parent))) return undefined;
    // A label in an <input>'s user-agent shadow tree has no box: the snapshot lists none of that tree.
    const parents = new Set(textParent);
    const inputs = new Set(walked.ids.filter((id, k) => parents.has(id) && walked.records[k]![7] === 'INPUT'));
    const measured = texts.filter((_, i) => !inputs.has(textParent[i]!));
    const extra = missing.filter((_, i) => described[i]!.node.pseudoType !== 'marker' && described[i]!.node.nodeType !== TEXT_NODE);
    // Only ::before and ::after are named to the page: a node of a user-agent shadow tree (a
    // field's inner parts) must never reach a script, and anything else the walk missed (a node in
    // a closed shadow tree, one out of document order) is not the page's to tell.
    const kinds = described.map(({ node }) => node).filter((node) => node.pseudoType !== 'marker' && node.nodeType !== TEXT_NODE)
      .map((node) => node.pseudoType);
    if (!kinds.every((kind) => kind === 'before' || kind === 'after')) return undefined;
    const [pseudos, textBoxes] = await Promise.all([
      pseudosOf(world, extra),
      Promise.all(measured.map((backendNodeId) => textBoxOf(frame, backendNodeId, walked.scroll, send))),
    ]);
    const facts = factsOf(walked, extra, pseudos, await listening);
    if (!facts) return undefined;
    for (const id of markers) facts.nodes.set(id, { clickable: false, ownPointer: false, dragAndDrop: false, nodeName: '::marker' });
    for (const [i, box] of textBoxes.entries()) if (box) facts.textBoxes.set(measured[i]!, box);
    const [scrollX, scrollY] = walked.scroll;
    return {
      frameId: frame.id,
      documentBackendNodeId,
      scrollX,
      scrollY,
      nodes: facts.nodes,
      textBoxes: facts.textBoxes,
      childFrames: new Map(),
      closedShadowRoots: [],
    };
  } finally {
    frame.session.send('Runtime.releaseObjectGroup', { objectGroup }).catch(() => {});
  }
}

function factsOf(walked: Walked, extra: readonly number[], pseudos: ReadonlyArray<PseudoFact | null>, listening: ReadonlySet<number>):
  | { nodes: Map<number, NodeFacts>; textBoxes: Map<number, Box> }
  | undefined {
  const { records, ids } = walked;
  const nodes = new Map<number, NodeFacts>();
  const textBoxes = new Map<number, Box>();
  // Chromium's Node::WillRespondToMouseClickEvents, with the overrides of the elements the page can reach.
  const clickable = (k: number): boolean => {
    const flags = records[k]![1];
    if (flags & FACT.activates) return true;
    if (flags & FACT.disabled) return false;
    return (flags & FACT.editable) !== 0 || listening.has(ids[k]!);
  };
  for (let k = 0; k < records.length; k++) {
    const [type, flags, x, y, width, height, control, nodeName] = records[k]!;
    const id = ids[k];
    if (id === undefined) return undefined;
    // A closed shadow tree, or perhaps one (an empty one is in no read): the snapshot lists them.
    if (flags & (FACT.closed | FACT.mayHostClosed)) return undefined;
    if (flags & FACT.controlOnly) continue;
    const box: Box | undefined = flags & FACT.box ? [x, y, width, height] : undefined;
    if (type === 3) {
      if (box) textBoxes.set(id, box);
      continue;
    }
    const fact: NodeFacts = {
      clickable: clickable(k) || (control >= 0 && clickable(control)),
      ownPointer: (flags & FACT.ownPointer) !== 0,
      dragAndDrop: (flags & FACT.dragAndDrop) !== 0,
      nodeName,
    };
    if (box) fact.box = box;
    nodes.set(id, fact);
  }
  for (const [i, answer] of pseudos.entries()) {
    if (answer === null) return undefined;
    const [own, type] = answer;
    // A pseudo-element with a pointer of its own gets a ref, and its box is not the page's to measure.
    if (own === 1) return undefined;
    nodes.set(extra[i]!, { clickable: false, ownPointer: false, dragAndDrop: false, nodeName: type });
  }
  return { nodes, textBoxes };
}
