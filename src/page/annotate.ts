// Drawing refs onto a captured screenshot (capture/annotate.ts): the image is decoded, drawn on
// and encoded again on an OffscreenCanvas of our isolated world. Nothing of the page's DOM is
// touched (no node added, no style changed), so neither page scripts nor the change monitor see
// it, and the browser's own codecs serve PNG and JPEG alike.

/** One ref to draw, in image px: its box (already cut to the image), its label and its colours. */
export interface Mark {
  label: string;
  x: number;
  y: number;
  width: number;
  height: number;
  /** The outline's and the label background's colour (CSS). */
  colour: string;
  /** The label text's colour, chosen to contrast with `colour`. */
  ink: string;
}

/** Sizes in image px: the outline's width, the label's font size and padding. */
export interface MarkStyle {
  line: number;
  font: number;
  pad: number;
}

/**
 * The image (base64) with every mark's outline drawn, then every label on top (so that a label
 * is never crossed by another box's outline), encoded again as `mime` (JPEG at `quality`, 0–1).
 * A label sits at its box's top-left corner, inside the box, moved in to stay inside the image.
 */
export async function drawMarks(
  image: string,
  mime: 'image/png' | 'image/jpeg',
  quality: number,
  marks: readonly Mark[],
  style: MarkStyle,
): Promise<string> {
  const binary = atob(image);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  const bitmap = await createImageBitmap(new Blob([bytes], { type: mime }));
  const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
  const context = canvas.getContext('2d');
  if (!context) throw new Error('no 2d context for the screenshot');
  context.drawImage(bitmap, 0, 0);
  bitmap.close();
  for (const mark of marks) {
    // Four filled bands inside the box (a stroke straddles its path and would blend its edges).
    const line = Math.min(style.line, Math.floor(mark.width / 2) || 1, Math.floor(mark.height / 2) || 1);
    context.fillStyle = mark.colour;
    context.fillRect(mark.x, mark.y, mark.width, line);
    context.fillRect(mark.x, mark.y + mark.height - line, mark.width, line);
    context.fillRect(mark.x, mark.y, line, mark.height);
    context.fillRect(mark.x + mark.width - line, mark.y, line, mark.height);
  }
  context.font = `bold ${style.font}px sans-serif`;
  context.textBaseline = 'top';
  for (const mark of marks) {
    const width = Math.ceil(context.measureText(mark.label).width) + 2 * style.pad;
    const height = style.font + 2 * style.pad;
    const x = Math.max(0, Math.min(mark.x, canvas.width - width));
    const y = Math.max(0, Math.min(mark.y, canvas.height - height));
    context.fillStyle = mark.colour;
    context.fillRect(x, y, width, height);
    context.fillStyle = mark.ink;
    context.fillText(mark.label, x + style.pad, y + style.pad);
  }
  const blob = await canvas.convertToBlob(mime === 'image/jpeg' ? { type: mime, quality } : { type: mime });
  const out = new Uint8Array(await blob.arrayBuffer());
  // btoa takes a binary string; built in slices, as one apply over megabytes overflows the stack.
  let text = '';
  for (let i = 0; i < out.length; i += 0x8000) text += String.fromCharCode(...out.subarray(i, i + 0x8000));
  return btoa(text);
}
