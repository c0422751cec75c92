// PURE: what the accessibility tree does not say, read from one `DOMSnapshot.captureSnapshot`
// of a renderer: each element's layout box (for visible / in_viewport), whether it responds to
// clicks (a click listener, say) and whether it sets `cursor: pointer` itself rather than
// inheriting it. One snapshot covers every same-process document of the renderer.
import type { Cdp } from '../../protocol/generated/cdp.ts';

/** x, y, width, height in the document's own coordinates (scroll included). */
export type Box = [number, number, number, number];

export interface NodeFacts {
  box?: Box;
  /** A click listener or native activation behaviour (DOMSnapshot's isClickable). */
  clickable: boolean;
  /** `cursor: pointer` set on this element and not on its parent element. */
  ownPointer: boolean;
  /** A drag source (draggable=true) or an inline drop target (ondrop / ondragover). */
  dragAndDrop: boolean;
  nodeName: string;
}

export interface DocumentFacts {
  frameId: string;
  documentBackendNodeId: number;
  scrollX: number;
  scrollY: number;
  nodes: Map<number, NodeFacts>;
  /** Text nodes' layout boxes (backendNodeId → box): where two pieces of a line of text meet. */
  textBoxes: Map<number, Box>;
  /** backendNodeId of an <iframe>/<frame> element → the frame id of its same-process document. */
  childFrames: Map<number, string>;
  /**
   * The nodes of closed shadow trees (backendNodeIds): page scripts cannot reach those trees, CDP
   * can, and the monitor watches each node's root.
   */
  closedShadowRoots: number[];
}

/** The computed style properties the snapshot must be asked for, in this order. */
export const SNAPSHOT_STYLES = ['cursor'];

/**
 * For a snapshot taken without computed styles (cheaper on a page of many styled nodes), where
 * `cursor: pointer` comes from instead: inside the elements that changed since the last snapshot,
 * the page's own answer; elsewhere, what the last snapshot said.
 */
export interface PointerSource {
  changedRoots: ReadonlySet<number>;
  pointers: ReadonlySet<number>;
  previous(frameId: string, backendNodeId: number): NodeFacts | undefined;
  /** The last facts were the page's, of what a prefix read held: `previous` knows only those. */
  partial?: true;
}

export function readSnapshot(snapshot: Cdp.DOMSnapshot.CaptureSnapshotResult, pointerSource?: PointerSource): DocumentFacts[] {
  const strings = snapshot.strings;
  const text = (index: number | undefined) => (index === undefined || index < 0 ? '' : (strings[index] ?? ''));
  // Large pages have tens of thousands of nodes: strings are compared by their index in the table.
  const indexOf = (value: string) => strings.indexOf(value);
  const POINTER = indexOf('pointer');
  const DRAGGABLE = indexOf('draggable');
  const TRUE = indexOf('true');
  const ONDROP = indexOf('ondrop');
  const ONDRAGOVER = indexOf('ondragover');
  return snapshot.documents.map((document) => {
    const nodes = document.nodes;
    const backendIds = nodes.backendNodeId ?? [];
    const count = backendIds.length;
    const parents = nodes.parentIndex ?? [];
    const names = nodes.nodeName ?? [];
    const types = nodes.nodeType ?? [];
    const clickable = new Uint8Array(count);
    for (const i of nodes.isClickable?.index ?? []) clickable[i] = 1;
    const cursor = new Int32Array(count).fill(-1); // string index of the node's cursor
    const layoutOf = new Int32Array(count).fill(-1); // the node's first layout object
    const layout = document.layout;
    for (let i = 0; i < layout.nodeIndex.length; i++) {
      const nodeIndex = layout.nodeIndex[i]!;
      // A node can own several layout objects (e.g. text fragments); the first one is its own.
      if (layoutOf[nodeIndex] !== -1) continue;
      layoutOf[nodeIndex] = i;
      const style = layout.styles[i];
      if (style && style.length > 0) cursor[nodeIndex] = style[0]!;
    }
    const attributes = nodes.attributes ?? [];
    const dragAndDrop = (i: number): boolean => {
      const list = attributes[i];
      if (!list) return false;
      for (let k = 0; k + 1 < list.length; k += 2) {
        const name = list[k];
        if ((name === DRAGGABLE && list[k + 1] === TRUE) || name === ONDROP || name === ONDRAGOVER) return true;
      }
      return false;
    };
    const frameId = text(document.frameId);
    // Nodes come in document order, parents first: inside[i] says node i is in a changed element.
    const inside = new Uint8Array(count);
    const ownPointer = (i: number, parent: number): boolean => {
      if (!pointerSource) return cursor[i] === POINTER && POINTER !== -1 && (parent < 0 || cursor[parent] !== POINTER);
      const id = backendIds[i]!;
      inside[i] = pointerSource.changedRoots.has(id) || (parent >= 0 && inside[parent] === 1) ? 1 : 0;
      return inside[i] === 1 ? pointerSource.pointers.has(id) : (pointerSource.previous(frameId, id)?.ownPointer ?? false);
    };
    const facts = new Map<number, NodeFacts>();
    const textBoxes = new Map<number, Box>();
    for (let i = 0; i < count; i++) {
      const parent = parents[i] ?? -1;
      const pointer = ownPointer(i, parent);
      if (types[i] === 3) {
        const textAt = layoutOf[i]!;
        const textBounds = textAt >= 0 ? layout.bounds[textAt] : undefined;
        if (textBounds && textBounds.length >= 4) {
          textBoxes.set(backendIds[i]!, [textBounds[0]!, textBounds[1]!, textBounds[2]!, textBounds[3]!]);
        }
        continue;
      }
      // Only elements are ever given refs or boxes; the rest is skipped.
      if (types[i] !== 1) continue;
      const at = layoutOf[i]!;
      const bounds = at >= 0 ? layout.bounds[at] : undefined;
      const fact: NodeFacts = {
        clickable: clickable[i] === 1,
        ownPointer: pointer,
        dragAndDrop: dragAndDrop(i),
        nodeName: text(names[i]),
      };
      if (bounds && bounds.length >= 4) fact.box = [bounds[0]!, bounds[1]!, bounds[2]!, bounds[3]!];
      facts.set(backendIds[i]!, fact);
    }
    const childFrames = new Map<number, string>();
    const contentDocs = nodes.contentDocumentIndex;
    if (contentDocs) {
      for (let k = 0; k < contentDocs.index.length; k++) {
        const owner = contentDocs.index[k]!;
        const child = snapshot.documents[contentDocs.value[k]!];
        if (child) childFrames.set(backendIds[owner]!, text(child.frameId));
      }
    }
    // A snapshot has no node for a shadow root: every node of its tree is marked with its type.
    // The monitor is handed the nodes of closed trees (it watches each one's root: a nested root's
    // nodes cannot be told from its parent tree's), not pseudo-elements, which are no nodes of the page.
    const closedShadowRoots: number[] = [];
    const shadowTypes = nodes.shadowRootType;
    if (shadowTypes) {
      const pseudo = new Set(nodes.pseudoType?.index ?? []);
      for (let k = 0; k < shadowTypes.index.length; k++) {
        const i = shadowTypes.index[k]!;
        if (text(shadowTypes.value[k]) === 'closed' && !pseudo.has(i)) closedShadowRoots.push(backendIds[i]!);
      }
    }
    return {
      closedShadowRoots,
      frameId,
      documentBackendNodeId: backendIds[0] ?? 0,
      scrollX: document.scrollOffsetX ?? 0,
      scrollY: document.scrollOffsetY ?? 0,
      nodes: facts,
      textBoxes,
      childFrames,
    };
  });
}
