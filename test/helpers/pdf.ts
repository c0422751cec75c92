// Reading what a PDF printed by Chromium (Skia) holds, for tests: its page boxes, and its text
// (each font's glyph codes mapped back through its ToUnicode CMap, the content streams inflated
// with node:zlib). Enough for Skia's output; not a general PDF reader.
import { inflateSync } from 'node:zlib';

interface PdfObject {
  dict: string;
  stream?: Buffer;
}

function objectsOf(bytes: Uint8Array): Map<number, PdfObject> {
  const buffer = Buffer.from(bytes);
  const text = buffer.toString('latin1');
  const out = new Map<number, PdfObject>();
  const pattern = /(\d+) 0 obj\s*/g;
  for (let match = pattern.exec(text); match; match = pattern.exec(text)) {
    const start = pattern.lastIndex;
    const end = text.indexOf('endobj', start);
    const body = text.slice(start, end);
    const streamAt = body.search(/\bstream\r?\n/);
    if (streamAt === -1) {
      out.set(Number(match[1]), { dict: body });
    } else {
      const dataStart = start + body.indexOf('\n', streamAt) + 1;
      const dataEnd = text.lastIndexOf('endstream', end);
      let stream = buffer.subarray(dataStart, dataEnd);
      if (/\/FlateDecode/.test(body.slice(0, streamAt))) stream = inflateSync(stream);
      out.set(Number(match[1]), { dict: body.slice(0, streamAt), stream });
    }
    pattern.lastIndex = end;
  }
  return out;
}

/** The `[x0 y0 x1 y1]` of each page, in points. */
export function mediaBoxes(bytes: Uint8Array): number[][] {
  const text = Buffer.from(bytes).toString('latin1');
  return [...text.matchAll(/\/MediaBox\s*\[([^\]]*)\]/g)].map((m) => m[1]!.trim().split(/\s+/).map(Number));
}

function cmapOf(source: string): Map<string, string> {
  const map = new Map<string, string>();
  const utf16 = (hex: string) => {
    let out = '';
    for (let i = 0; i < hex.length; i += 4) out += String.fromCharCode(parseInt(hex.slice(i, i + 4), 16));
    return out;
  };
  for (const block of source.matchAll(/beginbfchar([\s\S]*?)endbfchar/g)) {
    for (const pair of block[1]!.matchAll(/<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>/g)) map.set(pair[1]!.toUpperCase(), utf16(pair[2]!));
  }
  for (const block of source.matchAll(/beginbfrange([\s\S]*?)endbfrange/g)) {
    for (const range of block[1]!.matchAll(/<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>/g)) {
      const from = parseInt(range[1]!, 16);
      const to = parseInt(range[2]!, 16);
      const first = parseInt(range[3]!, 16);
      for (let code = from; code <= to; code++) {
        map.set(code.toString(16).toUpperCase().padStart(range[1]!.length, '0'), String.fromCharCode(first + code - from));
      }
    }
  }
  return map;
}

/** Every text the PDF's content streams draw, in stream order (runs joined as they come: one word may be drawn in several). */
export function pdfText(bytes: Uint8Array): string {
  const objects = objectsOf(bytes);
  // Resource name (/F4) → that font's ToUnicode map; Skia names each font once per document.
  const fonts = new Map<string, Map<string, string>>();
  for (const object of objects.values()) {
    for (const dict of object.dict.matchAll(/\/Font\s*<<([^>]*)>>/g)) {
      for (const entry of dict[1]!.matchAll(/\/([^\s/]+)\s+(\d+)\s+0\s+R/g)) {
        const font = objects.get(Number(entry[2]));
        const toUnicode = /\/ToUnicode\s+(\d+)\s+0\s+R/.exec(font?.dict ?? '');
        const cmap = toUnicode ? objects.get(Number(toUnicode[1]))?.stream : undefined;
        if (cmap) fonts.set(entry[1]!, cmapOf(cmap.toString('latin1')));
      }
    }
  }
  const runs: string[] = [];
  for (const object of objects.values()) {
    const content = object.stream?.toString('latin1');
    if (!content || !/\bTf\b/.test(content)) continue;
    let font = new Map<string, string>();
    const decode = (hex: string) => {
      let out = '';
      for (let i = 0; i + 4 <= hex.length; i += 4) out += font.get(hex.slice(i, i + 4).toUpperCase()) ?? '\uFFFD';
      return out;
    };
    const ops = /\/([^\s/]+)\s+[-\d.]+\s+Tf|<([0-9A-Fa-f]*)>\s*Tj|\[([^\]]*)\]\s*TJ/g;
    for (const op of content.matchAll(ops)) {
      if (op[1] !== undefined) font = fonts.get(op[1]) ?? new Map();
      else if (op[2] !== undefined) runs.push(decode(op[2]));
      else runs.push([...op[3]!.matchAll(/<([0-9A-Fa-f]*)>/g)].map((m) => decode(m[1]!)).join(''));
    }
  }
  return runs.join('');
}
