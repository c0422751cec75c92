// Screenshots of a tab (PROTOCOL.md §10) with every password input and shown secret masked (§11,
// §13): in the page, in same-process and out-of-process frames, and inside open and closed shadow
// roots. One job per module: the dialog guard (dialog-guard.ts), what to capture across frames
// (regions.ts), what to mask and masking it (capture-masks.ts), the image's own size
// (image-header.ts), and for an annotated screenshot where refs are now (ref-boxes.ts) and their
// marks drawn on the image (annotate.ts). Everything masked is undone in a `finally`, whatever
// happened to the capture.
import type { Rect } from '../browser/geometry.ts';
import type { IsolatedWorlds } from '../browser/isolated-worlds.ts';
import type { Tab } from '../browser/tab.ts';
import type { SendOptions } from '../cdp/session.ts';
import type { KnownSecret } from '../util/redact.ts';
import { DialogGuard, modalBlockedError } from './dialog-guard.ts';
import { drawOnImage, placeMarks } from './annotate.ts';
import { imageSize } from './image-header.ts';
import { CaptureMasks } from './capture-masks.ts';
import { SCREEN_MASK, STEP_TIMEOUT_MS } from './masks.ts';
import { measureRefs, type RefNode } from './ref-boxes.ts';
import { fitRegion, type Region, regionFor } from './regions.ts';

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
  /** Draw these refs' boxes and labels onto the image, in this order (annotate.ts). */
  annotate?: readonly RefNode[];
  /** Measure these refs' boxes in the capture, without drawing them (a trace's target, PROTOCOL.md §16). */
  measure?: readonly RefNode[];
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
  /** With `annotate`: the refs not drawn (no box now, or outside the image), in the order asked. */
  notDrawn?: string[];
  /** With `measure`: each measured ref's box in CSS px of the captured area (refs without a box are absent). */
  boxes?: Record<string, Rect>;
}

/** The capture itself; a full-page capture gets longer than one renderer call. */
const CAPTURE_TIMEOUT_MS = 30_000;

export async function captureScreenshot(tab: Tab, worlds: IsolatedWorlds, options: ScreenshotOptions = {}): Promise<Screenshot> {
  // Renderer calls hang while a dialog is open (CDP-NOTES §7): refuse before sending any.
  const pending = tab.dialogs.pending;
  if (pending) throw modalBlockedError(pending);
  const format = options.format ?? 'png';
  const mime: Screenshot['mime'] = format === 'jpeg' ? 'image/jpeg' : 'image/png';
  const guard = new DialogGuard(tab);
  const step: SendOptions = { timeoutMs: STEP_TIMEOUT_MS, ...(options.signal ? { signal: options.signal } : {}) };
  const { data, region, boxes } = await captureMasked(tab, worlds, options, guard, step);
  const size = imageSize(format, data) ?? region.size;
  const scale = region.clip && region.clip.scale < 1 ? region.clip.scale : undefined;
  const shot: Screenshot = { mime, data, width: size.width, height: size.height, ...(scale ? { scale } : {}) };
  if (options.measure && boxes) shot.boxes = inCapturedArea(boxes, capturedArea(region));
  if (!options.annotate || !boxes) return shot;
  // Drawn once the masks are off again: the image holds them, the page need not any longer.
  const placed = placeMarks(options.annotate.map((node) => node.ref), boxes, capturedArea(region), size);
  const image = { mime, data, ...(options.quality !== undefined ? { quality: options.quality } : {}) };
  const drawn = await drawOnImage(tab, worlds, image, placed, guard, { ...step, timeoutMs: CAPTURE_TIMEOUT_MS });
  return { ...shot, data: drawn, notDrawn: placed.notDrawn };
}

/** The capture with its masks on (undone in a `finally`), the region it covers, and the refs' boxes to annotate. */
async function captureMasked(
  tab: Tab,
  worlds: IsolatedWorlds,
  options: ScreenshotOptions,
  guard: DialogGuard,
  step: SendOptions,
): Promise<{ data: string; region: Region; boxes: Map<string, Rect> | undefined }> {
  const format = options.format ?? 'png';
  const masks = new CaptureMasks({ tab, worlds, guard, step, look: SCREEN_MASK });
  try {
    const [found] = await Promise.all([regionFor(tab, options, guard, step), masks.apply(options.secrets ?? [])]);
    const region = options.fit ? fitRegion(found, options.fit) : found;
    // Measured after the region, which may have scrolled an element into view.
    const refs = options.annotate ?? options.measure;
    const boxes = refs ? await measureRefs(tab, refs, guard, step) : undefined;
    const { data } = await guard.run(
      tab.session.sendWith({ ...step, timeoutMs: CAPTURE_TIMEOUT_MS }, 'Page.captureScreenshot', {
        format,
        ...(format === 'jpeg' && options.quality !== undefined ? { quality: options.quality } : {}),
        ...(region.clip ? { clip: region.clip } : {}),
        ...(region.beyondViewport ? { captureBeyondViewport: true } : {}),
      }),
    );
    return { data, region, boxes };
  } finally {
    await masks.remove();
  }
}

/** The captured area in page coordinates: the clip, or the viewport (a capture without clip). */
function capturedArea(region: Region): Rect {
  const area = region.clip ?? region.viewport;
  return area ?? { x: 0, y: 0, width: region.size.width, height: region.size.height };
}

/** PURE: boxes in page coordinates, moved to the captured area's own (its top-left is 0, 0). */
function inCapturedArea(boxes: Map<string, Rect>, area: Rect): Record<string, Rect> {
  return Object.fromEntries(
    [...boxes].map(([ref, box]) => [ref, { x: box.x - area.x, y: box.y - area.y, width: box.width, height: box.height }]),
  );
}
