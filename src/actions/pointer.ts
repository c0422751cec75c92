// Where to click a node and whether a click there would land on it (CDP-NOTES §4): scroll it into
// view (which also forces layout, so quads are fresh), take the visible part of its content quads,
// hit-test that point (page coordinates) and accept only a hit the browser routes to the node: the
// node itself, a node inside it across shadow roots and slots, a pseudo-element of either, or its
// label (PROTOCOL.md §7 step 7). Out-of-process iframes are checked link by link up to the page.
import type { FrameRecord } from '../browser/frame-tree.ts';
import type { IsolatedWorlds } from '../browser/isolated-worlds.ts';
import type { Tab } from '../browser/tab.ts';
import { isCdpError } from '../cdp/errors.ts';
import type { CdpSession } from '../cdp/session.ts';
import { clickReaches, describeHit, describeInFrame, describeOriginating, type Reach } from './hit.ts';
import { unbufferedInput } from './input.ts';
import { callOn, release, resolveNode, type NodeHandle } from './node-handle.ts';
import { ActionError, type HitDescription } from './outcome.ts';
import { quadBox, type Rect } from '../browser/geometry.ts';

export interface Point {
  /** The session to send input through (the target that hosts the node's frame). */
  session: CdpSession;
  /** Viewport CSS pixels of that target. */
  x: number;
  y: number;
  /** That target's scroll offset when the point was taken (for hit-testing it again). */
  scroll?: { pageX: number; pageY: number };
}

export interface PointTarget {
  tab: Tab;
  frame: FrameRecord;
  handle: NodeHandle;
  executionContextId: number;
  /** Our world's contexts, for naming what covers an out-of-process frame in its parent. */
  worlds: IsolatedWorlds;
}

function scrollIntoCenter(this: Element): void {
  this.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' });
}

function intersect(a: Rect, b: Rect): Rect | undefined {
  const x = Math.max(a.x, b.x);
  const y = Math.max(a.y, b.y);
  const right = Math.min(a.x + a.width, b.x + b.width);
  const bottom = Math.min(a.y + a.height, b.y + b.height);
  return right - x >= 1 && bottom - y >= 1 ? { x, y, width: right - x, height: bottom - y } : undefined;
}

type Scroll = { pageX: number; pageY: number };

/**
 * The session's visible viewport (the layout viewport, or for an OOPIF its iframe's content box)
 * and its scroll offset, which hit-testing needs (getNodeForLocation takes page coordinates).
 */
async function viewportOf(tab: Tab, frame: FrameRecord): Promise<{ rect: Rect; scroll: Scroll }> {
  const [owner, metrics] = await Promise.all([
    frame.crossProcess ? ownerContentBox(tab, frame) : undefined,
    frame.session.send('Page.getLayoutMetrics'),
  ]);
  const scroll = { pageX: metrics.cssVisualViewport.pageX, pageY: metrics.cssVisualViewport.pageY };
  if (owner) return { rect: { x: 0, y: 0, width: owner.width, height: owner.height }, scroll };
  const { clientWidth, clientHeight } = metrics.cssLayoutViewport;
  return { rect: { x: 0, y: 0, width: clientWidth, height: clientHeight }, scroll };
}

/** The OOPIF's <iframe> content box, in its parent target's viewport coordinates. */
async function ownerContentBox(tab: Tab, frame: FrameRecord): Promise<(Rect & { owner: number; parent: FrameRecord }) | undefined> {
  const parent = frame.parentId ? tab.frames.get(frame.parentId) : undefined;
  if (!parent) return undefined;
  const { backendNodeId } = await parent.session.send('DOM.getFrameOwner', { frameId: frame.id });
  const { model } = await parent.session.send('DOM.getBoxModel', { backendNodeId });
  return { ...quadBox(model.content), owner: backendNodeId, parent };
}

async function visiblePart(target: PointTarget): Promise<{ part: Rect | undefined; scroll: Scroll }> {
  const { session, backendNodeId } = target.handle;
  return visibleOf(await Promise.all([session.send('DOM.getContentQuads', { backendNodeId }), viewportOf(target.tab, target.frame)]));
}

function visibleOf([{ quads }, viewport]: [{ quads: number[][] }, { rect: Rect; scroll: Scroll }]): { part: Rect | undefined; scroll: Scroll } {
  let best: Rect | undefined;
  for (const quad of quads) {
    const part = intersect(quadBox(quad), viewport.rect);
    if (part && (!best || part.width * part.height > best.width * best.height)) best = part;
  }
  return { part: best, scroll: viewport.scroll };
}

/**
 * Hit-tests `point` (viewport coordinates of `session`); returns the hit node's backendNodeId.
 * `scroll` is the session's scroll offset when the caller already knows it.
 */
async function hitAt(session: CdpSession, x: number, y: number, scroll?: Scroll): Promise<number | undefined> {
  const { pageX, pageY } = scroll ?? (await session.send('Page.getLayoutMetrics')).cssVisualViewport;
  try {
    const hit = await session.send('DOM.getNodeForLocation', {
      // getNodeForLocation takes document coordinates: viewport + scroll (CDP-NOTES §4).
      x: Math.round(x + pageX),
      y: Math.round(y + pageY),
      includeUserAgentShadowDOM: true,
      ignorePointerEventsNone: false,
    });
    return hit.backendNodeId;
  } catch (error) {
    if (isCdpError(error) && error.kind === 'protocol') return undefined; // nothing at that point
    throw error;
  }
}

/**
 * A point where a click reaches the node, after scrolling it into view. Throws not_visible or
 * click_intercepted (with what is on top). Every step after the first scroll has a side effect.
 */
export async function clickablePoint(target: PointTarget): Promise<Point> {
  const { session, backendNodeId } = target.handle;
  // One round trip: the renderer runs a session's commands in order, so the quads and the scroll
  // offset are read after the scroll (which also forces layout, so the quads are not stale).
  const scrolled = session.send('DOM.scrollIntoViewIfNeeded', { backendNodeId });
  const geometry = Promise.all([session.send('DOM.getContentQuads', { backendNodeId }), viewportOf(target.tab, target.frame)]);
  geometry.catch(() => {});
  try {
    await scrolled;
  } catch (error) {
    throw new ActionError('not_visible', 'the element has no layout box (display:none or detached from rendering)', {
      sideEffect: false,
      cause: error,
    });
  }
  let visible = visibleOf(await geometry);
  if (!visible.part) {
    // scrollIntoViewIfNeeded leaves some nodes (nested scrollers, under fixed bars) out of view.
    await callOn(target.handle, scrollIntoCenter);
    visible = await visiblePart(target);
  }
  const part = visible.part;
  if (!part) throw new ActionError('not_visible', 'no part of the element is inside the viewport', { sideEffect: true });
  const point: Point = { session, x: part.x + part.width / 2, y: part.y + part.height / 2, scroll: visible.scroll };
  await assertHits(target, point);
  await assertFrameChainVisible(target, point.x, point.y);
  return point;
}

/**
 * Moves the mouse to the node's point and confirms the point still hits it: hovering can change
 * the layout (a hover menu closing, say), so a point taken before the move may now be elsewhere.
 * One recomputation is allowed; then the point is returned for press/release.
 */
export async function pointAfterMove(target: PointTarget, move: (point: Point) => Promise<'acknowledged' | 'dialog'>): Promise<Point | 'dialog'> {
  // Under way while the point is found; the move waits for it.
  void unbufferedInput(target.handle.session);
  let point = await clickablePoint(target);
  for (let attempt = 0; ; attempt++) {
    if ((await move(point)) === 'dialog') return 'dialog';
    try {
      await assertHits(target, point);
      return point;
    } catch (error) {
      if (attempt >= 1) throw error;
      point = await clickablePoint(target);
    }
  }
}

async function assertHits(target: PointTarget, point: Point): Promise<void> {
  const hit = await hitAt(point.session, point.x, point.y, point.scroll);
  if (hit === undefined) {
    throw new ActionError('not_visible', 'nothing can be hit at the element\'s visible point', { sideEffect: true });
  }
  if (hit === target.handle.backendNodeId) return;
  const hitHandle = await resolveNode(point.session, hit, target.executionContextId).catch(() => undefined);
  let description: HitDescription | undefined;
  try {
    const reach = hitHandle ? await callOn<Reach>(target.handle, clickReaches, [{ objectId: hitHandle.objectId }]) : 'covered';
    if (reach === 'target' || reach === 'label') return;
    if (reach === 'covered_by_pseudo') description = await describeOriginating(hitHandle!).catch(() => undefined);
  } finally {
    if (hitHandle) release(hitHandle);
  }
  description ??= (await describeHit(point.session, { backendNodeId: hit })).hit;
  throw new ActionError(
    'click_intercepted',
    `another element is on top of the target at (${Math.round(point.x)}, ${Math.round(point.y)}): ${description.tag}${description.name ? ` "${description.name}"` : ''}`,
    { sideEffect: true, hit: description },
  );
}

/** For a node in an OOPIF: each <iframe> on the way up must itself be hit at the translated point. */
async function assertFrameChainVisible({ tab, frame, worlds }: PointTarget, x: number, y: number): Promise<void> {
  let current = frame;
  let px = x;
  let py = y;
  while (current.crossProcess) {
    const owner = await ownerContentBox(tab, current);
    if (!owner) return;
    px += owner.x;
    py += owner.y;
    const { cssLayoutViewport } = await owner.parent.session.send('Page.getLayoutMetrics');
    if (px < 0 || py < 0 || px > cssLayoutViewport.clientWidth || py > cssLayoutViewport.clientHeight) {
      throw new ActionError('not_visible', 'the element\'s frame is scrolled out of view', { sideEffect: true });
    }
    const hit = await hitAt(owner.parent.session, px, py);
    if (hit !== owner.owner) {
      const description = hit === undefined ? { role: 'none', name: '', tag: '' } : await describeInFrame(worlds, owner.parent, hit);
      throw new ActionError('click_intercepted', `another element covers the element's frame: ${description.tag}`, {
        sideEffect: true,
        hit: description,
      });
    }
    current = owner.parent;
  }
}
