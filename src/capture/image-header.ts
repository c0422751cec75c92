// An image's size read from its own header, for screenshots and screencast frames: what Chromium
// drew, which a scaled or clipped capture can round differently from what was asked.

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
