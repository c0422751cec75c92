// Where to click a node and whether a click there would land on it (CDP-NOTES §4): scroll it into
// view (which also forces layout, so quads are fresh), take the visible part of its content quads,
// hit-test that point (page coordinates) and accept only a hit the browser routes to the node: the
// node itself, a node inside it across shadow roots and slots, a pseudo-element of either, or its
// label (PROTOCOL.md §7 step 7). Out-of-process iframes are checked link by link up to the page.
// A control whose own point is refused is clicked on one of its labels, as a person would.
import type { FrameRecord } from '../browser/frame-tree.ts';
import type { IsolatedWorlds } from '../browser/isolated-worlds.ts';
import type { Tab } from '../browser/tab.ts';
import { isCdpError } from '../cdp/errors.ts';
import type { CdpSession } from '../cdp/session.ts';
import { describeHit } from '../browser/describe-node.ts';
import { blockerOf, describeInFrame, describeOriginating } from './hit.ts';
import { unbufferedInput } from './input.ts';
import { callPage, callPageRaw, PageObject } from '../browser/page-module.ts';
import { type NodeHandle, release, resolveNode } from './node-handle.ts';
import { ActionError, type Blocker, type HitDescription } from './outcome.ts';
import { intersect, ownerContentBox, quadBox, type Rect } from '../browser/geometry.ts';

export interface Point {
  /** The session to send input through (the target that hosts the node's frame). */
  session: CdpSession;
  /** Viewport CSS pixels of that target. */
  x: number;
  y: number;
  /** That target's scroll offset when the point was taken (for hit-testing it again). */
  scroll?: { pageX: number; pageY: number };
  /** The point is on a label of the node (which forwards the click), not on the node. */
  onLabel?: true;
}

export interface PointTarget {
  tab: Tab;
  frame: FrameRecord;
  handle: NodeHandle;
  /**
   * The observed document, in the node's world: in-page calls that give a verdict on the node
   * check in the same call that it is still connected to it (PROTOCOL.md §7, identity first).
   */
  document: NodeHandle;
  executionContextId: number;
  /** Our world's contexts, for naming what covers an out-of-process frame in its parent. */
  worlds: IsolatedWorlds;
}

/** The part of `a` inside `b`, when it is at least a whole pixel each way (a point to click in). */
function clickablePart(a: Rect, b: Rect): Rect | undefined {
  const part = intersect(a, b);
  return part && part.width >= 1 && part.height >= 1 ? part : undefined;
}

type Scroll = { pageX: number; pageY: number };

/**
 * The session's visible viewport (the layout viewport, or for an OOPIF its iframe's content box)
 * and its scroll offset, which hit-testing needs (getNodeForLocation takes page coordinates).
 */
async function viewportOf(tab: Tab, frame: FrameRecord): Promise<{ rect: Rect; scroll: Scroll }> {
  const [owner, metrics] = await Promise.all([
    frame.crossProcess ? ownerOf(tab, frame) : undefined,
    frame.session.send('Page.getLayoutMetrics'),
  ]);
  const scroll = { pageX: metrics.cssVisualViewport.pageX, pageY: metrics.cssVisualViewport.pageY };
  if (owner) return { rect: { x: 0, y: 0, width: owner.width, height: owner.height }, scroll };
  const { clientWidth, clientHeight } = metrics.cssLayoutViewport;
  return { rect: { x: 0, y: 0, width: clientWidth, height: clientHeight }, scroll };
}

/** The OOPIF's <iframe> content box, in its parent target's viewport coordinates. */
async function ownerOf(tab: Tab, frame: FrameRecord): Promise<(Rect & { owner: number; parent: FrameRecord }) | undefined> {
  const parent = frame.parentId ? tab.frames.get(frame.parentId) : undefined;
  if (!parent) return undefined;
  const { owner, box } = await ownerContentBox(parent.session, frame.id);
  return { ...box, owner, parent };
}

function visibleOf(
  [{ quads }, viewport]: [{ quads: number[][] }, { rect: Rect; scroll: Scroll }],
): { part: Rect | undefined; scroll: Scroll } {
  let best: Rect | undefined;
  for (const quad of quads) {
    const part = clickablePart(quadBox(quad), viewport.rect);
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

/** The node's labels as objects of its world (`label.control` is the node), in tree order. */
async function labelObjects(handle: NodeHandle): Promise<string[]> {
  const { result, exceptionDetails } = await callPageRaw(handle, 'labelsOf', [], {});
  if (exceptionDetails) throw new Error(`in-page check failed: ${exceptionDetails.exception?.description ?? exceptionDetails.text}`);
  if (!result.objectId) return [];
  try {
    const { result: items } = await handle.session.send('Runtime.getProperties', { objectId: result.objectId, ownProperties: true });
    return items.filter((item) => /^\d+$/.test(item.name) && item.value?.objectId).map((item) => item.value!.objectId!);
  } finally {
    handle.session.send('Runtime.releaseObject', { objectId: result.objectId }).catch(() => {});
  }
}

/**
 * The nodes a click on the target may be aimed at, best first: the target itself, then, for a
 * labelled control, each of its labels (a click on a label is forwarded to its control once): a
 * person clicks the label of a Bootstrap toggle button, whose input is clipped away under another
 * button, or of a switch whose input is 0x0. The labels are looked up only when the caller asks
 * for more than the target, so a target whose own point works costs nothing more.
 */
async function* aimCandidates(target: PointTarget): AsyncGenerator<{ objectId: string; label: boolean }> {
  yield { objectId: target.handle.objectId, label: false };
  const labels = await labelObjects(target.handle);
  try {
    for (const objectId of labels) yield { objectId, label: true };
  } finally {
    for (const objectId of labels) target.handle.session.send('Runtime.releaseObject', { objectId }).catch(() => {});
  }
}

/**
 * The centre of the largest visible part of `node` (the target or one of its labels, an object of
 * the target's world), after scrolling it into view. Throws not_visible.
 */
async function visibleCentre(target: PointTarget, node: { objectId: string; label: boolean }): Promise<Point> {
  const { session } = target.handle;
  const what = node.label ? "the element's label" : 'the element';
  const selector = node.label ? { objectId: node.objectId } : { backendNodeId: target.handle.backendNodeId };
  // One round trip: the renderer runs a session's commands in order, so the quads and the scroll
  // offset are read after the scroll (which also forces layout, so the quads are not stale).
  const scrolled = session.send('DOM.scrollIntoViewIfNeeded', selector);
  const geometry = Promise.all([session.send('DOM.getContentQuads', selector), viewportOf(target.tab, target.frame)]);
  geometry.catch(() => {});
  try {
    await scrolled;
  } catch (error) {
    throw new ActionError('not_visible', `${what} has no layout box (display:none or detached from rendering)`, {
      sideEffect: node.label,
      cause: error,
    });
  }
  let visible = visibleOf(await geometry);
  if (!visible.part) {
    // scrollIntoViewIfNeeded leaves some nodes (nested scrollers, under fixed bars) out of view.
    await callPage({ session, executionContextId: target.executionContextId, objectId: node.objectId }, 'scrollIntoCenter', []);
    visible = visibleOf(await Promise.all([session.send('DOM.getContentQuads', selector), viewportOf(target.tab, target.frame)]));
  }
  const part = visible.part;
  if (!part) throw new ActionError('not_visible', `no part of ${what} is inside the viewport`, { sideEffect: true });
  return {
    session,
    x: part.x + part.width / 2,
    y: part.y + part.height / 2,
    scroll: visible.scroll,
    ...(node.label ? { onLabel: true as const } : {}),
  };
}

/**
 * A point where a click reaches the node, after scrolling it (or the label aimed at) into view:
 * the first of aimCandidates whose visible centre passes the hit rule. Otherwise throws what was
 * wrong with the target's own point (not_visible or click_intercepted, with what is on top), or,
 * when the target had no point at all, what covers a label of it, which is what stands in the way.
 */
export async function clickablePoint(target: PointTarget): Promise<Point> {
  const refused: ActionError[] = [];
  for await (const candidate of aimCandidates(target)) {
    try {
      const point = await visibleCentre(target, candidate);
      await assertHits(target, point);
      await assertFrameChainVisible(target, point.x, point.y);
      return point;
    } catch (error) {
      if (!(error instanceof ActionError) || (error.type !== 'not_visible' && error.type !== 'click_intercepted')) throw error;
      refused.push(error);
    }
  }
  const first = refused.find((error) => error.type === 'click_intercepted') ?? refused[0]!;
  // A label tried after it was scrolled into view: something had begun after all.
  if (refused.length === 1 || first.sideEffect) throw first;
  throw new ActionError(first.type, first.message, { sideEffect: true, hit: first.hit, cause: first });
}

/**
 * Moves the mouse to the node's point and confirms the point still hits it: hovering can change
 * the layout (a hover menu closing, say), so a point taken before the move may now be elsewhere.
 * One recomputation is allowed; then the point is returned for press/release.
 */
export async function pointAfterMove(
  target: PointTarget,
  move: (point: Point) => Promise<'acknowledged' | 'dialog'>,
): Promise<Point | 'dialog'> {
  // Under way while the point is found; the move waits for it.
  void unbufferedInput(target.handle.session);
  let point = await clickablePoint(target);
  for (let attempt = 0;; attempt++) {
    if ((await move(point)) === 'dialog') return 'dialog';
    try {
      await assertHits(target, point);
      return point;
    } catch (error) {
      if (attempt >= 1 || (error instanceof ActionError && error.type === 'node_detached')) throw error;
      point = await clickablePoint(target);
    }
  }
}

async function assertHits(target: PointTarget, point: Point): Promise<void> {
  const hit = await hitAt(point.session, point.x, point.y, point.scroll);
  if (hit === undefined) {
    throw new ActionError('not_visible', `nothing can be hit at the element's${point.onLabel ? " label's" : ''} visible point`, {
      sideEffect: true,
    });
  }
  if (hit === target.handle.backendNodeId) return;
  const hitHandle = await resolveNode(point.session, hit, target.executionContextId).catch(() => undefined);
  let description: HitDescription | undefined;
  let blocker: Blocker | undefined;
  try {
    const reach = hitHandle
      ? await callPage(target.handle, 'clickReaches', [new PageObject(hitHandle.objectId), new PageObject(target.document.objectId)])
      : 'covered';
    if (reach === 'target' || reach === 'label') return;
    if (reach === 'detached') {
      throw new ActionError('node_detached', 'the element is no longer in the observed document: the page removed or replaced it', {
        sideEffect: true,
      });
    }
    if (reach === 'covered_by_pseudo') description = await describeOriginating(hitHandle!).catch(() => undefined);
    if (hitHandle) blocker = await blockerOf(hitHandle, target.frame).catch(() => undefined);
  } finally {
    if (hitHandle) release(hitHandle);
  }
  description ??= (await describeHit(point.session, { backendNodeId: hit })).hit;
  // The blocker's nearest named container says what is in the way better than the hit element.
  if (blocker?.blocker.name) description = { role: blocker.blocker.role, name: blocker.blocker.name, tag: blocker.blocker.tag };
  throw new ActionError(
    'click_intercepted',
    `another element is on top of the target${point.onLabel ? "'s label" : ''} at (${Math.round(point.x)}, ${
      Math.round(point.y)
    }): ${description.tag}${description.name ? ` "${description.name}"` : ''}`,
    { sideEffect: true, hit: description, ...(blocker ? { blocker } : {}) },
  );
}

/** For a node in an OOPIF: each <iframe> on the way up must itself be hit at the translated point. */
async function assertFrameChainVisible({ tab, frame, worlds }: PointTarget, x: number, y: number): Promise<void> {
  let current = frame;
  let px = x;
  let py = y;
  while (current.crossProcess) {
    const owner = await ownerOf(tab, current);
    if (!owner) return;
    px += owner.x;
    py += owner.y;
    const { cssLayoutViewport } = await owner.parent.session.send('Page.getLayoutMetrics');
    if (px < 0 || py < 0 || px > cssLayoutViewport.clientWidth || py > cssLayoutViewport.clientHeight) {
      throw new ActionError('not_visible', "the element's frame is scrolled out of view", { sideEffect: true });
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
