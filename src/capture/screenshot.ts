// Screenshots of a tab (PROTOCOL.md §10) with every password input and shown secret masked (§11,
// §13): in the page, in same-process and out-of-process frames, and inside open and closed shadow
// roots. One job per module: the dialog guard (dialog-guard.ts), what to capture across frames
// (regions.ts), what to mask and masking it (capture-masks.ts), and the image's own size
// (image-header.ts). Everything masked is undone in a `finally`, whatever happened to the capture.
import type { IsolatedWorlds } from '../browser/isolated-worlds.ts';
import type { Tab } from '../browser/tab.ts';
import type { SendOptions } from '../cdp/session.ts';
import type { KnownSecret } from '../util/redact.ts';
import { DialogGuard, modalBlockedError } from './dialog-guard.ts';
import { imageSize } from './image-header.ts';
import { CaptureMasks } from './capture-masks.ts';
import { SCREEN_MASK, STEP_TIMEOUT_MS } from './masks.ts';
import { fitRegion, regionFor } from './regions.ts';

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

/** The capture itself; a full-page capture gets longer than one renderer call. */
const CAPTURE_TIMEOUT_MS = 30_000;

export async function captureScreenshot(tab: Tab, worlds: IsolatedWorlds, options: ScreenshotOptions = {}): Promise<Screenshot> {
  // Renderer calls hang while a dialog is open (CDP-NOTES §7): refuse before sending any.
  const pending = tab.dialogs.pending;
  if (pending) throw modalBlockedError(pending);
  const format = options.format ?? 'png';
  const guard = new DialogGuard(tab);
  const step: SendOptions = { timeoutMs: STEP_TIMEOUT_MS, ...(options.signal ? { signal: options.signal } : {}) };
  const masks = new CaptureMasks({ tab, worlds, guard, step, look: SCREEN_MASK });
  try {
    const [found] = await Promise.all([regionFor(tab, options, guard, step), masks.apply(options.secrets ?? [])]);
    const region = options.fit ? fitRegion(found, options.fit) : found;
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
    await masks.remove();
  }
}
