// Reading JSON text without building it: the nesting depth, and for a text too deep to hand to
// JSON.parse, the outline the server needs to answer it anyway (the request's own `id`, or each
// batch element's span, depth and `id`). Linear and iterative, so no nesting makes it slow or
// overflows a stack.

/**
 * A JSON-RPC id as JSON.parse would read it: `null` when it is not a valid id or the value is not
 * an object; undefined for an object without an `id` member (a notification, if it is a request).
 */
export type ReadId = string | number | null | undefined;

export interface OutlinedValue {
  /** Offsets of the value in the text (end exclusive). */
  readonly start: number;
  readonly end: number;
  /** Deepest array/object nesting inside it, counted from the start of the text. */
  readonly depth: number;
  /** Its own `id` member when it is an object (undefined when it has none). */
  readonly id: ReadId;
}

export interface Outline {
  readonly root: OutlinedValue;
  /** Present when the root is an array: its elements, in order. */
  readonly elements?: readonly OutlinedValue[];
}

/** A linear scan of `[` and `{` outside strings: far cheaper than parsing what it refuses. */
export function nestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++; // the escaped character cannot end the string
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) inString = true;
    else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      if (++depth > max) return true;
    } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) depth--;
  }
  return false;
}

/**
 * The outline of `text`, or undefined unless the whole text is valid JSON (RFC 8259, the grammar
 * JSON.parse accepts): an id read from text that is not JSON could not be trusted. Only the
 * members of the root object, or of objects that are elements of a root array, are looked at;
 * for a repeated `id` the last one counts, as in JSON.parse.
 */
export function outlineJson(text: string): Outline | undefined {
  return outline(text);
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const COMMA = 0x2c;
const COLON = 0x3a;
const MINUS = 0x2d;
const PLUS = 0x2b;
const DOT = 0x2e;
const LITERALS = ['true', 'false', 'null'];
/** The characters after a backslash other than `u`: quote, backslash, slash, b f n r t. */
const SIMPLE_ESCAPES: ReadonlySet<number> = new Set([QUOTE, BACKSLASH, 0x2f, 0x62, 0x66, 0x6e, 0x72, 0x74]);

// What the grammar allows next.
const VALUE = 0;
const VALUE_OR_CLOSE = 1;
const KEY = 2;
const KEY_OR_CLOSE = 3;
const COLON_NEXT = 4;
const COMMA_OR_CLOSE = 5;
const END = 6;

// One function with local state: this runs once per character of up to a megabyte of text.
function outline(text: string): Outline | undefined {
  const length = text.length;
  /** Open containers, innermost last: 1 for an object, 0 for an array. */
  const stack: number[] = [];
  let rootIsArray = false;
  let rootDepth = 0;
  /** Stays null unless the root is an object. */
  let rootId: ReadId = null;
  const elements: OutlinedValue[] = [];
  let elementStart = -1;
  let elementDepth = 0;
  /**
   * The object whose `id` member is read: the root object (level 1) or an element of a root
   * array (level 2); 0 when there is none open. `ownerId` stays undefined until it has an `id`
   * member. `memberIsId`: the member being read is `id`.
   */
  let ownerLevel = 0;
  let ownerId: ReadId;
  let memberIsId = false;

  let i = 0;
  let expect: number = VALUE;
  for (;;) {
    let c = text.charCodeAt(i);
    while (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) c = text.charCodeAt(++i);
    if (i >= length) break;
    /** Set when a value ended at `i`: where a scalar began, or -1 for a container just closed. */
    let ended: number | undefined;
    switch (expect) {
      case VALUE:
      case VALUE_OR_CLOSE: {
        if (c === CLOSE_ARRAY && expect === VALUE_OR_CLOSE) {
          ended = -1;
          break;
        }
        if (stack.length === 1 && rootIsArray) {
          elementStart = i;
          elementDepth = 1;
        }
        if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
          const isObject = c === OPEN_OBJECT;
          if (stack.length === 0) rootIsArray = !isObject;
          const depth = stack.push(isObject ? 1 : 0);
          i++;
          if (depth > rootDepth) rootDepth = depth;
          if (depth > elementDepth) elementDepth = depth;
          if (isObject && (depth === 1 || (depth === 2 && rootIsArray))) {
            ownerLevel = depth;
            ownerId = undefined;
            memberIsId = false;
          }
          expect = isObject ? KEY_OR_CLOSE : VALUE_OR_CLOSE;
          break;
        }
        ended = i;
        i = scalarEnd(text, i);
        if (i < 0) return undefined;
        break;
      }
      case KEY:
      case KEY_OR_CLOSE: {
        if (c === CLOSE_OBJECT && expect === KEY_OR_CLOSE) {
          ended = -1;
          break;
        }
        if (c !== QUOTE) return undefined;
        const start = i;
        i = stringEnd(text, i);
        if (i < 0) return undefined;
        if (ownerLevel === stack.length) memberIsId = keyIsId(text, start, i);
        expect = COLON_NEXT;
        break;
      }
      case COLON_NEXT:
        if (c !== COLON) return undefined;
        i++;
        expect = VALUE;
        break;
      case COMMA_OR_CLOSE: {
        const inObject = stack[stack.length - 1] === 1;
        if (c === COMMA) {
          i++;
          expect = inObject ? KEY : VALUE;
        } else if (c === (inObject ? CLOSE_OBJECT : CLOSE_ARRAY)) {
          ended = -1;
        } else {
          return undefined;
        }
        break;
      }
      case END:
        return undefined;
    }
    if (ended === undefined) continue;
    if (ended < 0) {
      // The cursor is on the closing bracket of the innermost container.
      i++;
      stack.pop();
      if (ownerLevel === stack.length + 1) {
        // The owner itself closed: its id is final.
        if (ownerLevel === 1) rootId = ownerId;
        else elements.push({ start: elementStart, end: i, depth: elementDepth, id: ownerId });
        ownerLevel = 0;
        expect = stack.length === 0 ? END : COMMA_OR_CLOSE;
        continue;
      }
    }
    const level = stack.length;
    if (ownerLevel === level && memberIsId) {
      // An array or an object is not an id.
      ownerId = ended < 0 ? null : readId(text.slice(ended, i));
      memberIsId = false;
    } else if (level === 1 && rootIsArray) {
      elements.push({ start: elementStart, end: i, depth: elementDepth, id: null });
    }
    expect = level === 0 ? END : COMMA_OR_CLOSE;
  }
  if (expect !== END) return undefined;
  const root: OutlinedValue = { start: 0, end: length, depth: rootDepth, id: rootId };
  return rootIsArray ? { root, elements } : { root };
}

/** The end of the string, number or literal at `i`, or -1 if there is none. */
function scalarEnd(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c === QUOTE) return stringEnd(text, i);
  if (c === MINUS || isDigit(c)) return numberEnd(text, i);
  for (const word of LITERALS) if (text.startsWith(word, i)) return i + word.length;
  return -1;
}

function stringEnd(text: string, from: number): number {
  let i = from + 1;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) return i + 1;
    if (c < 0x20) return -1;
    if (c === BACKSLASH) {
      const next = text.charCodeAt(i + 1);
      if (next === 0x75 /* u */) {
        for (let k = 2; k < 6; k++) if (!isHex(text.charCodeAt(i + k))) return -1;
        i += 6;
        continue;
      }
      if (!SIMPLE_ESCAPES.has(next)) return -1;
      i += 2;
      continue;
    }
    i++;
  }
  return -1;
}

function numberEnd(text: string, from: number): number {
  let i = from;
  if (text.charCodeAt(i) === MINUS) i++;
  if (text.charCodeAt(i) === 0x30) i++;
  else if (isDigit(text.charCodeAt(i))) { while (isDigit(text.charCodeAt(i))) i++; }
  else return -1;
  if (text.charCodeAt(i) === DOT) {
    i++;
    if (!isDigit(text.charCodeAt(i))) return -1;
    while (isDigit(text.charCodeAt(i))) i++;
  }
  const e = text.charCodeAt(i);
  if (e === 0x65 || e === 0x45) {
    i++;
    const sign = text.charCodeAt(i);
    if (sign === PLUS || sign === MINUS) i++;
    if (!isDigit(text.charCodeAt(i))) return -1;
    while (isDigit(text.charCodeAt(i))) i++;
  }
  return i;
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

function isHex(c: number): boolean {
  return isDigit(c) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
}

/** The key token text[start, end) (quotes included) names `id`, escapes decoded. */
function keyIsId(text: string, start: number, end: number): boolean {
  const raw = text.slice(start + 1, end - 1);
  if (!raw.includes('\\')) return raw === 'id';
  // Short enough to decode: `id` spelled with escapes is at most 12 characters.
  return raw.length <= 12 && JSON.parse(text.slice(start, end)) === 'id';
}

// JSON.parse turns 1e400 into Infinity, which would go back out as null: not the same id.
function readId(token: string): string | number | null {
  const value: unknown = JSON.parse(token);
  if (value === null || typeof value === 'string') return value;
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}
