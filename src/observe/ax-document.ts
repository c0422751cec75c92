// PURE: one document's accessibility nodes as Chromium gave them, kept so that a later read can
// replace only the parts that changed. A part is read with `Accessibility.queryAXTree` (every AX
// node of a DOM subtree, the same nodeIds and links as the full tree) plus
// `Accessibility.getPartialAXTree` with relatives (its ancestors up to the root, with their current
// names and child lists, and its siblings). What a patch cannot place makes it fail, and the
// caller reads the whole document instead.
import type { Cdp } from '../../protocol/generated/cdp.ts';

type AXNode = Cdp.Accessibility.AXNode;

export interface AxDocument {
  rootId: string;
  nodes: Map<string, AXNode>;
}

/** A re-read part of the document: the subtree of one DOM element and that element's relatives. */
export interface AxPatch {
  backendNodeId: number;
  subtree: readonly AXNode[];
  relatives: readonly AXNode[];
}

/**
 * What is worth keeping of a node: of its name sources (the bulk of the payload) only the one used,
 * and of its value only whether there is one (see statesOf), so typed text is not kept either.
 */
function slim(node: AXNode): AXNode {
  const out: AXNode = { nodeId: node.nodeId, ignored: node.ignored };
  if (node.role) out.role = node.role;
  if (node.name) {
    // Of the name's sources only the one it was taken from is kept (contents, a label…).
    const used = node.name.sources?.find((source) => !source.superseded && source.value?.value !== undefined && source.value.value !== '');
    out.name = { type: node.name.type, value: node.name.value, ...(node.name.sources ? { sources: used ? [used] : [] } : {}) };
  }
  if (node.value) out.value = { type: node.value.type, value: node.value.value === undefined || node.value.value === null || node.value.value === '' ? '' : '•' };
  if (node.properties) out.properties = node.properties;
  if (node.parentId !== undefined) out.parentId = node.parentId;
  if (node.childIds) out.childIds = node.childIds;
  if (node.backendDOMNodeId !== undefined) out.backendDOMNodeId = node.backendDOMNodeId;
  if (node.frameId !== undefined) out.frameId = node.frameId;
  return out;
}

/**
 * Keeps only what hangs off the root (nodes a patch left behind are dropped); undefined when a
 * child is missing, since a tree with holes would silently hide part of the page.
 */
function reachable(rootId: string, nodes: Map<string, AXNode>): Map<string, AXNode> | undefined {
  const out = new Map<string, AXNode>();
  const stack = [rootId];
  while (stack.length > 0) {
    const id = stack.pop()!;
    if (out.has(id)) continue;
    const node = nodes.get(id);
    if (!node) return undefined;
    out.set(id, node);
    for (const child of node.childIds ?? []) stack.push(child);
  }
  return out.has(rootId) ? out : undefined;
}

export function axDocument(payload: readonly AXNode[]): AxDocument | undefined {
  const root = payload.find((node) => node.parentId === undefined) ?? payload[0];
  if (!root) return undefined;
  const nodes = new Map<string, AXNode>();
  for (const node of payload) nodes.set(node.nodeId, slim(node));
  const kept = reachable(root.nodeId, nodes);
  return kept ? { rootId: root.nodeId, nodes: kept } : undefined;
}

/** The nodes in tree order from the root (what buildAxTree takes). */
export function axNodes(document: AxDocument): AXNode[] {
  const root = document.nodes.get(document.rootId);
  return root ? [root, ...[...document.nodes.values()].filter((node) => node !== root)] : [];
}

/**
 * The document with each patched subtree replaced, or undefined when a patch does not fit (its
 * element has no accessibility node, or its ancestors do not lead to this document's root).
 */
export function patchAxDocument(document: AxDocument, patches: readonly AxPatch[]): AxDocument | undefined {
  const nodes = new Map(document.nodes);
  const byBackend = new Map<number, string[]>();
  for (const node of nodes.values()) {
    if (node.backendDOMNodeId === undefined) continue;
    const list = byBackend.get(node.backendDOMNodeId) ?? [];
    list.push(node.nodeId);
    byBackend.set(node.backendDOMNodeId, list);
  }
  // Every old subtree goes first: a node moved from one patched part into another must survive.
  const drop = (id: string) => {
    const node = nodes.get(id);
    if (!node) return;
    nodes.delete(id);
    for (const child of node.childIds ?? []) drop(child);
  };
  for (const patch of patches) {
    if (!patch.subtree.some((node) => node.backendDOMNodeId === patch.backendNodeId)) return undefined;
    if (!patch.relatives.some((node) => node.nodeId === document.rootId)) return undefined;
    for (const id of byBackend.get(patch.backendNodeId) ?? []) drop(id);
  }
  for (const patch of patches) {
    const own = patch.subtree.find((node) => node.backendDOMNodeId === patch.backendNodeId);
    for (const node of patch.subtree) nodes.set(node.nodeId, slim(node));
    // Ancestors and siblings as they are now: names computed from contents, child lists.
    for (const node of patch.relatives) {
      if (patch.subtree.some((inner) => inner.nodeId === node.nodeId)) continue;
      const previous = nodes.get(node.nodeId);
      const fresh = slim(node);
      // getPartialAXTree lists a sibling without its children; the kept node has them.
      if (previous && node.childIds === undefined) fresh.childIds = previous.childIds ?? [];
      // Asked about an ignored node, Chromium puts it first among its parent's children once more
      // (the full tree lists it once, in place, or not at all): that extra entry is dropped.
      if (own?.ignored && own.parentId === node.nodeId && fresh.childIds?.[0] === own.nodeId) fresh.childIds = fresh.childIds.slice(1);
      nodes.set(node.nodeId, fresh);
    }
  }
  const kept = reachable(document.rootId, nodes);
  return kept ? { rootId: document.rootId, nodes: kept } : undefined;
}
