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
  /** backendNodeId of an <iframe>/<frame> element → the frame id of its same-process document. */
  childFrames: Map<number, string>;
  /** Closed shadow roots (backendNodeIds): page scripts cannot reach them, CDP can. */
  closedShadowRoots: number[];
}

/** The computed style properties the snapshot must be asked for, in this order. */
export const SNAPSHOT_STYLES = ['cursor'];

export function readSnapshot(snapshot: Cdp.DOMSnapshot.CaptureSnapshotResult): DocumentFacts[] {
  const strings = snapshot.strings;
  const text = (index: number | undefined) => (index === undefined || index < 0 ? '' : (strings[index] ?? ''));
  return snapshot.documents.map((document) => {
    const nodes = document.nodes;
    const backendIds = nodes.backendNodeId ?? [];
    const parents = nodes.parentIndex ?? [];
    const names = nodes.nodeName ?? [];
    const clickable = new Set(nodes.isClickable?.index ?? []);
    const cursorOf = new Map<number, string>();
    const boxOf = new Map<number, Box>();
    const layout = document.layout;
    for (let i = 0; i < layout.nodeIndex.length; i++) {
      const nodeIndex = layout.nodeIndex[i]!;
      const bounds = layout.bounds[i];
      // A node can own several layout objects (e.g. text fragments); the first box is its own.
      if (bounds && bounds.length >= 4 && !boxOf.has(nodeIndex)) {
        boxOf.set(nodeIndex, [bounds[0]!, bounds[1]!, bounds[2]!, bounds[3]!]);
      }
      const style = layout.styles[i];
      if (style && style.length > 0 && !cursorOf.has(nodeIndex)) cursorOf.set(nodeIndex, text(style[0]));
    }
    const attributes = nodes.attributes ?? [];
    const dragAndDrop = (i: number): boolean => {
      const list = attributes[i];
      if (!list) return false;
      for (let k = 0; k + 1 < list.length; k += 2) {
        const name = text(list[k]);
        if ((name === 'draggable' && text(list[k + 1]) === 'true') || name === 'ondrop' || name === 'ondragover') return true;
      }
      return false;
    };
    const facts = new Map<number, NodeFacts>();
    for (let i = 0; i < backendIds.length; i++) {
      const pointer = cursorOf.get(i) === 'pointer';
      const parent = parents[i] ?? -1;
      const box = boxOf.get(i);
      facts.set(backendIds[i]!, {
        ...(box ? { box } : {}),
        clickable: clickable.has(i),
        ownPointer: pointer && cursorOf.get(parent) !== 'pointer',
        dragAndDrop: dragAndDrop(i),
        nodeName: text(names[i]),
      });
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
    const closedShadowRoots: number[] = [];
    const shadowTypes = nodes.shadowRootType;
    if (shadowTypes) {
      for (let k = 0; k < shadowTypes.index.length; k++) {
        if (text(shadowTypes.value[k]) === 'closed') closedShadowRoots.push(backendIds[shadowTypes.index[k]!]!);
      }
    }
    return {
      closedShadowRoots,
      frameId: text(document.frameId),
      documentBackendNodeId: backendIds[0] ?? 0,
      scrollX: document.scrollOffsetX ?? 0,
      scrollY: document.scrollOffsetY ?? 0,
      nodes: facts,
      childFrames,
    };
  });
}
