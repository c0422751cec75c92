// PURE: one document's accessibility nodes as Chromium gave them, kept so that a later read can
// replace only the parts that changed. A part (ax-part.ts) is every AX node of a DOM subtree, with
// the same nodeIds and links as the full tree, plus the element's relatives (its ancestors up to
// the root, with their current names and child lists). What a patch cannot place makes it fail,
// and the caller reads the whole document instead.
import type { Cdp } from '../../protocol/generated/cdp.ts';

type AXNode = Cdp.Accessibility.AXNode;

export interface AxDocument {
  rootId: string;
  nodes: ReadonlyMap<string, AXNode>;
  /**
   * Read from the top only as far as an observation needed (ax-prefix.ts): children missing from
   * `nodes` were not read (rather than a hole), and a tree built from it says where.
   */
  partial?: true;
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
export function slim(node: AXNode): AXNode {
  const out: AXNode = { nodeId: node.nodeId, ignored: node.ignored };
  if (node.role) out.role = node.role;
  if (node.name) {
    // Of the name's sources only the one it was taken from is kept (contents, a label…).
    const used = node.name.sources?.find((source) => !source.superseded && source.value?.value !== undefined && source.value.value !== '');
    out.name = { type: node.name.type, value: node.name.value, ...(node.name.sources ? { sources: used ? [used] : [] } : {}) };
  }
  if (node.value) {
    out.value = {
      type: node.value.type,
      value: node.value.value === undefined || node.value.value === null || node.value.value === '' ? '' : '•',
    };
  }
  if (node.properties) out.properties = node.properties;
  if (node.parentId !== undefined) out.parentId = node.parentId;
  if (node.childIds) out.childIds = node.childIds;
  if (node.backendDOMNodeId !== undefined) out.backendDOMNodeId = node.backendDOMNodeId;
  if (node.frameId !== undefined) out.frameId = node.frameId;
  return out;
}

/** A flat map of a document's nodes, with the nodeIds of each element built when first asked. */
class FlatNodes extends Map<string, AXNode> {
  #byBackend: Map<number, string[]> | undefined;

  /** The nodeIds of the element's accessibility nodes in this map (usually one). */
  nodesOf(backendNodeId: number): readonly string[] {
    if (!this.#byBackend) {
      const index = new Map<number, string[]>();
      for (const node of this.values()) {
        if (node.backendDOMNodeId === undefined) continue;
        const list = index.get(node.backendDOMNodeId);
        if (list) list.push(node.nodeId);
        else index.set(node.backendDOMNodeId, [node.nodeId]);
      }
      this.#byBackend = index;
    }
    return this.#byBackend.get(backendNodeId) ?? [];
  }
}

/**
 * A read-only map made of a shared base and a small layer of changes over it (undefined: deleted),
 * so that patching a 7,500-node document costs what the patch touches, while the patched-from
 * document stays as it was (a concurrent observation may still be building on it). Once the layer
 * grows past a share of the base, the next patch starts from one flat map again.
 */
class LayeredMap implements ReadonlyMap<string, AXNode> {
  readonly base: FlatNodes;
  readonly layer: ReadonlyMap<string, AXNode | undefined>;
  readonly size: number;

  constructor(base: FlatNodes, layer: ReadonlyMap<string, AXNode | undefined>, size: number) {
    this.base = base;
    this.layer = layer;
    this.size = size;
  }

  get(id: string): AXNode | undefined {
    return this.layer.has(id) ? this.layer.get(id) : this.base.get(id);
  }

  has(id: string): boolean {
    return this.get(id) !== undefined;
  }

  *entries(): MapIterator<[string, AXNode]> {
    for (const [id, node] of this.layer) if (node) yield [id, node];
    for (const [id, node] of this.base) if (!this.layer.has(id)) yield [id, node];
  }

  *keys(): MapIterator<string> {
    for (const [id] of this.entries()) yield id;
  }

  *values(): MapIterator<AXNode> {
    for (const [, node] of this.entries()) yield node;
  }

  [Symbol.iterator](): MapIterator<[string, AXNode]> {
    return this.entries();
  }

  forEach(callback: (value: AXNode, key: string, map: ReadonlyMap<string, AXNode>) => void): void {
    for (const [id, node] of this.entries()) callback(node, id, this);
  }
}

/** Past this share of the base in changes, a patch flattens the layers into one map. */
const MAX_LAYER_SHARE = 1 / 8;

/** The changes one patch makes, over the document it patches. */
class Draft {
  readonly #base: FlatNodes;
  readonly #layer: Map<string, AXNode | undefined>;
  #size: number;

  constructor(nodes: ReadonlyMap<string, AXNode>) {
    if (nodes instanceof LayeredMap && nodes.layer.size <= Math.max(64, nodes.base.size * MAX_LAYER_SHARE)) {
      this.#base = nodes.base;
      this.#layer = new Map(nodes.layer);
    } else {
      this.#base = nodes instanceof FlatNodes ? nodes : new FlatNodes(nodes.entries());
      this.#layer = new Map();
    }
    this.#size = nodes.size;
  }

  get(id: string): AXNode | undefined {
    return this.#layer.has(id) ? this.#layer.get(id) : this.#base.get(id);
  }

  set(node: AXNode): void {
    if (this.get(node.nodeId) === undefined) this.#size++;
    this.#layer.set(node.nodeId, node);
  }

  delete(id: string): void {
    if (this.get(id) === undefined) return;
    this.#size--;
    this.#layer.set(id, undefined);
  }

  /** The nodeIds of the element's accessibility nodes (usually one). */
  nodesOf(backendNodeId: number): string[] {
    const ids = this.#base.nodesOf(backendNodeId).filter((id) => this.get(id)?.backendDOMNodeId === backendNodeId);
    for (const [id, node] of this.#layer) if (node?.backendDOMNodeId === backendNodeId && !ids.includes(id)) ids.push(id);
    return ids;
  }

  done(): LayeredMap {
    return new LayeredMap(this.#base, this.#layer, this.#size);
  }
}

/**
 * Keeps only what hangs off the root (nodes of the payload outside the tree are dropped);
 * undefined when a child is missing, since a tree with holes would silently hide part of the page.
 */
function reachable(rootId: string, nodes: Map<string, AXNode>): FlatNodes | undefined {
  const out = new FlatNodes();
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
 * element has no accessibility node, its ancestors do not lead to this document's root, or the
 * result would have a hole). The document patched from is left as it was.
 */
export function patchAxDocument(document: AxDocument, patches: readonly AxPatch[]): AxDocument | undefined {
  const draft = new Draft(document.nodes);
  const dropped = new Set<string>();
  const drop = (id: string) => {
    const node = draft.get(id);
    if (!node) return;
    draft.delete(id);
    dropped.add(id);
    for (const child of node.childIds ?? []) drop(child);
  };
  // Every old subtree goes first: a node moved from one patched part into another must survive.
  for (const patch of patches) {
    if (!patch.subtree.some((node) => node.backendDOMNodeId === patch.backendNodeId)) return undefined;
    if (!patch.relatives.some((node) => node.nodeId === document.rootId)) return undefined;
    for (const id of draft.nodesOf(patch.backendNodeId)) drop(id);
  }
  const written: AXNode[] = [];
  const relativesNow: AXNode[] = [];
  for (const patch of patches) {
    const own = patch.subtree.find((node) => node.backendDOMNodeId === patch.backendNodeId);
    const inSubtree = new Set(patch.subtree.map((node) => node.nodeId));
    // Ancestors and siblings as they are now: names computed from contents, child lists.
    for (const node of patch.relatives) {
      if (inSubtree.has(node.nodeId)) continue;
      const previous = draft.get(node.nodeId);
      const fresh = slim(node);
      // getPartialAXTree lists a sibling without its children; the kept node has them.
      if (previous && node.childIds === undefined) fresh.childIds = previous.childIds ?? [];
      // Asked about an ignored node, Chromium puts it first among its parent's children once more
      // (the full tree lists it once, in place, or not at all): that extra entry is dropped.
      if (own?.ignored && own.parentId === node.nodeId && fresh.childIds?.[0] === own.nodeId) fresh.childIds = fresh.childIds.slice(1);
      // Children a relative no longer has are gone, with what hangs off them.
      const now = new Set(fresh.childIds ?? []);
      for (const child of previous?.childIds ?? []) if (!now.has(child)) drop(child);
      relativesNow.push(fresh);
    }
    for (const node of patch.subtree) {
      const kept = slim(node);
      draft.set(kept);
      dropped.delete(node.nodeId);
      written.push(kept);
    }
  }
  for (const fresh of relativesNow) {
    draft.set(fresh);
    dropped.delete(fresh.nodeId);
    written.push(fresh);
  }
  // No holes: what was written has all its children, and nothing kept still lists a dropped node.
  if (!draft.get(document.rootId)) return undefined;
  for (const node of written) for (const child of node.childIds ?? []) if (!draft.get(child)) return undefined;
  for (const id of dropped) {
    const parentId = document.nodes.get(id)?.parentId;
    const parent = parentId === undefined ? undefined : draft.get(parentId);
    if (parent?.childIds?.includes(id)) return undefined;
  }
  return { rootId: document.rootId, nodes: draft.done(), ...(document.partial ? { partial: true as const } : {}) };
}
