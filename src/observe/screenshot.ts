// Screenshots of a tab (PROTOCOL.md §10) with every password input masked (§11): in the page,
// in same-process and out-of-process frames, and inside open and closed shadow roots.
//
// How the masks are put on (CDP-NOTES §10, and the pixel checks in test/e2e/screenshot.test.ts):
// - password inputs are found with one DOMSnapshot per renderer session, which sees into closed
//   shadow roots (querySelectorAll does not);
// - light-DOM inputs get the inspector stylesheet of their document: the page cannot see it
//   (no mutation, no entry in document.styleSheets);
// - the stylesheet does not reach into shadow roots, so inputs there get the same declarations
//   inline, from an isolated world, and their style attribute is put back right after. The page
//   can observe that brief attribute change (a MutationObserver inside the shadow root would
//   see two records): masking is best-effort, as §11 says;
// - everything is undone in a `finally`, whatever happened to the capture.
import type { Cdp } from '../../protocol/generated/cdp.ts';
import type { PendingDialog } from '../browser/dialogs.ts';
import type { FrameRecord } from '../browser/frame-tree.ts';
import { callPage, callPageRaw } from '../browser/page-module.ts';
import type { Tab } from '../browser/tab.ts';
import { isCdpError } from '../cdp/errors.ts';
import { type CdpSession, type SendOptions, SessionSlot } from '../cdp/session.ts';
import { ServerError } from '../errors.ts';
import { quadBox, type Rect } from '../browser/geometry.ts';
import type { KnownSecret } from '../util/redact.ts';
import { readSecretEchoes } from './secret-masks.ts';

export interface ScreenshotOptions {
  /** The whole document (captured beyond the viewport), up to MAX_SIDE px on each side. */
  fullPage?: boolean;
  /** Only this element's box (scrolled into view first). */
  clip?: { frameId: string; backendNodeId: number };
  format?: 'png' | 'jpeg';
  /** JPEG quality 0–100; ignored for PNG (the RPC layer refuses that combination). */
  quality?: number;
  /**
   * Scale the capture down (in the browser, by the clip's scale) so that its long side is at most
   * `maxSide` px and its area at most `maxPixels`: what agent hosts accept as one image.
   */
  fit?: { maxSide?: number; maxPixels?: number };
  signal?: AbortSignal;
  /** Secrets whose fields and echoes are masked like password inputs (secret-masks.ts). */
  secrets?: readonly KnownSecret[];
}

export interface Screenshot {
  mime: 'image/png' | 'image/jpeg';
  /** base64 */
  data: string;
  /** The image's size in pixels (CSS px at deviceScaleFactor 1). */
  width: number;
  height: number;
  /** Image px per CSS px, when `fit` scaled the capture down (absent: 1). */
  scale?: number;
}

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

/** Chromium refuses (or cannot allocate) larger captures; full pages are cut here. */
export const MAX_SIDE = 16_384;

/**
 * What turns a password input into one opaque black box, checked by decoding screenshots: with
 * only `color`/`background`, the UA's inset border stays visible in two greys (84/168 on black);
 * `border-image` paints the border black whatever its style, without changing its width (so no
 * relayout, even for `border:none`); the inset shadow covers a background that beats ours
 * (inline `!important`, or the UA's own `!important` autofill colours); `-webkit-text-fill-color`
 * wins over `color` when a page sets it. The bullets are kept (no `-webkit-text-security:none`):
 * they are transparent anyway, and the value must never be drawn as plain text.
 */
export const MASK_DECLARATIONS: ReadonlyArray<readonly [property: string, value: string]> = [
  ['color', 'transparent'],
  ['-webkit-text-fill-color', 'transparent'],
  ['caret-color', 'transparent'],
  ['text-shadow', 'none'],
  ['background', '#000'],
  ['border-color', '#000'],
  ['border-image', 'linear-gradient(#000, #000) 1'],
  ['box-shadow', 'inset 0 0 0 100vmax #000'],
];

export const MASK_CSS = `input[type=password i]{${MASK_DECLARATIONS.map(([p, v]) => `${p}:${v}!important`).join(';')}}`;

/** One renderer call (snapshot, enable, resolve…); a full-page capture gets longer. */
const STEP_TIMEOUT_MS = 10_000;
const CAPTURE_TIMEOUT_MS = 30_000;
/** Undoing a mask is not cancellable; a renderer that does not answer in this time never will soon. */
const RESTORE_TIMEOUT_MS = 3_000;
/**
 * The name IsolatedWorlds uses (src/browser/isolated-worlds.ts). Chromium returns the same context
 * for the same name and frame (checked), so a frame keeps one world however many caches ask.
 */
const WORLD_NAME = '__pagewire__';
/** Where the isolated world keeps an input's style attribute while it is masked (invisible to the page's world). */
const SAVED_STYLE_KEY = '__pagewireSavedStyle';
/** Remote objects of one document's masked inputs, released together (one group per document). */
const OBJECT_GROUP = 'pagewire-screenshot-mask';
const CACHE_LIMIT = 256;

export function modalBlockedError(dialog: Pick<PendingDialog, 'type' | 'message'>): ServerError {
  return new ServerError('modal_blocked', `a ${dialog.type} dialog is open: handle it with dialog.handle first`, {
    details: { modal: { type: dialog.type, message: dialog.message } },
  });
}

export async function captureScreenshot(tab: Tab, options: ScreenshotOptions = {}): Promise<Screenshot> {
  // Renderer calls hang while a dialog is open (CDP-NOTES §7): refuse before sending any.
  const pending = tab.dialogs.pending;
  if (pending) throw modalBlockedError(pending);
  const format = options.format ?? 'png';
  const guard = new DialogGuard(tab);
  const step: SendOptions = { timeoutMs: STEP_TIMEOUT_MS, ...(options.signal ? { signal: options.signal } : {}) };
  const restores: Array<() => Promise<unknown>> = [];
  try {
    const [found, inputs] = await Promise.all([
      regionFor(tab, options, guard, step),
      findPasswordInputs(tab, guard, step, options.secrets ?? []),
    ]);
    const region = options.fit ? fitRegion(found, options.fit) : found;
    await Promise.all(inputs.map((doc) => maskDocument(tab, doc, guard, step, restores)));
    const { data } = await guard.run(
      tab.session.sendWith({ ...step, timeoutMs: CAPTURE_TIMEOUT_MS }, 'Page.captureScreenshot', {
        format,
        ...(format === 'jpeg' && options.quality !== undefined ? { quality: options.quality } : {}),
        ...(region.clip ? { clip: region.clip } : {}),
        ...(region.beyondViewport ? { captureBeyondViewport: true } : {}),
      }),
    );
    const size = imageSize(format, data) ?? region.size;
    const scale = region.clip && region.clip.scale < 1 ? region.clip.scale : undefined;
    return {
      mime: format === 'jpeg' ? 'image/jpeg' : 'image/png',
      data,
      width: size.width,
      height: size.height,
      ...(scale ? { scale } : {}),
    };
  } finally {
    guard.dispose();
    const undone = Promise.allSettled(restores.map((restore) => restore()));
    // With a dialog open the renderer answers nothing: the restores are queued on the wire and
    // run once the dialog is handled, so they are not waited for here.
    if (!tab.dialogs.pending) await undone;
  }
}

/**
 * Keeps every password input of the tab's light DOM masked while a screencast runs: the masking
 * stylesheet of each frame's document stays set (new documents get theirs through `apply`, called
 * again on each navigation), and screenshots taken meanwhile leave it set. Inputs inside shadow
 * roots are not masked in a screencast (their inline masks would have to stay on, visibly to the
 * page).
 */
export class PasswordMaskHold {
  readonly #tab: Tab;
  readonly #sessions = new Set<CdpSession>();
  #released = false;

  constructor(tab: Tab) {
    this.#tab = tab;
  }

  /** Masks the documents the tab has now. */
  async apply(): Promise<void> {
    const step: SendOptions = { timeoutMs: STEP_TIMEOUT_MS };
    const passThrough = { run: <T>(promise: Promise<T>) => promise };
    await Promise.all(
      this.#tab.frames.list().map(async (frame) => {
        if (this.#released) return;
        if (!this.#sessions.has(frame.session)) {
          this.#sessions.add(frame.session);
          stateOf(frame.session).held++;
        }
        await setMaskSheet({
          session: frame.session,
          frameId: frame.id,
          key: documentKey(this.#tab, frame.id),
          guard: passThrough,
          step,
          text: MASK_CSS,
        });
      }),
    );
  }

  /** Unmasks (best-effort: a document gone meanwhile has nothing to undo). */
  async release(): Promise<void> {
    if (this.#released) return;
    this.#released = true;
    const step: SendOptions = { timeoutMs: RESTORE_TIMEOUT_MS };
    const passThrough = { run: <T>(promise: Promise<T>) => promise };
    for (const session of this.#sessions) stateOf(session).held--;
    await Promise.allSettled(
      this.#tab.frames.list().map((frame) =>
        stateOf(frame.session).held > 0 ? undefined : setMaskSheet({
          session: frame.session,
          frameId: frame.id,
          key: documentKey(this.#tab, frame.id),
          guard: passThrough,
          step,
          text: '',
        })
      ),
    );
  }
}

// ---------------------------------------------------------------------------------------------
// Dialogs opening mid-way

/** Races renderer calls against a dialog opening: they would hang until it is handled. */
class DialogGuard {
  readonly #opened: { promise: Promise<PendingDialog>; dispose(): void };
  readonly #blocked: Promise<never>;

  constructor(tab: Tab) {
    this.#opened = tab.dialogs.whenOpened();
    this.#blocked = this.#opened.promise.then((dialog) => {
      throw modalBlockedError(dialog);
    });
    this.#blocked.catch(() => {});
  }

  run<T>(promise: Promise<T>): Promise<T> {
    promise.catch(() => {});
    return Promise.race([promise, this.#blocked]);
  }

  dispose(): void {
    this.#opened.dispose();
  }
}

// ---------------------------------------------------------------------------------------------
// What to capture

export interface Region {
  clip?: Cdp.Page.Viewport;
  beyondViewport: boolean;
  /** The expected image size, if the image header cannot be read. */
  size: { width: number; height: number };
  /** The viewport as a clip (a viewport capture has no clip unless it is scaled). */
  viewport?: Cdp.Page.Viewport;
}

async function regionFor(tab: Tab, options: ScreenshotOptions, guard: DialogGuard, step: SendOptions): Promise<Region> {
  if (options.clip) return elementRegion(tab, options.clip, guard, step);
  const metrics = await guard.run(tab.session.sendWith(step, 'Page.getLayoutMetrics'));
  if (options.fullPage) {
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
  guard: DialogGuard,
  step: SendOptions,
): Promise<Region> {
  const frame = tab.frames.get(target.frameId);
  if (!frame) throw new ElementClipError('frame_detached', `frame ${target.frameId} is gone`);
  let rect = await nodeBox(frame.session, target.backendNodeId, guard, step);
  for (let local = localRoot(tab, frame); local.crossProcess;) {
    const parent = local.parentId ? tab.frames.get(local.parentId) : undefined;
    if (!parent) throw new ElementClipError('frame_detached', `the parent of frame ${local.id} is gone`);
    const owner = await ownerContentBox(parent.session, local.id, guard, step);
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
async function nodeBox(session: CdpSession, backendNodeId: number, guard: DialogGuard, step: SendOptions): Promise<Rect> {
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

/** The <iframe> content box of an out-of-process frame, in its parent's local viewport. */
async function ownerContentBox(parent: CdpSession, frameId: string, guard: DialogGuard, step: SendOptions): Promise<Rect> {
  try {
    const { backendNodeId } = await guard.run(parent.sendWith(step, 'DOM.getFrameOwner', { frameId }));
    await guard.run(parent.sendWith(step, 'DOM.scrollIntoViewIfNeeded', { backendNodeId })).catch((error: unknown) => {
      if (!(isCdpError(error) && error.kind === 'protocol')) throw error;
    });
    const { model } = await guard.run(parent.sendWith(step, 'DOM.getBoxModel', { backendNodeId }));
    return quadBox(model.content);
  } catch (error) {
    if (isCdpError(error) && error.kind === 'protocol') {
      throw new ElementClipError('not_rendered', "the element's iframe has no layout box", { cause: error });
    }
    throw error;
  }
}

function union(a: Rect, b: Rect): Rect {
  const x = Math.min(a.x, b.x);
  const y = Math.min(a.y, b.y);
  return { x, y, width: Math.max(a.x + a.width, b.x + b.width) - x, height: Math.max(a.y + a.height, b.y + b.height) - y };
}

function intersect(a: Rect, b: Rect): Rect | undefined {
  const x = Math.max(a.x, b.x);
  const y = Math.max(a.y, b.y);
  const right = Math.min(a.x + a.width, b.x + b.width);
  const bottom = Math.min(a.y + a.height, b.y + b.height);
  return right - x > 0 && bottom - y > 0 ? { x, y, width: right - x, height: bottom - y } : undefined;
}

// ---------------------------------------------------------------------------------------------
// Finding password inputs

export interface DocumentPasswords {
  frameId: string;
  /** backendNodeIds of password inputs in the document's light DOM (the stylesheet reaches them). */
  light: number[];
  /** …and inside its shadow roots, open or closed (they need inline styles), and elements that show a secret. */
  shadow: number[];
}

/**
 * PURE: the password inputs of each document of one DOMSnapshot. The snapshot walks the flat tree
 * and marks every node inside an author shadow root with that root's type; slotted light-DOM
 * children stay unmarked, so the mark is exactly "the stylesheet does not reach it".
 */
export function readPasswordInputs(snapshot: Cdp.DOMSnapshot.CaptureSnapshotResult): DocumentPasswords[] {
  const strings = snapshot.strings;
  const text = (index: number | undefined) => (index === undefined || index < 0 ? '' : (strings[index] ?? ''));
  const out: DocumentPasswords[] = [];
  for (const document of snapshot.documents) {
    const nodes = document.nodes;
    const names = nodes.nodeName ?? [];
    const backendIds = nodes.backendNodeId ?? [];
    const attributes = nodes.attributes ?? [];
    const shadowType = new Map<number, string>();
    const rare = nodes.shadowRootType;
    if (rare) { for (let k = 0; k < rare.index.length; k++) shadowType.set(rare.index[k]!, text(rare.value[k])); }
    const found: DocumentPasswords = { frameId: text(document.frameId), light: [], shadow: [] };
    for (let i = 0; i < names.length; i++) {
      // nodeName is upper case in HTML documents and as written in XML ones.
      if (text(names[i]).toUpperCase() !== 'INPUT') continue;
      const list = attributes[i] ?? [];
      let password = false;
      for (let k = 0; k + 1 < list.length; k += 2) {
        // Same test as the selector `input[type=password i]`.
        if (text(list[k]).toLowerCase() === 'type' && text(list[k + 1]).toLowerCase() === 'password') password = true;
      }
      if (!password || backendIds[i] === undefined) continue;
      const root = shadowType.get(i);
      if (root === 'open' || root === 'closed') found.shadow.push(backendIds[i]!);
      else found.light.push(backendIds[i]!);
    }
    if (found.light.length > 0 || found.shadow.length > 0) out.push(found);
  }
  return out;
}

interface FoundPasswords extends DocumentPasswords {
  /** The session whose renderer hosts the document. */
  session: CdpSession;
}

/**
 * One snapshot per renderer session (the page's and each out-of-process frame's): one snapshot
 * covers every same-process document. A snapshot that fails fails the screenshot (an unmasked
 * image is worse than none), except for an iframe target that went away: it draws nothing now.
 */
async function findPasswordInputs(
  tab: Tab,
  guard: DialogGuard,
  step: SendOptions,
  secrets: readonly KnownSecret[],
): Promise<FoundPasswords[]> {
  const sessions = new Set<CdpSession>([tab.session]);
  for (const frame of tab.frames.list()) sessions.add(frame.session);
  const perSession = await Promise.all(
    [...sessions].map(async (session) => {
      try {
        const snapshot = await guard.run(session.sendWith(step, 'DOMSnapshot.captureSnapshot', { computedStyles: [] }));
        const docs = readPasswordInputs(snapshot);
        // Elements that show a secret get the inline mask (the stylesheet's selector cannot name them).
        for (const [frameId, nodes] of readSecretEchoes(snapshot, secrets)) {
          const doc = docs.find((d) => d.frameId === frameId);
          if (doc) doc.shadow.push(...nodes.filter((node) => !doc.shadow.includes(node) && !doc.light.includes(node)));
          else docs.push({ frameId, light: [], shadow: nodes });
        }
        return docs.map((doc) => ({ ...doc, session }));
      } catch (error) {
        if (session !== tab.session && isCdpError(error) && error.isTargetGone) return [];
        throw error;
      }
    }),
  );
  const seen = new Set<string>();
  return perSession.flat().filter((doc) => !seen.has(doc.frameId) && seen.add(doc.frameId));
}

// ---------------------------------------------------------------------------------------------
// Masking and unmasking

/**
 * What belongs to one CDP session's agents: the CSS agent's enablement, the inspector stylesheet
 * of each document, the isolated world of each document. Kept by the session (it goes with
 * it), so repeated screenshots reuse one sheet per document instead of adding one
 * each time. Keys are frame id + loader id: a new document gets a new sheet and a new world.
 */
interface SessionState {
  cssEnabled?: Promise<void>;
  /** Screencasts holding the masks on: a screenshot's restore then leaves the sheet masked. */
  held: number;
  readonly sheets: Map<string, Promise<string>>;
  readonly worlds: Map<string, Promise<number>>;
}

const AGENTS = new SessionSlot<SessionState>(() => ({ held: 0, sheets: new Map(), worlds: new Map() }));

function stateOf(session: CdpSession): SessionState {
  return session.slot(AGENTS);
}

/** A cached promise that is dropped when it fails, so the next call tries afresh. */
function cached<T>(map: Map<string, Promise<T>>, key: string, make: () => Promise<T>): Promise<T> {
  let value = map.get(key);
  if (!value) {
    value = make();
    value.catch(() => {
      if (map.get(key) === value) map.delete(key);
    });
    map.set(key, value);
    if (map.size > CACHE_LIMIT) map.delete(map.keys().next().value!);
  }
  return value;
}

function documentKey(tab: Tab, frameId: string): string {
  return `${frameId}\u0000${tab.frames.get(frameId)?.loaderId ?? ''}`;
}

async function maskDocument(
  tab: Tab,
  doc: FoundPasswords,
  guard: DialogGuard,
  step: SendOptions,
  restores: Array<() => Promise<unknown>>,
): Promise<void> {
  const key = documentKey(tab, doc.frameId);
  await Promise.all([
    doc.light.length > 0 ? maskWithStylesheet(doc, key, guard, step, restores) : undefined,
    doc.shadow.length > 0 ? maskInline(doc, key, guard, step, restores) : undefined,
  ]);
}

/**
 * Light DOM: the document's inspector stylesheet. A cached sheet id that the session no longer
 * knows (the CSS agent was disabled or the document replaced under the same loader) is dropped
 * and the sheet made again, once.
 */
async function maskWithStylesheet(
  doc: FoundPasswords,
  key: string,
  guard: DialogGuard,
  step: SendOptions,
  restores: Array<() => Promise<unknown>>,
): Promise<void> {
  const { session } = doc;
  const state = stateOf(session);
  const sheetId = await setMaskSheet({ session, frameId: doc.frameId, key, guard, step, text: MASK_CSS });
  restores.push(() =>
    session.sendWith({ timeoutMs: RESTORE_TIMEOUT_MS }, 'CSS.setStyleSheetText', {
      styleSheetId: sheetId,
      text: state.held > 0 ? MASK_CSS : '',
    })
  );
}

/** Sets the text of a document's inspector stylesheet (made once per document), and returns its id. */
async function setMaskSheet(init: {
  session: CdpSession;
  frameId: string;
  key: string;
  guard: Pick<DialogGuard, 'run'>;
  step: SendOptions;
  text: string;
}): Promise<string> {
  const { session, frameId, key, guard, step, text } = init;
  const state = stateOf(session);
  for (let attempt = 0;; attempt++) {
    // The CSS agent needs the DOM agent (without it: "DOM agent needs to be enabled first").
    // Both stay enabled for the session: CSS.enable walks the document's style sheets (13–18 ms
    // on the login fixture), too much to pay per screenshot. (Disabling would not lose the sheet:
    // re-enabled, createStyleSheet hands back the same one, text included; checked.)
    state.cssEnabled ??= session.sendWith(step, 'DOM.enable').then(() => session.sendWith(step, 'CSS.enable')).then(() => {});
    const enabling = state.cssEnabled;
    enabling.catch(() => {
      if (state.cssEnabled === enabling) delete state.cssEnabled;
    });
    await guard.run(enabling);
    // Without `force`, createStyleSheet returns the document's existing inspector sheet anyway;
    // the cache saves the round trip.
    const sheetId = await guard.run(
      cached(state.sheets, key, () => session.sendWith(step, 'CSS.createStyleSheet', { frameId }).then((r) => r.styleSheetId)),
    );
    try {
      await guard.run(session.sendWith(step, 'CSS.setStyleSheetText', { styleSheetId: sheetId, text }));
      return sheetId;
    } catch (error) {
      if (attempt > 0 || !(isCdpError(error) && error.kind === 'protocol')) throw error;
      state.sheets.delete(key);
      delete state.cssEnabled;
    }
  }
}

/**
 * Shadow DOM: the declarations set inline with `!important`, from an isolated world (page scripts
 * that patch CSSStyleDeclaration or setAttribute cannot interfere). The input's previous style
 * attribute is kept on the isolated world's wrapper, which the page cannot see, and written back
 * exactly (or removed if there was none). The restore is queued on the same session right after,
 * so it runs after the mask even if the mask's answer was lost; it does nothing if the mask never
 * ran. The page CAN observe the attribute changing and changing back (MutationObserver,
 * attributeChangedCallback): best-effort masking, PROTOCOL.md §11.
 */
async function maskInline(
  doc: FoundPasswords,
  key: string,
  guard: DialogGuard,
  step: SendOptions,
  restores: Array<() => Promise<unknown>>,
): Promise<void> {
  const { session } = doc;
  const state = stateOf(session);
  const objectGroup = `${OBJECT_GROUP}:${doc.frameId}`;
  for (let attempt = 0;; attempt++) {
    const contextId = await guard.run(
      cached(state.worlds, key, () =>
        session
          .sendWith(step, 'Page.createIsolatedWorld', { frameId: doc.frameId, worldName: WORLD_NAME, grantUniveralAccess: false })
          .then((r) => r.executionContextId)),
    );
    let objects: string[];
    try {
      objects = await Promise.all(
        doc.shadow.map(async (backendNodeId) => {
          const { object } = await guard.run(
            session.sendWith(step, 'DOM.resolveNode', { backendNodeId, executionContextId: contextId, objectGroup }),
          );
          if (!object.objectId) throw new Error(`password input ${backendNodeId} has no object`);
          return object.objectId;
        }),
      );
    } catch (error) {
      // A context that died without a new loader (document.open, a crash of the world): retry once.
      if (attempt > 0 || !(isCdpError(error) && error.kind === 'protocol')) throw error;
      state.worlds.delete(key);
      continue;
    }
    restores.push(async () => {
      const restoreOptions = { timeoutMs: RESTORE_TIMEOUT_MS };
      await Promise.allSettled(
        objects.map((objectId) =>
          callPage({ session, executionContextId: contextId, objectId }, 'restoreInPage', [SAVED_STYLE_KEY], restoreOptions)
        ),
      );
      await session.sendWith(restoreOptions, 'Runtime.releaseObjectGroup', { objectGroup });
    });
    await Promise.all(
      objects.map(async (objectId) => {
        const { exceptionDetails } = await guard.run(
          callPageRaw({ session, executionContextId: contextId, objectId }, 'maskInPage', [MASK_DECLARATIONS, SAVED_STYLE_KEY], {
            returnByValue: true,
          }, step),
        );
        if (exceptionDetails) throw new Error(`masking a password input failed: ${exceptionDetails.text}`);
      }),
    );
    return;
  }
}

// ---------------------------------------------------------------------------------------------
// Image size, from the image itself

/** Width and height from a PNG's IHDR or a JPEG's SOF marker; undefined if not found. */
export function imageSize(format: 'png' | 'jpeg', base64: string): { width: number; height: number } | undefined {
  // A JPEG's frame header follows its ICC profile and tables: a few KB in, well within 64 KB.
  const bytes = decodePrefix(base64, format === 'png' ? 24 : 65_536);
  if (format === 'png') {
    if (bytes.length < 24 || bytes[12] !== 0x49 || bytes[13] !== 0x48 || bytes[14] !== 0x44 || bytes[15] !== 0x52) return undefined;
    return { width: readU32(bytes, 16), height: readU32(bytes, 20) };
  }
  if (bytes[0] !== 0xff || bytes[1] !== 0xd8) return undefined;
  for (let i = 2; i + 9 <= bytes.length;) {
    if (bytes[i] !== 0xff) return undefined;
    const marker = bytes[i + 1]!;
    if (marker === 0xff) {
      i++; // fill byte
      continue;
    }
    // SOF0–SOF15, except DHT (C4), JPG (C8) and DAC (CC), which share the range.
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return { height: (bytes[i + 5]! << 8) | bytes[i + 6]!, width: (bytes[i + 7]! << 8) | bytes[i + 8]! };
    }
    i += 2 + ((bytes[i + 2]! << 8) | bytes[i + 3]!);
  }
  return undefined;
}

function decodePrefix(base64: string, bytes: number): Uint8Array {
  const chars = Math.min(base64.length - (base64.length % 4), Math.ceil(bytes / 3) * 4);
  let binary: string;
  try {
    binary = atob(base64.slice(0, chars));
  } catch {
    return new Uint8Array(0);
  }
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}

function readU32(bytes: Uint8Array, offset: number): number {
  return ((bytes[offset]! << 24) >>> 0) + (bytes[offset + 1]! << 16) + (bytes[offset + 2]! << 8) + bytes[offset + 3]!;
}
