// A small PNG decoder for tests that read screenshot pixels: 8-bit RGB or RGBA, not interlaced
// (what Chromium's Page.captureScreenshot writes). Anything else is rejected, not guessed at.
import { inflateSync } from 'node:zlib';

export interface DecodedImage {
  width: number;
  height: number;
  /** RGBA, 4 bytes per pixel, rows top to bottom. */
  pixels: Uint8Array;
}

const SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

export function decodeBase64(data: string): Uint8Array {
  const binary = atob(data);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

export function decodePng(bytes: Uint8Array): DecodedImage {
  if (!SIGNATURE.every((b, i) => bytes[i] === b)) throw new Error('not a PNG');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let width = 0;
  let height = 0;
  let channels = 0;
  const idat: Uint8Array[] = [];
  for (let offset = 8; offset + 8 <= bytes.length;) {
    const length = view.getUint32(offset);
    const type = String.fromCharCode(...bytes.subarray(offset + 4, offset + 8));
    const body = bytes.subarray(offset + 8, offset + 8 + length);
    if (type === 'IHDR') {
      width = view.getUint32(offset + 8);
      height = view.getUint32(offset + 12);
      const [bitDepth, colorType, , , interlace] = body.subarray(8, 13);
      if (bitDepth !== 8 || interlace !== 0) throw new Error(`unsupported PNG: depth ${bitDepth}, interlace ${interlace}`);
      if (colorType === 2) channels = 3;
      else if (colorType === 6) channels = 4;
      else throw new Error(`unsupported PNG colour type ${colorType}`);
    } else if (type === 'IDAT') {
      idat.push(body);
    } else if (type === 'IEND') {
      break;
    }
    offset += 12 + length; // length, type, body, CRC
  }
  if (!channels) throw new Error('PNG without IHDR');
  const raw = inflateSync(concat(idat));
  const stride = width * channels;
  if (raw.length < height * (stride + 1)) throw new Error('PNG data too short');
  const rows = new Uint8Array(height * stride);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)]!;
    const src = y * (stride + 1) + 1;
    const out = y * stride;
    const prev = out - stride; // the row above, already unfiltered (absent for y = 0)
    for (let x = 0; x < stride; x++) {
      const a = x >= channels ? rows[out + x - channels]! : 0;
      const b = y > 0 ? rows[prev + x]! : 0;
      const c = x >= channels && y > 0 ? rows[prev + x - channels]! : 0;
      const value = raw[src + x]!;
      let predictor: number;
      switch (filter) {
        case 0:
          predictor = 0;
          break;
        case 1:
          predictor = a;
          break;
        case 2:
          predictor = b;
          break;
        case 3:
          predictor = (a + b) >> 1;
          break;
        case 4:
          predictor = paeth(a, b, c);
          break;
        default:
          throw new Error(`bad PNG filter ${filter} on row ${y}`);
      }
      rows[out + x] = (value + predictor) & 0xff;
    }
  }
  if (channels === 4) return { width, height, pixels: rows };
  const pixels = new Uint8Array(width * height * 4);
  for (let i = 0, j = 0; i < rows.length; i += 3, j += 4) {
    pixels[j] = rows[i]!;
    pixels[j + 1] = rows[i + 1]!;
    pixels[j + 2] = rows[i + 2]!;
    pixels[j + 3] = 255;
  }
  return { width, height, pixels };
}

function paeth(a: number, b: number, c: number): number {
  const p = a + b - c;
  const pa = Math.abs(p - a);
  const pb = Math.abs(p - b);
  const pc = Math.abs(p - c);
  if (pa <= pb && pa <= pc) return a;
  return pb <= pc ? b : c;
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

/** The distinct RGBA colours of a rectangle (image pixels, clamped to the image), with counts. */
export function coloursIn(
  image: DecodedImage,
  rect: { x: number; y: number; width: number; height: number },
): Map<string, number> {
  const colours = new Map<string, number>();
  const x0 = Math.max(0, Math.floor(rect.x));
  const y0 = Math.max(0, Math.floor(rect.y));
  const x1 = Math.min(image.width, Math.ceil(rect.x + rect.width));
  const y1 = Math.min(image.height, Math.ceil(rect.y + rect.height));
  for (let y = y0; y < y1; y++) {
    for (let x = x0; x < x1; x++) {
      const i = (y * image.width + x) * 4;
      const key = `${image.pixels[i]},${image.pixels[i + 1]},${image.pixels[i + 2]},${image.pixels[i + 3]}`;
      colours.set(key, (colours.get(key) ?? 0) + 1);
    }
  }
  return colours;
}
