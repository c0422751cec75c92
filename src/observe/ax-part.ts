// One element's accessibility subtree and relatives, read with Accessibility.getPartialAXTree only.
//
// Not with Accessibility.queryAXTree, although one call of it returns a whole subtree: its answer
// waits for the renderer's next accessibility update, and when the element's document is replaced
// meanwhile (a navigation commits), or already was when the call arrives, the renderer dies of a
// segmentation fault (CDP-NOTES "Accessibility reads across a navigation"). pagewire cannot know
// that no navigation is about to commit (a page navigates whenever it likes), so it never sends
// one. getPartialAXTree answers at once ("Frame is detached." for a replaced document).
import type { Cdp } from '../../protocol/generated/cdp.ts';
import type { FrameRecord } from '../browser/frame-tree.ts';

type AXNode = Cdp.Accessibility.AXNode;

/** One element's accessibility subtree and relatives: what a patch needs of it (ax-document.ts). */
export interface AxPart {
  /** Every node of the element's subtree that the full tree has, with the same ids and links. */
  subtree: AXNode[];
  /** The element (first), its children and its ancestors up to the document, as they are now. */
  relatives: AXNode[];
}

/** Past this many reads for one part, the caller reads the whole document instead. */
const MAX_READS_PER_PART = 48;

/**
 * getPartialAXTree answers with the element, its children (through ignored nodes, which it
 * expands) and its ancestors. The subtree is read level by level from there: each element whose
 * children did not come is read in turn, all of one level at once. Text nodes are not: the only
 * children of a StaticText are InlineTextBoxes, which no observation shows, so they are left out
 * of its child list. An ignored element does not get its children listed: it is read through its
 * nearest unignored ancestor, whose children it is among (or not: then it is not in the tree,
 * and the subtree is empty, as the full tree has none of it).
 */
export async function readAxPart(
  frame: FrameRecord,
  backendNodeId: number,
  options: { timeoutMs: number; signal?: AbortSignal },
): Promise<AxPart> {
  let reads = 0;
  const read = (id: number): Promise<AXNode[]> => {
    if (++reads > MAX_READS_PER_PART) return Promise.reject(new Error(`more than ${MAX_READS_PER_PART} reads for one part`));
    return frame.session.sendWith(options, 'Accessibility.getPartialAXTree', { backendNodeId: id, fetchRelatives: true }).then((r) =>
      r.nodes
    );
  };
  const relatives = await read(backendNodeId);
  const own = relatives[0];
  if (!own) return { subtree: [], relatives };
  const byId = new Map(relatives.map((node) => [node.nodeId, node]));

  let first = relatives;
  if (own.ignored) {
    let ancestor = own.parentId === undefined ? undefined : byId.get(own.parentId);
    while (ancestor?.ignored) ancestor = ancestor.parentId === undefined ? undefined : byId.get(ancestor.parentId);
    if (ancestor?.backendDOMNodeId === undefined) return { subtree: [], relatives };
    first = await read(ancestor.backendDOMNodeId);
  }

  const subtree = new Map<string, AXNode>();
  /** Adds what hangs off `ids` in `payload` (its first node is the element read, then its children). */
  const take = (payload: readonly AXNode[], ids: readonly string[]) => {
    const inPayload = new Map(payload.map((node) => [node.nodeId, node]));
    const stack = [...ids];
    while (stack.length > 0) {
      const node = inPayload.get(stack.pop()!);
      if (!node || subtree.has(node.nodeId)) continue;
      subtree.set(node.nodeId, node);
      for (const child of node.childIds ?? []) stack.push(child);
    }
  };
  take(first, [own.nodeId]);
  if (!subtree.has(own.nodeId)) return { subtree: [], relatives };

  const expanded = new Set<string>();
  for (;;) {
    const missing: AXNode[] = [];
    for (const node of subtree.values()) {
      if (expanded.has(node.nodeId) || (node.childIds ?? []).every((child) => subtree.has(child))) continue;
      if (node.role?.value === 'StaticText') {
        subtree.set(node.nodeId, { ...node, childIds: (node.childIds ?? []).filter((child) => subtree.has(child)) });
        continue;
      }
      // Nodes without an element of their own have their children expanded by getPartialAXTree.
      if (node.backendDOMNodeId === undefined) throw new Error(`the children of accessibility node ${node.nodeId} cannot be read`);
      missing.push(node);
    }
    if (missing.length === 0) break;
    const payloads = await Promise.all(missing.map((node) => read(node.backendDOMNodeId!)));
    missing.forEach((node, i) => {
      expanded.add(node.nodeId);
      take(payloads[i]!, node.childIds ?? []);
    });
  }
  return { subtree: [...subtree.values()], relatives };
}
