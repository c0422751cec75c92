// Where the elements of refs are now, for an annotated screenshot (PROTOCOL.md §10): their border
// boxes in page coordinates (what a capture's clip is in), measured at capture time rather than
// taken from the observation, which the page may have scrolled or moved since. Nothing is
// scrolled: the boxes are those of the page as it will be captured.
import type { Cdp } from '../../protocol/generated/cdp.ts';
import type { FrameRecord } from '../browser/frame-tree.ts';
import { intersect, ownerContentBox, quadBox, type Rect, union } from '../browser/geometry.ts';
import type { Tab } from '../browser/tab.ts';
import { isCdpError } from '../cdp/errors.ts';
import type { SendOptions } from '../cdp/session.ts';
import type { CallGuard } from './dialog-guard.ts';

/** A ref's element as its state recorded it. */
export interface RefNode {
  ref: string;
  frameId: string;
  backendNodeId: number;
}

/**
 * Each ref's box in page coordinates, cut to the iframes it is shown through; a ref that has no
 * box now (its frame gone, its element gone, hidden or empty, or outside its iframe's visible
 * area) is absent.
 */
export async function measureRefs(
  tab: Tab,
  nodes: readonly RefNode[],
  guard: CallGuard,
  step: SendOptions,
): Promise<Map<string, Rect>> {
  const byFrame = new Map<string, RefNode[]>();
  for (const node of nodes) {
    const inFrame = byFrame.get(node.frameId);
    if (inFrame) inFrame.push(node);
    else byFrame.set(node.frameId, [node]);
  }
  // Where each frame is shown in the top viewport, asked once per frame of this capture.
  const windows = new Map<string, Promise<FrameWindow | undefined>>();
  const windowOf = (frame: FrameRecord): Promise<FrameWindow | undefined> => {
    let known = windows.get(frame.id);
    if (!known) {
      known = frameWindow(tab, frame, windowOf, guard, step);
      windows.set(frame.id, known);
    }
    return known;
  };
  const [metrics, ...measured] = await Promise.all([
    guard.run(tab.session.sendWith(step, 'Page.getLayoutMetrics')),
    ...[...byFrame].map(async ([frameId, inFrame]) => {
      const frame = tab.frames.get(frameId);
      if (!frame) return [];
      const [window, boxes] = await Promise.all([windowOf(frame), localBoxes(frame, inFrame, guard, step)]);
      if (!window) return [];
      return inFrame.flatMap((node, i): Array<[string, Rect]> => {
        const local = boxes[i];
        if (!local) return [];
        const shown = window.clip
          ? intersect({ ...local, x: local.x + window.dx, y: local.y + window.dy }, window.clip)
          : { ...local, x: local.x + window.dx, y: local.y + window.dy };
        return shown ? [[node.ref, shown]] : [];
      });
    }),
  ]);
  // Viewport coordinates to page coordinates: the scroll offset, as for an element clip (regions.ts).
  const { pageX, pageY } = metrics.cssVisualViewport;
  const boxes = new Map<string, Rect>();
  for (const [ref, box] of measured.flat()) boxes.set(ref, { ...box, x: box.x + pageX, y: box.y + pageY });
  return boxes;
}

/**
 * How a frame's local viewport maps into the top viewport: the offset of its quads (an
 * out-of-process frame's quads start at its own viewport) and the area it is visible in (its
 * iframe's content box, and those of the iframes around it). The main frame: no offset, no cut.
 */
interface FrameWindow {
  dx: number;
  dy: number;
  clip?: Rect;
}

async function frameWindow(
  tab: Tab,
  frame: FrameRecord,
  windowOf: (frame: FrameRecord) => Promise<FrameWindow | undefined>,
  guard: CallGuard,
  step: SendOptions,
): Promise<FrameWindow | undefined> {
  const parent = frame.parentId ? tab.frames.get(frame.parentId) : undefined;
  if (!frame.parentId) return { dx: 0, dy: 0 };
  if (!parent) return undefined;
  const [outer, owner] = await Promise.all([windowOf(parent), ownerBox(parent, frame.id, guard, step)]);
  if (!outer || !owner) return undefined;
  // The owner's box is in the parent's local viewport; a same-process frame's quads are already
  // in that viewport (CDP-NOTES §4), an out-of-process frame's start at the owner's content box.
  const dx = outer.dx + (frame.crossProcess ? owner.x : 0);
  const dy = outer.dy + (frame.crossProcess ? owner.y : 0);
  const inTop = { ...owner, x: owner.x + outer.dx, y: owner.y + outer.dy };
  const clip = outer.clip ? intersect(inTop, outer.clip) : inTop;
  return clip ? { dx, dy, clip } : undefined;
}

async function ownerBox(parent: FrameRecord, frameId: string, guard: CallGuard, step: SendOptions): Promise<Rect | undefined> {
  try {
    return (await guard.run(ownerContentBox(parent.session, frameId, step))).box;
  } catch (error) {
    // An <iframe> without layout (display:none), or gone: nothing in it is shown.
    if (isCdpError(error) && error.kind === 'protocol') return undefined;
    throw error;
  }
}

/** The union of each node's content quads in its frame's local viewport; undefined: no box now. */
async function localBoxes(
  frame: FrameRecord,
  nodes: readonly RefNode[],
  guard: CallGuard,
  step: SendOptions,
): Promise<Array<Rect | undefined>> {
  const { session } = frame;
  // getContentQuads alone can answer geometry from before the last change (CDP-NOTES §4);
  // getBoxModel forces layout first. Calls of one session run in the order sent, so the quads
  // asked right behind it are fresh.
  const layout = session.sendWith(step, 'DOM.getBoxModel', { backendNodeId: nodes[0]!.backendNodeId }).catch(() => undefined);
  const quads = nodes.map((node) =>
    guard.run(session.sendWith(step, 'DOM.getContentQuads', { backendNodeId: node.backendNodeId })).then(
      (answer): Cdp.DOM.Quad[] => answer.quads,
      (error: unknown): Cdp.DOM.Quad[] => {
        // A node that is gone or has no layout object: not drawn.
        if (isCdpError(error) && error.kind === 'protocol') return [];
        throw error;
      },
    )
  );
  const [, ...answers] = await Promise.all([guard.run(layout), ...quads]);
  return answers.map((found) => {
    const boxes = found.map(quadBox).filter((box) => box.width > 0 && box.height > 0);
    return boxes.length > 0 ? boxes.reduce(union) : undefined;
  });
}
