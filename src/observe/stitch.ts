// Stitching and geometry: the frames' trees joined at their iframe nodes into one tree, where each
// box lies in the viewport, and the result rendered with refs. Works on what frame-reads.ts read;
// sends nothing.
import type { Cdp } from '../../protocol/generated/cdp.ts';
import type { FrameRecord } from '../browser/frame-tree.ts';
import type { Tab } from '../browser/tab.ts';
import type { CdpSession } from '../cdp/session.ts';
import { ServerError } from '../errors.ts';
import type { KnownSecret } from '../util/redact.ts';
import type { AxChild, AxViewNode } from './ax-tree.ts';
import type { PageRead } from './frame-reads.ts';
import type { Box, DocumentFacts } from './page-facts.ts';
import type { RefRegistry } from './refs.ts';
import { type MissingPart, render, type Rendered, type StitchedChild, type StitchedNode } from './render.ts';
import type { ObservedFrame } from './state-store.ts';

export interface RenderPageOptions {
  tab: Tab;
  root: FrameRecord;
  /** The frames the read covers, in the tree's order. */
  frames: FrameRecord[];
  read: PageRead;
  refs: RefRegistry;
  maxElements: number;
  secrets: readonly KnownSecret[];
  subtree?: { frameId: string; backendNodeId: number };
  /** Stitched copies of views kept between observations (TabReader.stitchedViews). */
  stitchedViews: WeakMap<AxViewNode, StitchedNode>;
}

export interface RenderedPage extends Rendered {
  frames: ObservedFrame[];
  title: string;
  /**
   * The facts each frame's boxes were taken from, by frame id: the same object for as long as the
   * read plan keeps that renderer's snapshot (nothing moved, scrolled or changed layout since).
   */
  layouts: ReadonlyMap<string, DocumentFacts>;
}

/** The rendered page, or (a prefix read) the part that must be read before it can be rendered. */
export type RenderPageOutcome = { rendered: RenderedPage } | { needs: MissingPart };

/** An observed frame's `reason` when its tree was read and its layout was not (docs/PROTOCOL.md §6 `frames`). */
export const LAYOUT_UNREAD =
  'its layout could not be read within the read budget: no element is reported visible or in the viewport, and elements clickable only through a listener or cursor: pointer have no ref; observe again';

export function renderPage(input: RenderPageOptions): RenderPageOutcome {
  const { tab, root, frames, read, stitchedViews } = input;
  const { frameReads, sessionSnapshots, ownerPairs } = read;

  const factsByFrame = new Map<string, DocumentFacts>();
  const ownerToFrame = new Map<string, string>(); // `${parentFrameId}:${backendNodeId}` → child frame id
  const layoutSize = new Map<CdpSession, Cdp.Page.GetLayoutMetricsResult>();
  for (const { session, documents, metrics } of sessionSnapshots) {
    if (metrics) layoutSize.set(session, metrics);
    for (const document of documents) {
      factsByFrame.set(document.frameId, document);
      for (const [owner, child] of document.childFrames) ownerToFrame.set(`${document.frameId}:${owner}`, child);
    }
  }
  for (const pair of ownerPairs) {
    if (!pair) continue;
    const child = tab.frames.get(pair[1]);
    if (child?.parentId) ownerToFrame.set(`${child.parentId}:${pair[0]}`, child.id);
  }

  const readByFrame = new Map(frameReads.map((read) => [read.frame.id, read]));
  const observedFrames: ObservedFrame[] = frameReads.map(({ frame, tree, reason }) => {
    // The observed frame's tree without its layout (the snapshot ran out of the read's time): the
    // answer says what that leaves unknown instead of passing it off as the page's.
    const why = reason ?? (tree && frame.id === root.id && !factsByFrame.has(frame.id) ? LAYOUT_UNREAD : undefined);
    return {
      frameId: frame.id,
      loaderId: frame.loaderId,
      documentBackendNodeId: tree?.backendNodeId,
      url: frame.url,
      status: tree ? 'observed' : 'unavailable',
      ...(why ? { reason: why } : {}),
    };
  });

  const stitch = (node: AxViewNode, frameId: string): StitchedNode => {
    const known = stitchedViews.get(node);
    if (known) return known;
    const stitched: StitchedNode = { ...node, frameId, children: [] };
    const childFrameId = node.role === 'Iframe' && node.backendNodeId !== undefined
      ? ownerToFrame.get(`${frameId}:${node.backendNodeId}`)
      : undefined;
    if (childFrameId !== undefined) {
      const read = readByFrame.get(childFrameId);
      if (read?.tree) {
        stitched.childFrame = { frameId: childFrameId, status: 'observed' };
        stitched.children = read.tree.children.map((child) => stitchChild(child, childFrameId));
      } else {
        stitched.childFrame = { frameId: childFrameId, status: 'unavailable', reason: read?.reason ?? 'not read' };
      }
      return stitched;
    }
    stitched.children = node.children.map((child) => stitchChild(child, frameId));
    // Without an iframe below, the result depends on nothing but the node: keep it for the next
    // observation (a patched tree shares the views of its unchanged parts).
    if (node.role !== 'Iframe' && node.children.every((child) => child.unread || stitchedViews.has(child))) {
      stitchedViews.set(node, stitched);
    }
    return stitched;
  };
  const stitchChild = (child: AxChild, frameId: string): StitchedChild => child.unread ? { unread: true, frameId } : stitch(child, frameId);

  const rootRead = readByFrame.get(root.id);
  let tree: StitchedNode = rootRead?.tree
    ? stitch(rootRead.tree, root.id)
    : { role: 'RootWebArea', name: '', backendNodeId: undefined, states: {}, frameId: root.id, children: [] };
  if (input.subtree) {
    const found = findNode(tree, input.subtree.frameId, input.subtree.backendNodeId);
    // A prefix read may not have reached it yet: the caller reads on.
    if (!found && readByFrame.get(input.subtree.frameId)?.ax?.partial) return { needs: { frameId: input.subtree.frameId } };
    if (!found) throw new ServerError('invalid_params', 'root_ref is no longer in the page', { details: { field: 'root_ref' } });
    tree = found;
  }

  const viewport = viewportIndex(tab, frames, factsByFrame, layoutSize);
  const outcome = render(tree, {
    maxElements: input.maxElements,
    secrets: input.secrets,
    facts: (frameId, backendNodeId) => factsByFrame.get(frameId)?.nodes.get(backendNodeId),
    textBox: (frameId, backendNodeId) => factsByFrame.get(frameId)?.textBoxes.get(backendNodeId),
    inViewport: viewport.inViewport,
    viewportBox: viewport.viewportBox,
    refFor: (frameId, backendNodeId) => input.refs.refFor(frameId, tab.frames.get(frameId)?.loaderId ?? '', backendNodeId),
  });
  if ('needs' in outcome) return outcome;
  return { rendered: { ...outcome.rendered, frames: observedFrames, title: rootRead?.tree?.name ?? '', layouts: factsByFrame } };
}

function findNode(node: StitchedNode, frameId: string, backendNodeId: number): StitchedNode | undefined {
  if (node.frameId === frameId && node.backendNodeId === backendNodeId) return node;
  for (const child of node.children) {
    if (child.unread) continue;
    const found = findNode(child, frameId, backendNodeId);
    if (found) return found;
  }
  return undefined;
}

/**
 * in_viewport for a box of a frame's document: it must meet that frame's viewport (its scroll
 * position and size; a child frame's size is its iframe element's), and the frame's iframe element
 * must itself be in its parent's viewport.
 */
function viewportIndex(
  tab: Tab,
  frames: FrameRecord[],
  facts: Map<string, DocumentFacts>,
  metrics: Map<CdpSession, Cdp.Page.GetLayoutMetricsResult>,
): { inViewport: (frameId: string, box: Box) => boolean; viewportBox: (frameId: string, box: Box) => Box | undefined } {
  const ownerBox = new Map<string, Box>(); // child frame id → its iframe element's box in the parent
  for (const document of facts.values()) {
    for (const [owner, child] of document.childFrames) {
      const box = document.nodes.get(owner)?.box;
      if (box) ownerBox.set(child, box);
    }
  }
  const meets = (a: Box, x: number, y: number, w: number, h: number) => a[0] < x + w && a[0] + a[2] > x && a[1] < y + h && a[1] + a[3] > y;
  const memo = new Map<string, boolean>();
  const frameVisible = (frameId: string): boolean => {
    const known = memo.get(frameId);
    if (known !== undefined) return known;
    const frame = tab.frames.get(frameId);
    let result = true;
    if (frame?.parentId && frames.some((f) => f.id === frame.parentId)) {
      const box = ownerBox.get(frameId);
      result = box ? inViewport(frame.parentId, box) : true;
    }
    memo.set(frameId, result);
    return result;
  };
  const inViewport = (frameId: string, box: Box): boolean => {
    const document = facts.get(frameId);
    const frame = tab.frames.get(frameId);
    if (!document || !frame) return false;
    const size = frame.parentId ? ownerBox.get(frameId) : undefined;
    const layout = metrics.get(frame.session)?.cssLayoutViewport;
    const width = size ? size[2] : (layout?.clientWidth ?? 0);
    const height = size ? size[3] : (layout?.clientHeight ?? 0);
    return meets(box, document.scrollX, document.scrollY, width, height) && frameVisible(frameId);
  };
  // Through each frame's scroll and its iframe element's place in the parent (the iframe's
  // border and padding are not counted: a child frame's boxes may sit a few px off).
  const viewportBox = (frameId: string, box: Box): Box | undefined => {
    const document = facts.get(frameId);
    const frame = tab.frames.get(frameId);
    if (!document || !frame) return undefined;
    const own: Box = [box[0] - document.scrollX, box[1] - document.scrollY, box[2], box[3]];
    if (!frame.parentId) return own;
    const owner = ownerBox.get(frameId);
    const placed = owner ? viewportBox(frame.parentId, owner) : undefined;
    return placed ? [own[0] + placed[0], own[1] + placed[1], own[2], own[3]] : undefined;
  };
  return { inViewport, viewportBox };
}
