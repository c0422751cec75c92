// Reading and changing a printed PDF where it is plain text: outside its streams (the page
// content, fonts and images are compressed streams; the objects between them are PDF syntax).
// Chromium copies the document's title into the file's metadata (/Title of the Info dictionary)
// and link targets into annotations there, so a secret a page put in its title or an href would
// ride along even with every element masked. Both jobs are PURE functions of the bytes.
import { containsSecret, type KnownSecret } from '../util/redact.ts';

/** One byte, one char (windows-1252 is a single-byte encoding): offsets in the text are byte offsets. */
const BYTES_AS_TEXT = new TextDecoder('windows-1252');
const STREAM_END = 'endstream';
/** A page object, not the page tree's `/Type /Pages` nodes. */
const PAGE_TYPE = /\/Type\s*\/Page(?![A-Za-z0-9#._-])/g;
/** `<…>` hex strings (a `<<` opens a dictionary instead). A fresh regex per use: a global one keeps its lastIndex. */
const hexStrings = () => /(?<!<)<([0-9A-Fa-f\s]*)>/g;
const STAR = 0x2a;

/** The parts of the file between its streams, with their offsets. */
function* outsideStreams(text: string): Generator<{ at: number; text: string }> {
  const streamStart = /\bstream\r?\n/g;
  let from = 0;
  for (let match = streamStart.exec(text); match; match = streamStart.exec(text)) {
    yield { at: from, text: text.slice(from, match.index) };
    const end = text.indexOf(STREAM_END, streamStart.lastIndex);
    if (end === -1) return;
    from = end + STREAM_END.length;
    streamStart.lastIndex = from;
  }
  yield { at: from, text: text.slice(from) };
}

/** The number of pages of the file: its page objects. */
export function pdfPageCount(bytes: Uint8Array): number {
  let pages = 0;
  for (const part of outsideStreams(BYTES_AS_TEXT.decode(bytes))) pages += part.text.match(PAGE_TYPE)?.length ?? 0;
  return pages;
}

function hexText(digits: string): { text: string; utf16: boolean } {
  const clean = digits.replace(/\s+/g, '');
  const bytes: number[] = [];
  for (let i = 0; i < clean.length; i += 2) bytes.push(parseInt(clean.slice(i, i + 2).padEnd(2, '0'), 16));
  if (bytes[0] === 0xfe && bytes[1] === 0xff) {
    let text = '';
    for (let i = 2; i + 1 < bytes.length; i += 2) text += String.fromCharCode((bytes[i]! << 8) | bytes[i + 1]!);
    return { text, utf16: true };
  }
  return { text: String.fromCharCode(...bytes), utf16: false };
}

/** A literal string's text, from its `(` (at `open`): its escapes read, and where it ends. */
function literalAt(text: string, open: number): { text: string; close: number } | undefined {
  let depth = 0;
  let out = '';
  for (let i = open + 1; i < text.length; i++) {
    const char = text[i]!;
    if (char === '\\') {
      const next = text[i + 1] ?? '';
      const octal = /^[0-7]{1,3}/.exec(text.slice(i + 1, i + 4));
      if (octal) {
        out += String.fromCharCode(parseInt(octal[0], 8) & 0xff);
        i += octal[0].length;
      } else {
        out += ({ n: '\n', r: '\r', t: '\t', b: '\b', f: '\f' } as Record<string, string>)[next] ?? next;
        i += 1;
      }
    } else if (char === '(') {
      depth++;
      out += char;
    } else if (char === ')') {
      if (depth === 0) return { text: out, close: i };
      depth--;
      out += char;
    } else {
      out += char;
    }
  }
  return undefined;
}

/** A literal string in UTF-16 (it starts with the byte order mark) read as such. */
function literalText(raw: string): string {
  if (raw.charCodeAt(0) !== 0xfe || raw.charCodeAt(1) !== 0xff) return raw;
  let text = '';
  for (let i = 2; i + 1 < raw.length; i += 2) text += String.fromCharCode((raw.charCodeAt(i) << 8) | raw.charCodeAt(i + 1));
  return text;
}

/**
 * `bytes` with every string outside the streams that holds a known secret (whole, or a typed
 * value's beginning, as the redaction finds them) replaced by asterisks as a whole, at the same
 * length: the file's cross-reference offsets stay right. The same array when nothing held one.
 */
export function hidePdfSecrets(bytes: Uint8Array, secrets: readonly KnownSecret[]): Uint8Array {
  if (secrets.length === 0) return bytes;
  const holds = (text: string) => secrets.some((secret) => containsSecret(text, secret));
  let out: Uint8Array | undefined;
  const star = (from: number, to: number, fill: (offset: number) => number) => {
    out ??= bytes.slice();
    for (let i = from; i < to; i++) out[i] = fill(i - from);
  };
  for (const part of outsideStreams(BYTES_AS_TEXT.decode(bytes))) {
    const hex = hexStrings();
    for (let match = hex.exec(part.text); match; match = hex.exec(part.text)) {
      const { text, utf16 } = hexText(match[1]!);
      if (!holds(text)) continue;
      // FEFF then 002A per character, or 2A per byte; spaces (allowed in a hex string) after.
      const stars = utf16 ? 'FEFF' + '002A'.repeat(text.length) : '2A'.repeat(text.length);
      const start = part.at + match.index + 1;
      star(start, start + match[1]!.length, (k) => (k < stars.length ? stars.charCodeAt(k) : 0x20));
    }
    for (let open = part.text.indexOf('('); open !== -1; open = part.text.indexOf('(', open + 1)) {
      const literal = literalAt(part.text, open);
      if (!literal) break;
      if (holds(literalText(literal.text))) star(part.at + open + 1, part.at + literal.close, () => STAR);
      open = literal.close;
    }
  }
  return out ?? bytes;
}
