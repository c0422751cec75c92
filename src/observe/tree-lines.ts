// PURE: the lines of the tree text, between the render (render.ts), which decides what each node
// says, and the text a model reads: runs of text joined as the page writes them, blocks closed,
// long text clipped, and the lines serialized with one space a level (docs/tree-format.md).
import type { Box } from './page-facts.ts';

/** Names are clipped to this many characters, in the tree and in `elements`. */
export const MAX_NAME = 150;
/**
 * Text lines are context for the refs around them, not the page's text (that is `text`, with
 * include_text): a long one keeps its start and its end, which leads into the link or control
 * after it.
 */
const MAX_TREE_TEXT = 80;
/**
 * A line of a code block is read, not skimmed: it keeps more (a call with its arguments, a command
 * with its flags), still clipped in the middle so that one minified line cannot fill the tree.
 */
const MAX_CODE_LINE = 120;
/** One space a level: the structure reads the same, and the bytes and tokens are fewer. */
const INDENT = ' ';

export function flatten(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** `text` cut at UTF-16 index `at` without splitting a surrogate pair. */
function cutAt(text: string, at: number): number {
  const code = text.charCodeAt(at);
  return code >= 0xdc00 && code <= 0xdfff ? at - 1 : at;
}

export function clip(text: string, max: number): string {
  const flat = flatten(text);
  return flat.length > max ? `${flat.slice(0, cutAt(flat, max - 1))}…` : flat;
}

/** Clips in the middle, at word boundaries where there are some: "start of it … end of it". */
function clipMiddle(text: string, max: number): string {
  return clipMiddleOf(flatten(text), max);
}

/** The same on a line of code: its indentation and spacing are kept. */
function clipCode(line: string, max: number): string {
  const indent = /^\s*/.exec(line)![0];
  return indent + clipMiddleOf(line.slice(indent.length), max - indent.length);
}

function clipMiddleOf(flat: string, max: number): string {
  if (flat.length <= max) return flat;
  const headLength = Math.ceil((max - 3) / 2);
  const tailLength = max - 3 - headLength;
  let head = flat.slice(0, cutAt(flat, headLength));
  const lastSpace = head.lastIndexOf(' ');
  if (lastSpace > headLength / 2) head = head.slice(0, lastSpace);
  let tail = flat.slice(cutAt(flat, flat.length - tailLength));
  const firstSpace = tail.indexOf(' ');
  if (firstSpace >= 0 && firstSpace < tailLength / 2) tail = tail.slice(firstSpace + 1);
  return `${head.trimEnd()} … ${tail.trimStart()}`;
}

export function quote(text: string): string {
  return JSON.stringify(text);
}

/** One line of the tree to be: a text line, or a node line with the lines below it. */
export type NodeLine = { kind: 'node'; role: string; name: string; words: string[]; ref?: string; children: Line[] };
/**
 * A run of text: consecutive text nodes (and line breaks) of one block, joined as the page writes
 * them. `source` is the text as Chromium gives it (a <pre> keeps its line breaks and spaces), `raw`
 * the same with whitespace collapsed (to compare with names), `text` what is shown, redacted: one
 * line per line of the run. A run is open at an end while what comes next to it there may join it
 * (it is not at the edge of a block).
 */
export interface TextLine {
  kind: 'text';
  source: string;
  raw: string;
  text: string;
  pre: boolean;
  openStart: boolean;
  openEnd: boolean;
  /** The layout boxes of its first and last text nodes, where known. */
  firstBox?: Box;
  lastBox?: Box;
  /** Joined into the run before it, or a line-number gutter: not a line of `text` of its own. */
  absorbed?: boolean;
}
export type Line = TextLine | NodeLine;

/** At most this many nodes share a line (a run), so that a long toolbar stays readable. */
const MAX_RUN = 10;

/**
 * Drops a text line that only repeats the name of the control right after it (a <label>'s text
 * before the field it names): the control's own line already says it, and models pay per byte.
 */
export function withoutEchoedLabels(lines: Line[]): Line[] {
  return lines.filter((line, i) => {
    const next = lines[i + 1];
    return !(line.kind === 'text' && next?.kind === 'node' && next.name !== '' && next.name === line.text);
  });
}

/**
 * Whether a node line can share its line with siblings of its role: it is only a role, a name and
 * perhaps a ref (no state words, nothing below it). Nameless ones keep their line: a bare ref
 * among names would read as belonging to its neighbour.
 */
function joinable(line: NodeLine): boolean {
  return line.name !== '' && line.words.length === 0 && line.children.length === 0;
}

/** `"name" @ref`: one node of a line, after its role. */
function nameAndRef(line: NodeLine): string {
  const name = quote(clip(line.name, MAX_NAME));
  return line.ref ? `${name} ${line.ref}` : name;
}

/**
 * The tree text: one line a node, `role "name" [state, …] @ref` (each part only when there is
 * one), a level deeper for each level below; a line that is only a quoted string is text.
 * Consecutive siblings of one role that are each only a name and a ref (no states, nothing below)
 * share a line, the role said once and each name followed by its ref: `button "Back" @4 "Next" @5`.
 * Names are JSON strings, so the next node starts at the next unescaped quote; refs are `@N`.
 */
export function serialize(lines: readonly Line[], depth: number, out: string[]): void {
  const pad = INDENT.repeat(depth);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.kind === 'text') {
      for (const part of line.text.split('\n')) {
        if (part) out.push(`${pad}${quote(line.pre ? clipCode(part, MAX_CODE_LINE) : clipMiddle(part, MAX_TREE_TEXT))}`);
      }
      continue;
    }
    if (joinable(line)) {
      const run = [nameAndRef(line)];
      for (
        let next = lines[i + 1];
        run.length < MAX_RUN && next?.kind === 'node' && next.role === line.role && joinable(next);
        next = lines[i + 1]
      ) {
        run.push(nameAndRef(next));
        i++;
      }
      out.push(`${pad}${line.role} ${run.join(' ')}`);
      continue;
    }
    let text = `${pad}${line.role}`;
    if (line.name) text += ` ${quote(clip(line.name, MAX_NAME))}`;
    if (line.words.length) text += ` [${line.words.join(', ')}]`;
    if (line.ref) text += ` ${line.ref}`;
    out.push(text);
    serialize(line.children, depth + 1, out);
  }
}

/**
 * What a run shows: each of its lines (a <br>, a line break of a <pre>) on a line of its own,
 * empty ones left out; a <pre>'s lines keep their indentation, other text is collapsed.
 */
export function shownLines(source: string, pre: boolean): string {
  const lines = source.split('\n').map((line) => (pre ? line.trimEnd() : flatten(line)));
  return lines.filter((line) => line.trim() !== '').join('\n');
}

/**
 * Joins each text line into the one before it when both are open towards each other: nothing but
 * inline wrappers between them. Lines are joined in place (the first one takes the second's text)
 * because `text` holds the same objects.
 */
export function joinRuns(lines: Line[], scrub: (text: string) => string): Line[] {
  const out: Line[] = [];
  for (let i = 0; i < lines.length; i++) {
    const first = lines[i]!;
    out.push(first);
    if (first.kind !== 'text') continue;
    // A whole run at once: a highlighted block is thousands of tokens, its text is made once.
    const parts = [first.source];
    let last = first;
    for (let next = lines[i + 1]; next?.kind === 'text' && last.openEnd && next.openStart; next = lines[i + 1]) {
      parts.push(apart(last, next) ? ` ${next.source}` : next.source);
      first.pre ||= next.pre;
      next.absorbed = true;
      last = next;
      i++;
    }
    if (last === first) continue;
    first.source = parts.join('');
    first.lastBox = last.lastBox;
    first.openEnd = last.openEnd;
    first.raw = flatten(first.source);
    first.text = scrub(shownLines(first.source, first.pre));
  }
  return out;
}

/**
 * Whether two pieces of a run that touch in the page's text (no space between) stand apart on
 * screen: spans that CSS lays out as blocks, flex items or with a margin (a title and its date).
 * The second starts right of a gap after the first, or below it. Code is never spaced out: its
 * tokens touch.
 */
function apart(first: TextLine, second: TextLine): boolean {
  if (first.pre || second.pre || /\s$/.test(first.source) || /^\s/.test(second.source)) return false;
  const a = first.lastBox;
  const b = second.firstBox;
  if (!a || !b) return false;
  const below = b[1] >= a[1] + a[3] - 1;
  const rightOfGap = b[0] > a[0] + a[2] + 1 && b[1] < a[1] + a[3];
  return below || rightOfGap;
}

/** A block's edges end its runs; text left empty by then (spaces, a lone <br>) says nothing. */
export function closeBlock(lines: Line[]): Line[] {
  const first = lines[0];
  const last = lines[lines.length - 1];
  if (first?.kind === 'text') first.openStart = false;
  if (last?.kind === 'text') last.openEnd = false;
  return lines.filter((line) => line.kind !== 'text' || line.text !== '');
}

/** A column of line numbers beside code (a gutter): 1, 2, 3… on lines of their own. */
export function isLineNumberGutter(lines: readonly Line[]): boolean {
  const only = lines[0];
  if (lines.length !== 1 || only?.kind !== 'text') return false;
  const numbers = only.text.split('\n').map((line) => line.trim());
  if (numbers.length < 2 || !numbers.every((n) => /^\d+$/.test(n))) return false;
  return numbers.every((n, i) => i === 0 || Number(n) === Number(numbers[i - 1]) + 1);
}
