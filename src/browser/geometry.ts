// Rectangles from CDP quads (four x,y corners, possibly rotated), and where an out-of-process
// frame sits in its parent: what hit-testing and element screenshots both measure.
import { isCdpError } from '../cdp/errors.ts';
import type { CdpSession, SendOptions } from '../cdp/session.ts';

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** The axis-aligned box around a quad. */
export function quadBox(quad: readonly number[]): Rect {
  const xs = [quad[0]!, quad[2]!, quad[4]!, quad[6]!];
  const ys = [quad[1]!, quad[3]!, quad[5]!, quad[7]!];
  const x = Math.min(...xs);
  const y = Math.min(...ys);
  return { x, y, width: Math.max(...xs) - x, height: Math.max(...ys) - y };
}

/** The smallest box around both. */
export function union(a: Rect, b: Rect): Rect {
  const x = Math.min(a.x, b.x);
  const y = Math.min(a.y, b.y);
  return { x, y, width: Math.max(a.x + a.width, b.x + b.width) - x, height: Math.max(a.y + a.height, b.y + b.height) - y };
}

/** The part the two share, or undefined when it has no area. */
export function intersect(a: Rect, b: Rect): Rect | undefined {
  const x = Math.max(a.x, b.x);
  const y = Math.max(a.y, b.y);
  const right = Math.min(a.x + a.width, b.x + b.width);
  const bottom = Math.min(a.y + a.height, b.y + b.height);
  return right - x > 0 && bottom - y > 0 ? { x, y, width: right - x, height: bottom - y } : undefined;
}

export interface OwnerBox {
  /** The <iframe> element's backendNodeId in the parent. */
  owner: number;
  /** Its content box, in the parent's local viewport. */
  box: Rect;
}

/**
 * Where an out-of-process frame's document is drawn in `parent` (the session of its parent
 * frame): its <iframe>'s content box. With `scrollIntoView`, the <iframe> is scrolled into view
 * first (a layout-less one cannot be scrolled; getBoxModel then says so).
 */
export async function ownerContentBox(
  parent: CdpSession,
  frameId: string,
  options: SendOptions & { scrollIntoView?: boolean } = {},
): Promise<OwnerBox> {
  const { scrollIntoView, ...send } = options;
  const { backendNodeId } = await parent.sendWith(send, 'DOM.getFrameOwner', { frameId });
  if (scrollIntoView) {
    await parent.sendWith(send, 'DOM.scrollIntoViewIfNeeded', { backendNodeId }).catch((error: unknown) => {
      if (!(isCdpError(error) && error.kind === 'protocol')) throw error;
    });
  }
  const { model } = await parent.sendWith(send, 'DOM.getBoxModel', { backendNodeId });
  return { owner: backendNodeId, box: quadBox(model.content) };
}
