// An observation cut at a byte budget, and its cursor (PROTOCOL.md §6, "Budgets and cursors"): a
// part holds whole lines of the tree (of the markdown, in that format), then of the text, and the
// elements its lines name, so that reading part after part gives every line and every element
// exactly once.
import { utf8Length } from '../util/utf8.ts';
import type { Observation } from '../wire/index.ts';

/** Where a part begins: a line of the tree, then of the text, counted across both; a character of it. */
export interface PartStart {
  line: number;
  offset: number;
}

export interface CutObservation {
  part: Observation;
  /** Where the next part begins, when this one did not reach the end. */
  next?: PartStart;
}

/** An observation split into lines (the tree's, then the text's), each with the elements that go with it. */
class Lines {
  readonly #tree: string[];
  readonly #text: string[];
  /** Per line of the tree, the indexes in `elements` of the elements that go with it. */
  readonly elementsOf: number[][];

  constructor(full: Observation) {
    // In markdown format the markdown holds the refs, and the tree is empty: its lines are cut instead.
    this.#tree = (full.markdown ?? full.tree).split('\n');
    this.#text = full.text === undefined ? [] : full.text.split('\n');
    this.elementsOf = this.#tree.map(() => []);
    const lineOfRef = new Map<string, number>();
    this.#tree.forEach((line, i) => {
      for (const ref of full.markdown === undefined ? refsOnLine(line) : refsOnMarkdownLine(line)) {
        if (!lineOfRef.has(ref)) lineOfRef.set(ref, i);
      }
    });
    // An element no line names (its line was folded away) goes with the element before it.
    let previous = 0;
    full.elements.forEach((element, k) => {
      previous = lineOfRef.get(element.ref) ?? previous;
      this.elementsOf[previous]!.push(k);
    });
  }

  get count(): number {
    return this.#tree.length + this.#text.length;
  }

  line(index: number): string {
    return this.isTree(index) ? this.#tree[index]! : this.#text[index - this.#tree.length]!;
  }

  isTree(index: number): boolean {
    return index < this.#tree.length;
  }
}

/** The refs a markdown line gives: `[label](@12)` and a region's `(@12)` (docs/markdown.md). */
function refsOnMarkdownLine(line: string): string[] {
  return [...line.matchAll(/\]\((@\d+)\)|(?:^|\s)\((@\d+)\)/g)].map((match) => (match[1] ?? match[2])!);
}

/** The refs a tree line gives (`@12` outside its quoted names and texts). */
function refsOnLine(line: string): string[] {
  const refs: string[] = [];
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quoted) {
      if (c === '\\') i++;
      else if (c === '"') quoted = false;
    } else if (c === '"') {
      quoted = true;
    } else if (c === '@' && (i === 0 || line[i - 1] === ' ')) {
      const digits = /^\d+/.exec(line.slice(i + 1))?.[0];
      if (digits) refs.push(`@${digits}`);
    }
  }
  return refs;
}

/** The longest cursor a part could carry, measured in place of the real one (which depends on the cut). */
const CURSOR_ROOM = 64;

/**
 * The part of `full` that begins at `start` and fits in `maxBytes` (its JSON, UTF-8), and where the
 * next one begins; undefined when no part of `full` begins at `start` (a cursor of another cut).
 * `full` is never changed.
 */
export function cutObservation(full: Observation, start: PartStart, maxBytes: number): CutObservation | undefined {
  const lines = new Lines(full);
  if (start.line >= lines.count || start.offset >= Math.max(1, lines.line(start.line).length)) return undefined;
  const first = start.line === 0 && start.offset === 0;
  const { next_cursor: _cursor, blockers, diff, markdown, ...identity } = full;
  const opening = first ? { ...(blockers ? { blockers } : {}), ...(diff ? { diff } : {}) } : {};
  const build = (end: PartStart, extra: Partial<Observation>): Observation => {
    const tree: string[] = [];
    const text: string[] = [];
    const picked: number[] = [];
    for (let i = start.line; i < end.line || (i === end.line && end.offset > 0); i++) {
      const from = i === start.line ? start.offset : 0;
      const to = i === end.line ? end.offset : undefined;
      const piece = lines.line(i).slice(from, to);
      if (lines.isTree(i)) {
        tree.push(piece);
        if (from === 0) picked.push(...lines.elementsOf[i]!);
      } else {
        text.push(piece);
      }
    }
    const elements = picked.map((k) => full.elements[k]!);
    const refs = new Set(elements.map((e) => e.ref));
    return {
      ...identity,
      ...(markdown === undefined ? { tree: tree.join('\n') } : { tree: '', markdown: tree.join('\n') }),
      elements,
      ...(full.text !== undefined ? { text: text.join('\n') } : {}),
      ...(full.boxes ? { boxes: Object.fromEntries(Object.entries(full.boxes).filter(([ref]) => refs.has(ref))) } : {}),
      ...(full.matches ? { matches: full.matches.filter((match) => refs.has(match.ref)) } : {}),
      ...extra,
    };
  };
  const whole = (end: number): PartStart => ({ line: end, offset: 0 });
  const total = lines.count;
  const room = (part: Observation, last: boolean) => utf8Length(JSON.stringify(part)) + (last ? 0 : CURSOR_ROOM) <= maxBytes;
  // The diff, when even one line does not fit beside it, is left out (blockers name refs the
  // next parts need, and are small).
  for (const extra of [opening, first && blockers ? { blockers } : {}]) {
    // The most whole lines that fit, found by halving: a part's size grows with its lines.
    let lo = 0;
    let hi = total - start.line;
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2);
      if (room(build(whole(start.line + mid), extra), start.line + mid === total)) lo = mid;
      else hi = mid - 1;
    }
    if (lo > 0 || total === start.line) {
      const end = whole(start.line + lo);
      return { part: build(end, extra), ...(end.line < total ? { next: end } : {}) };
    }
    // Not one line: as much of the first as fits, split at a character (never inside a pair).
    const line = lines.line(start.line);
    let chars = 0;
    let top = line.length - start.offset;
    while (chars < top) {
      const mid = Math.ceil((chars + top) / 2);
      if (room(build({ line: start.line, offset: start.offset + mid }, extra), false)) chars = mid;
      else top = mid - 1;
    }
    if (chars > 0 && isHighSurrogate(line.charCodeAt(start.offset + chars - 1))) chars--;
    if (chars > 0) {
      const end = { line: start.line, offset: start.offset + chars };
      return { part: build(end, extra), next: end };
    }
    if (!diff || !first) break;
  }
  // Its identity alone leaves no room: one line all the same, so that reading moves on.
  const end = whole(start.line + 1);
  return { part: build(end, first && blockers ? { blockers } : {}), ...(end.line < total ? { next: end } : {}) };
}

/** The first part of `full` within `maxBytes`, and where the next one begins. */
export function firstPart(full: Observation, maxBytes: number): CutObservation {
  // Every observation has a first line (an empty tree is one empty line), so a part begins there.
  return cutObservation(full, { line: 0, offset: 0 }, maxBytes)!;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/** The cursor of the part of the observation `stateId` that begins at `start`. */
export function cursorOf(stateId: string, start: PartStart): string {
  return `${stateId}~${start.line}.${start.offset}`;
}

/** The state and the start a cursor names, or undefined for a string no part gave. */
export function parseCursor(cursor: string): { stateId: string; start: PartStart } | undefined {
  const match = /^(.+)~(\d{1,9})\.(\d{1,9})$/.exec(cursor);
  return match ? { stateId: match[1]!, start: { line: Number(match[2]), offset: Number(match[3]) } } : undefined;
}
