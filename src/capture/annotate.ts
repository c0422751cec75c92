// Annotated screenshots (PROTOCOL.md §10): the box and label of each ref drawn onto the captured
// image, so that a vision model and the tree name the same elements. Boxes come in page
// coordinates (ref-boxes.ts) and are mapped to image px through the captured area and the image's
// own size, which covers the device pixel ratio and a scaled-down clip alike. The drawing is done
// on the image, after the capture (masks included), by the browser's own codecs in our isolated
// world (page/annotate.ts), never in the page's DOM: see docs/architecture.md, "Annotated
// screenshots".
import type { IsolatedWorlds } from '../browser/isolated-worlds.ts';
import type { Rect } from '../browser/geometry.ts';
import { callPage, type Mark, type MarkStyle } from '../browser/page-module.ts';
import type { Tab } from '../browser/tab.ts';
import type { SendOptions } from '../cdp/session.ts';
import type { CallGuard } from './dialog-guard.ts';

/**
 * Distinct colours that rarely occur on pages in large areas; a ref keeps its colour (by its
 * number) from one screenshot to the next.
 */
export const MARK_PALETTE: readonly string[] = [
  '#e6194b',
  '#3cb44b',
  '#4363d8',
  '#f58231',
  '#911eb4',
  '#f032e6',
  '#008080',
  '#9a6324',
  '#000075',
  '#808000',
];

/** Outline, font and padding in CSS px: they grow with the image's px per CSS px (a device pixel ratio)… */
const MARK_CSS_PX: MarkStyle = { line: 2, font: 12, pad: 2 };
/** …and shrink with a scaled-down image, down to this (image px): a label must stay readable. */
const MARK_MIN_PX: MarkStyle = { line: 2, font: 10, pad: 2 };

/** PURE: the sizes of the marks in an image of `ratio` image px per CSS px. */
export function markStyle(ratio: number): MarkStyle {
  const size = (key: keyof MarkStyle) => Math.max(MARK_MIN_PX[key], Math.round(MARK_CSS_PX[key] * ratio));
  return { line: size('line'), font: size('font'), pad: size('pad') };
}

/** Chromium's own default for JPEG screenshots, kept when the image is encoded again. */
const DEFAULT_JPEG_QUALITY = 80;

/** The colour of a ref's box and label, by its number. */
export function markColour(ref: string): string {
  const n = Number(ref.slice(1));
  return MARK_PALETTE[(Number.isFinite(n) ? n : 0) % MARK_PALETTE.length]!;
}

/** Black or white, whichever contrasts more with `colour` (#rrggbb), by WCAG relative luminance. */
export function inkFor(colour: string): string {
  const channel = (i: number) => {
    const c = parseInt(colour.slice(1 + 2 * i, 3 + 2 * i), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  const luminance = 0.2126 * channel(0) + 0.7152 * channel(1) + 0.0722 * channel(2);
  // WCAG contrast ratios: with white, and with black.
  return 1.05 / (luminance + 0.05) >= (luminance + 0.05) / 0.05 ? '#ffffff' : '#000000';
}

/**
 * PURE: the marks to draw, in image px (whole pixels, cut to the image), for refs in `order`
 * whose boxes are known, and their sizes; the others, and those outside the captured `area`, are
 * not drawn.
 * `area` is the captured region in page coordinates; `image` the image's size in px.
 */
export function placeMarks(
  order: readonly string[],
  boxes: ReadonlyMap<string, Rect>,
  area: Rect,
  image: { width: number; height: number },
): { marks: Mark[]; notDrawn: string[]; style: MarkStyle } {
  const sx = image.width / area.width;
  const sy = image.height / area.height;
  const marks: Mark[] = [];
  const notDrawn: string[] = [];
  for (const ref of order) {
    const box = boxes.get(ref);
    const left = box ? Math.max(0, Math.floor((box.x - area.x) * sx)) : 0;
    const top = box ? Math.max(0, Math.floor((box.y - area.y) * sy)) : 0;
    const right = box ? Math.min(image.width, Math.ceil((box.x + box.width - area.x) * sx)) : 0;
    const bottom = box ? Math.min(image.height, Math.ceil((box.y + box.height - area.y) * sy)) : 0;
    if (right - left < 1 || bottom - top < 1) {
      notDrawn.push(ref);
      continue;
    }
    const colour = markColour(ref);
    marks.push({ label: ref, x: left, y: top, width: right - left, height: bottom - top, colour, ink: inkFor(colour) });
  }
  return { marks, notDrawn, style: markStyle(sx) };
}

/** The image with `marks` drawn, encoded again as `mime` (base64), in the isolated world of the tab's main frame. */
export async function drawOnImage(
  tab: Tab,
  worlds: IsolatedWorlds,
  image: { mime: 'image/png' | 'image/jpeg'; data: string; quality?: number },
  placed: { marks: readonly Mark[]; style: MarkStyle },
  guard: CallGuard,
  step: SendOptions,
): Promise<string> {
  const { marks, style } = placed;
  if (marks.length === 0) return image.data;
  const frameId = tab.mainFrameId;
  const loaderId = tab.frames.get(frameId)?.loaderId ?? '';
  const executionContextId = await guard.run(worlds.contextFor(tab.session, frameId, loaderId));
  const quality = (image.quality ?? DEFAULT_JPEG_QUALITY) / 100;
  return guard.run(
    callPage({ session: tab.session, executionContextId }, 'drawMarks', [image.data, image.mime, quality, marks, style], step),
  );
}
