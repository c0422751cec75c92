// A prefix read: a document's accessibility tree read from the top, in document order, only as far
// as an observation needs (its first N refs and the tree up to them), with
// Accessibility.getPartialAXTree only (ax-part.ts says why not queryAXTree). A whole large
// document (getFullAXTree) costs the renderer time that grows faster than the document; each
// getPartialAXTree answers with one element, its children and its ancestors, so a read of the
// first N refs costs what those N need. The nodes keep Chromium's ids and links, so the tree built
// from them (buildAxTreeFrom with `partial`) is the full tree's, cut short: what was not read is an
// unread placeholder (ax-tree.ts, UnreadNode), and rendering one (render.ts answers `{ needs }`)
// means reading further.
// Read level by level, that costs a call per node with children, and each call is a visit to the
// renderer: so the read first asks, all at once, about the elements at the ends of the paths the
// DOM says lie before the N-th ref (page/ax-probes.ts), which answer with every node on their
// path, and then reads level by level only what they left out.
import type { Cdp } from '../../protocol/generated/cdp.ts';
import { statesOf } from './ax-tree.ts';
import { type AxDocument, slim } from './ax-document.ts';
import { refByRole } from './render.ts';

type AXNode = Cdp.Accessibility.AXNode;

/** One `getPartialAXTree {backendNodeId, fetchRelatives: true}` in the document read: its nodes. */
export type ReadPart = (backendNodeId: number) => Promise<AXNode[]>;

/** What a prefix read cost, for the reader's counters. */
export interface PrefixCost {
  calls: number;
  /** Nodes the renderer answered with, over every call (ancestors come again with each). */
  nodes: number;
}

/** A node whose children are not all read (a text node's InlineTextBoxes are never needed). */
function unreadBelow(nodes: ReadonlyMap<string, AXNode>, node: AXNode): boolean {
  if (node.role?.value === 'StaticText') return false;
  return (node.childIds ?? []).some((id) => !nodes.has(id));
}

/**
 * The nodes to read next: those with unread children, in document order, until what they likely
 * hold reaches the `wanted`-th ref by role. An unread node counts as many refs as it has children
 * (a list of 100 links is one node to read, and 100 refs): reading further in the same round would
 * read past what is needed, and reading less would take more rounds.
 */
function frontier(nodes: ReadonlyMap<string, AXNode>, rootId: string, wanted: number): AXNode[] {
  const next: AXNode[] = [];
  let refs = 0;
  let likely = 0;
  const stack = [rootId];
  while (stack.length > 0 && refs + likely < wanted) {
    const node = nodes.get(stack.pop()!);
    if (!node) continue;
    if (!node.ignored && refByRole(String(node.role?.value ?? ''), statesOf(node))) refs++;
    const children = node.childIds ?? [];
    if (unreadBelow(nodes, node)) {
      next.push(node);
      const unread = children.filter((id) => !nodes.has(id)).length;
      likely += Math.max(1, unread);
      // Some of its children were read (on the paths of probes): the refs among them count.
      if (unread === children.length) continue;
    }
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!);
  }
  return next;
}

/**
 * The node to read for `node`'s children: itself, or for an ignored node its nearest unignored
 * ancestor (getPartialAXTree lists an ignored element's children only through the ancestor's).
 */
function readThrough(nodes: ReadonlyMap<string, AXNode>, node: AXNode): AXNode {
  let through = node;
  while (through.ignored && through.parentId !== undefined) {
    const parent = nodes.get(through.parentId);
    if (!parent) break;
    through = parent;
  }
  return through;
}

/** Past this many rounds for the elements names are taken from, the document is read whole. */
const MAX_RELATED_ROUNDS = 48;

/**
 * The elements that names of read nodes are taken from (name source `relatedElement`): those not
 * read at all (by backendNodeId), and read nodes in their subtrees whose children were not.
 */
function relatedUnread(nodes: ReadonlyMap<string, AXNode>): { missing: number[]; unread: AXNode[] } {
  const byBackend = new Map<number, AXNode>();
  for (const node of nodes.values()) if (node.backendDOMNodeId !== undefined) byBackend.set(node.backendDOMNodeId, node);
  const missing = new Set<number>();
  const unread = new Set<AXNode>();
  for (const node of nodes.values()) {
    const source = node.name?.sources?.find((candidate) =>
      !candidate.superseded && candidate.value?.value !== undefined && candidate.value.value !== ''
    );
    if (source?.type !== 'relatedElement') continue;
    for (const related of source.attributeValue?.relatedNodes ?? source.nativeSourceValue?.relatedNodes ?? []) {
      const known = byBackend.get(related.backendDOMNodeId);
      if (!known) {
        missing.add(related.backendDOMNodeId);
        continue;
      }
      const stack = [known];
      while (stack.length > 0) {
        const next = stack.pop()!;
        if (unreadBelow(nodes, next)) unread.add(next);
        for (const id of next.childIds ?? []) {
          const child = nodes.get(id);
          if (child) stack.push(child);
        }
      }
    }
  }
  return { missing: [...missing], unread: [...unread] };
}

function take(nodes: Map<string, AXNode>, payload: readonly AXNode[], cost: PrefixCost): void {
  cost.calls++;
  cost.nodes += payload.length;
  keep(nodes, payload);
}

function keep(nodes: Map<string, AXNode>, payload: readonly AXNode[]): void {
  for (const node of payload) {
    const known = nodes.get(node.nodeId);
    // An ancestor comes again with every part below it: the first answer stays, unless this one
    // lists children (getPartialAXTree lists a sibling without them).
    if (!known || (known.childIds === undefined && node.childIds !== undefined)) nodes.set(node.nodeId, slim(node));
  }
}

/**
 * A probe's answer. Asked about an ignored node, Chromium lists it without its children and
 * puts it first among its parent's children once more (ax-document.ts): the element is left out,
 * and so is that parent unless the extra entry can be told apart (it is listed twice), so that
 * both are read through their nearest unignored ancestor as the level-by-level read does.
 */
function takeProbe(nodes: Map<string, AXNode>, answer: readonly AXNode[], cost: PrefixCost): void {
  cost.calls++;
  cost.nodes += answer.length;
  // A probed text answers with its InlineTextBoxes, which no observation shows (ax-tree.ts).
  const payload = answer.filter((node) => node.role?.value !== 'InlineTextBox');
  const own = payload[0];
  if (!own?.ignored) return keep(nodes, payload);
  const kept: AXNode[] = [];
  for (const node of payload.slice(1)) {
    const childIds = node.childIds ?? [];
    if (node.nodeId !== own.parentId || childIds[0] !== own.nodeId) kept.push(node);
    else if (childIds.indexOf(own.nodeId, 1) !== -1) kept.push({ ...node, childIds: childIds.slice(1) });
  }
  keep(nodes, kept);
}

/** The read node of an element (by backendNodeId), if it was read. */
function nodeOf(nodes: ReadonlyMap<string, AXNode>, backendNodeId: number): AXNode | undefined {
  const byId = nodes.get(String(backendNodeId));
  if (byId?.backendDOMNodeId === backendNodeId) return byId;
  for (const node of nodes.values()) if (node.backendDOMNodeId === backendNodeId) return node;
  return undefined;
}

/** Past this many probes in one read, the rest of the read goes level by level. */
const MAX_PROBES = 2_000;

/**
 * `document` read further (or, without one, from its root, `documentBackendNodeId`): everything
 * before the `wanted`-th ref by role (in `from`'s subtree, with its path, when given), or the
 * whole document. The probes first, then level by
 * level: the next unread elements in document order, all of a round at once. Not partial when
 * nothing was left unread.
 */
export async function readPrefix(options: {
  read: ReadPart;
  /** Where a read without `document` starts. */
  documentBackendNodeId?: number;
  wanted: number;
  document?: AxDocument;
  /**
   * Elements (backendNodeIds) to ask about first, all at once with the document's root: those at
   * the ends of the tree's first paths (page/ax-probes.ts). Any choice gives the same read.
   */
  probes?: readonly number[];
  /**
   * The element (backendNodeId) whose subtree the answer is for (root_ref): its path from the
   * document is read in one call, and `wanted` counts refs from it down, so nothing before or
   * after it is read beyond its ancestors' child lists.
   */
  from?: number;
  cost: PrefixCost;
}): Promise<AxDocument | undefined> {
  const { read, wanted, cost, from } = options;
  const nodes = new Map<string, AXNode>(options.document?.nodes ?? []);
  // Chromium's id of a DOM node's accessibility node is its backendNodeId: one read whole is not
  // asked about again.
  const probes = (options.probes ?? []).filter((id) => {
    const node = nodes.get(String(id));
    return !node || unreadBelow(nodes, node);
  }).slice(0, MAX_PROBES);
  // A probe that fails (an element without an accessibility node) only leaves its path to the
  // level-by-level read; a document that is gone fails the root's read or the next level's.
  const pathOf = from === undefined || nodeOf(nodes, from) ? undefined : read(from).catch(() => undefined);
  const probed = Promise.all(probes.map((id) => read(id).catch(() => undefined)));
  let rootId = options.document?.rootId;
  if (rootId === undefined) {
    if (options.documentBackendNodeId === undefined) throw new Error('a prefix read from the top needs its document');
    const payload = await read(options.documentBackendNodeId);
    const root = payload.find((node) => node.backendDOMNodeId === options.documentBackendNodeId) ?? payload[0];
    if (!root) return undefined;
    rootId = root.nodeId;
    take(nodes, payload, cost);
  }
  for (const payload of await probed) if (payload) takeProbe(nodes, payload, cost);
  const path = await pathOf;
  if (path) takeProbe(nodes, path, cost);
  // An element whose node did not come (it has none of its own): the read counts from the top.
  const startId = (from === undefined ? undefined : nodeOf(nodes, from)?.nodeId) ?? rootId;
  const readAll = async (unread: AXNode[], mustFind = true) => {
    const next = [...new Set(unread.map((node) => readThrough(nodes, node)))];
    const answers = await Promise.all(
      next.map((node) => {
        // Nodes without an element of their own have their children read with their parent's.
        if (node.backendDOMNodeId === undefined) throw new Error(`the children of accessibility node ${node.nodeId} cannot be read`);
        return read(node.backendDOMNodeId);
      }),
    );
    const before = nodes.size;
    for (const payload of answers) take(nodes, payload, cost);
    if (mustFind && nodes.size === before) throw new Error('a prefix read stopped finding nodes');
  };
  for (;;) {
    const next = frontier(nodes, startId, wanted);
    if (next.length === 0) break;
    await readAll(next);
  }
  // Past the wanted ref, probes leave nodes with some children read and some not (a table body
  // of 1,500 rows, 30 of them on probes' paths), and so does the path to a root_ref's element:
  // those are read with all their children, as a read level by level leaves them, so that a change
  // patched in later finds its ancestors whole.
  if (probes.length > 0 || path) {
    const parted = [...nodes.values()].filter((node) => unreadBelow(nodes, node) && (node.childIds ?? []).some((id) => nodes.has(id)));
    if (parted.length > 0) await readAll(parted, false);
  }
  // A name taken from other elements (aria-labelledby, a <label for>) is rebuilt without input
  // values from those elements' subtrees (ax-tree.ts): they are read whole, wherever they are.
  for (let rounds = 0;; rounds++) {
    const next = relatedUnread(nodes);
    if (next.missing.length === 0 && next.unread.length === 0) break;
    if (rounds >= MAX_RELATED_ROUNDS) throw new Error(`the elements names are taken from need more than ${MAX_RELATED_ROUNDS} rounds`);
    const answers = await Promise.all(next.missing.map((backendNodeId) => read(backendNodeId)));
    for (const payload of answers) take(nodes, payload, cost);
    if (next.unread.length > 0) await readAll(next.unread);
  }
  const complete = frontier(nodes, rootId, Infinity).length === 0;
  return complete ? { rootId, nodes } : { rootId, nodes, partial: true };
}
