// A prefix read: a document's accessibility tree read from the top, in document order, only as far
// as an observation needs (its first N refs and the tree up to them), with
// Accessibility.getPartialAXTree only (ax-part.ts says why not queryAXTree). A whole large
// document (getFullAXTree) costs the renderer time that grows faster than the document; each
// getPartialAXTree answers with one element, its children and its ancestors, so a read of the
// first N refs costs what those N need. The nodes keep Chromium's ids and links, so the tree built
// from them (buildAxTreeFrom with `partial`) is the full tree's, cut short: what was not read is an
// UNREAD_ROLE placeholder, and rendering one (render.ts, IncompleteRead) means reading further.
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
    if (unreadBelow(nodes, node)) {
      next.push(node);
      likely += Math.max(1, node.childIds?.length ?? 0);
      continue;
    }
    const children = node.childIds ?? [];
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!);
  }
  return next;
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
  for (const node of payload) {
    const known = nodes.get(node.nodeId);
    // An ancestor comes again with every part below it: the first answer stays, unless this one
    // lists children (getPartialAXTree lists a sibling without them).
    if (!known || (known.childIds === undefined && node.childIds !== undefined)) nodes.set(node.nodeId, slim(node));
  }
}

/**
 * `document` read further (or, without one, from its root, `documentBackendNodeId`): everything
 * before the `wanted`-th ref by role, or the whole document. Level by level: the next unread
 * elements in document order, all of a round at once. Not partial when nothing was left unread.
 */
export async function readPrefix(options: {
  read: ReadPart;
  documentBackendNodeId: number;
  wanted: number;
  document?: AxDocument;
  cost: PrefixCost;
}): Promise<AxDocument | undefined> {
  const { read, wanted, cost } = options;
  const nodes = new Map<string, AXNode>(options.document?.nodes ?? []);
  let rootId = options.document?.rootId;
  if (rootId === undefined) {
    const payload = await read(options.documentBackendNodeId);
    const root = payload.find((node) => node.backendDOMNodeId === options.documentBackendNodeId) ?? payload[0];
    if (!root) return undefined;
    rootId = root.nodeId;
    take(nodes, payload, cost);
  }
  const readAll = async (next: AXNode[]) => {
    const answers = await Promise.all(
      next.map((node) => {
        // Nodes without an element of their own have their children read with their parent's.
        if (node.backendDOMNodeId === undefined) throw new Error(`the children of accessibility node ${node.nodeId} cannot be read`);
        return read(node.backendDOMNodeId);
      }),
    );
    const before = nodes.size;
    for (const payload of answers) take(nodes, payload, cost);
    if (nodes.size === before) throw new Error('a prefix read stopped finding nodes');
  };
  for (;;) {
    const next = frontier(nodes, rootId, wanted);
    if (next.length === 0) break;
    await readAll(next);
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
