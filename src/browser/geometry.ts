// Rectangles from CDP quads (four x,y corners, possibly rotated).

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
