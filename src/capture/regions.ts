// What a screenshot captures (PROTOCOL.md §10): the viewport, the whole page, or one element's
// box, in page coordinates, across out-of-process frames; and that region scaled down to fit.
import type { Cdp } from '../../protocol/generated/cdp.ts';
import type { FrameRecord } from '../browser/frame-tree.ts';
import { intersect, ownerContentBox, quadBox, type Rect, union } from '../browser/geometry.ts';
import type { Tab } from '../browser/tab.ts';
import { isCdpError } from '../cdp/errors.ts';
import type { CdpSession, SendOptions } from '../cdp/session.ts';
import type { CallGuard } from './dialog-guard.ts';

/** Chromium refuses (or cannot allocate) larger captures; full pages are cut here. */
export const MAX_SIDE = 16_384;

/** Why an element clip could not be computed; the RPC layer words it for the ref. */
export type ElementClipFailure = 'frame_detached' | 'node_detached' | 'not_rendered';

export class ElementClipError extends Error {
  readonly reason: ElementClipFailure;
  constructor(reason: ElementClipFailure, message: string, options: { cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ElementClipError';
    this.reason = reason;
  }
}

export interface Region {
  clip?: Cdp.Page.Viewport;
  beyondViewport: boolean;
  /** The expected image size, if the image header cannot be read. */
  size: { width: number; height: number };
  /** The viewport as a clip (a viewport capture has no clip unless it is scaled). */
  viewport?: Cdp.Page.Viewport;
}

/** What to capture: the element `clip` names, the whole document, or the viewport. */
export interface RegionRequest {
  fullPage?: boolean;
  clip?: { frameId: string; backendNodeId: number };
}

export async function regionFor(tab: Tab, request: RegionRequest, guard: CallGuard, step: SendOptions): Promise<Region> {
  if (request.clip) return elementRegion(tab, request.clip, guard, step);
  const metrics = await guard.run(tab.session.sendWith(step, 'Page.getLayoutMetrics'));
  if (request.fullPage) {
    const content = metrics.cssContentSize;
    const clip = {
      x: content.x,
      y: content.y,
      width: Math.min(Math.ceil(content.width), MAX_SIDE),
      height: Math.min(Math.ceil(content.height), MAX_SIDE),
      scale: 1,
    };
    return { clip, beyondViewport: true, size: { width: clip.width, height: clip.height } };
  }
  const viewport = metrics.cssLayoutViewport;
  const { pageX, pageY } = metrics.cssVisualViewport;
  // The viewport in page coordinates, for a clip that only `fit` turns on (a scale below 1).
  const visible = { x: pageX, y: pageY, width: viewport.clientWidth, height: viewport.clientHeight, scale: 1 };
  return { beyondViewport: false, size: { width: viewport.clientWidth, height: viewport.clientHeight }, viewport: visible };
}

/** PURE: the region scaled down to fit `fit` (never up); unchanged when it fits already. */
export function fitRegion(region: Region, fit: { maxSide?: number; maxPixels?: number }): Region {
  const { width, height } = region.size;
  if (width < 1 || height < 1) return region;
  const bySide = fit.maxSide !== undefined ? fit.maxSide / Math.max(width, height) : 1;
  const byArea = fit.maxPixels !== undefined ? Math.sqrt(fit.maxPixels / (width * height)) : 1;
  // Three decimals, rounded down: Chromium rounds the image size, which must stay within the limits.
  const scale = Math.floor(Math.min(1, bySide, byArea) * 1000) / 1000;
  if (scale >= 1) return region;
  const base = region.clip ?? region.viewport;
  if (!base) return region;
  return {
    ...region,
    clip: { ...base, scale },
    size: { width: Math.floor(width * scale), height: Math.floor(height * scale) },
  };
}

/**
 * The element's border box in page coordinates (what Page.captureScreenshot's clip takes: viewport
 * + scroll, checked by pixels). Quads from a same-process frame are already in the top viewport;
 * an element in an out-of-process iframe is offset by its iframe's content box in the parent, one
 * process boundary at a time, and cut to that box (what lies outside an iframe is not drawn).
 */
async function elementRegion(
  tab: Tab,
  target: { frameId: string; backendNodeId: number },
  guard: CallGuard,
  step: SendOptions,
): Promise<Region> {
  const frame = tab.frames.get(target.frameId);
  if (!frame) throw new ElementClipError('frame_detached', `frame ${target.frameId} is gone`);
  let rect = await nodeBox(frame.session, target.backendNodeId, guard, step);
  for (let local = localRoot(tab, frame); local.crossProcess;) {
    const parent = local.parentId ? tab.frames.get(local.parentId) : undefined;
    if (!parent) throw new ElementClipError('frame_detached', `the parent of frame ${local.id} is gone`);
    const owner = await ownerBoxIn(parent.session, local.id, guard, step);
    const inParent = intersect({ ...rect, x: rect.x + owner.x, y: rect.y + owner.y }, owner);
    if (!inParent) throw new ElementClipError('not_rendered', "the element lies outside its iframe's visible area");
    rect = inParent;
    local = localRoot(tab, parent);
  }
  const metrics = await guard.run(tab.session.sendWith(step, 'Page.getLayoutMetrics'));
  const { pageX, pageY, clientWidth, clientHeight } = metrics.cssVisualViewport;
  const inViewport = rect.x >= 0 && rect.y >= 0 && rect.x + rect.width <= clientWidth && rect.y + rect.height <= clientHeight;
  // Whole pixels, rounded outwards, within the document and the size Chromium can capture.
  const content = metrics.cssContentSize;
  const left = Math.max(Math.floor(rect.x + pageX), Math.floor(content.x));
  const top = Math.max(Math.floor(rect.y + pageY), Math.floor(content.y));
  const right = Math.min(Math.ceil(rect.x + rect.width + pageX), left + MAX_SIDE);
  const bottom = Math.min(Math.ceil(rect.y + rect.height + pageY), top + MAX_SIDE);
  if (right - left < 1 || bottom - top < 1) throw new ElementClipError('not_rendered', 'the element has no visible area');
  const clip = { x: left, y: top, width: right - left, height: bottom - top, scale: 1 };
  // Beyond the viewport only when the element does not fit in it: that capture resizes the view
  // for a moment, which costs time and can reflow viewport-sized layouts.
  return { clip, beyondViewport: !inViewport, size: { width: clip.width, height: clip.height } };
}

/** Scrolls the node into view and returns the union of its quads in its local root's viewport. */
async function nodeBox(session: CdpSession, backendNodeId: number, guard: CallGuard, step: SendOptions): Promise<Rect> {
  // Fails for a node without layout (display:none) as for a gone node; getContentQuads tells them apart.
  await guard.run(session.sendWith(step, 'DOM.scrollIntoViewIfNeeded', { backendNodeId })).catch((error: unknown) => {
    if (!(isCdpError(error) && error.kind === 'protocol')) throw error;
  });
  let quads: Cdp.DOM.Quad[];
  try {
    // After scrollIntoViewIfNeeded, which forces layout: getContentQuads alone can be stale (CDP-NOTES §4).
    ({ quads } = await guard.run(session.sendWith(step, 'DOM.getContentQuads', { backendNodeId })));
  } catch (error) {
    if (isCdpError(error) && error.kind === 'protocol') {
      throw new ElementClipError('node_detached', 'the element no longer exists', { cause: error });
    }
    throw error;
  }
  const boxes = quads.map(quadBox).filter((box) => box.width > 0 && box.height > 0);
  if (boxes.length === 0) throw new ElementClipError('not_rendered', 'the element has no layout box (hidden or empty)');
  return boxes.reduce(union);
}

/** The frame whose document is the root of `frame`'s process-local tree (itself, an OOPIF, or the main frame). */
function localRoot(tab: Tab, frame: FrameRecord): FrameRecord {
  let current = frame;
  while (!current.crossProcess && current.parentId) {
    const parent = tab.frames.get(current.parentId);
    if (!parent) break;
    current = parent;
  }
  return current;
}

/** The <iframe> content box of an out-of-process frame, in its parent's local viewport (scrolled into view). */
async function ownerBoxIn(parent: CdpSession, frameId: string, guard: CallGuard, step: SendOptions): Promise<Rect> {
  try {
    const { box } = await guard.run(ownerContentBox(parent, frameId, { ...step, scrollIntoView: true }));
    return box;
  } catch (error) {
    if (isCdpError(error) && error.kind === 'protocol') {
      throw new ElementClipError('not_rendered', "the element's iframe has no layout box", { cause: error });
    }
    throw error;
  }
}
