// PURE: a stitched accessibility tree (frames joined at their iframe nodes) → what a model reads:
// the indented tree text, the `elements` list, the visible page text, and the table of which ref
// names which DOM node. Refs go on interactive nodes in document order; values are never shown.
// The tree's format is described in docs/tree-format.md; each rule below says why.
import { type KnownSecret, redactSecrets, redactUrl } from '../util/redact.ts';
import type { AxViewNode, UnreadNode } from './ax-tree.ts';
import type { Box, NodeFacts } from './page-facts.ts';
import {
  clip,
  closeBlock,
  flatten,
  isLineNumberGutter,
  joinRuns,
  type Line,
  MAX_NAME,
  quote,
  serialize,
  shownLines,
  type TextLine,
  withoutEchoedLabels,
} from './tree-lines.ts';

export interface StitchedNode extends AxViewNode {
  frameId: string;
  children: StitchedChild[];
  /** Set on iframe nodes: the frame whose document hangs here. */
  childFrame?: { frameId: string; status: 'observed' | 'unavailable'; reason?: string };
}

/** Children of a prefix read not read yet, in the document of `frameId`. */
export interface StitchedUnread extends UnreadNode {
  frameId: string;
}

export type StitchedChild = StitchedNode | StitchedUnread;

export interface ElementView {
  ref: string;
  role: string;
  name: string;
  frame_id: string;
  visible: boolean;
  in_viewport: boolean;
  checked?: boolean | 'mixed';
  selected?: boolean;
  expanded?: boolean;
  disabled?: boolean;
  focused?: boolean;
  required?: boolean;
  has_value?: boolean;
  level?: number;
  href?: string;
}

export interface RefTarget {
  ref: string;
  frameId: string;
  backendNodeId: number;
  role: string;
  name: string;
}

export interface RenderContext {
  maxElements: number;
  /** What to hide wherever it appears (passwords and secrets typed through act, configured secret values). */
  secrets: readonly KnownSecret[];
  facts(frameId: string, backendNodeId: number): NodeFacts | undefined;
  /** A text node's layout box, where the page laid it out. */
  textBox(frameId: string, backendNodeId: number): Box | undefined;
  inViewport(frameId: string, box: Box): boolean;
  /** The box in CSS px of the tab's viewport (undefined when a frame above it was not read). */
  viewportBox?(frameId: string, box: Box): Box | undefined;
  /** The stable ref of a DOM node (same node, same document → same ref). */
  refFor(frameId: string, backendNodeId: number): string;
}

export interface Rendered {
  tree: string;
  elements: ElementView[];
  /** The visible text (always computed: diffs compare it; shown only with include_text). */
  text: string;
  truncated: boolean;
  targets: RefTarget[];
  /** Each visible element's box, by ref, in CSS px of the tab's viewport (observe include_boxes). */
  boxes: Map<string, Box>;
}

/** A part of a prefix read that an answer depends on and that was not read yet. */
export interface MissingPart {
  /** The frame whose document must be read further. */
  frameId: string;
}

/** The rendered tree, or (a prefix read) the part that must be read before it can be rendered. */
export type RenderOutcome = { rendered: Rendered } | { needs: MissingPart };

/** Roles that are interactive by themselves (links, buttons, form controls, ARIA widgets). */
export const INTERACTIVE_ROLES = new Set([
  'button',
  'link',
  'textbox',
  'searchbox',
  'checkbox',
  'radio',
  'switch',
  'combobox',
  'listbox',
  'option',
  'menuitem',
  'menuitemcheckbox',
  'menuitemradio',
  'tab',
  'slider',
  'spinbutton',
  'treeitem',
  'scrollbar',
  'PopUpButton',
  'ToggleButton',
  'DisclosureTriangle',
  'gridcell',
  'Date',
  'DateTime',
  'InputTime',
  'columnheader',
  'rowheader',
  'row',
]);
/**
 * Of those, the ones that count by their role only when focusable (grids and tables are often
 * static); otherwise they are judged like any element, by how they respond to clicks.
 */
const INTERACTIVE_WHEN_FOCUSABLE = new Set(['gridcell', 'columnheader', 'rowheader', 'row', 'scrollbar']);
/**
 * Wrappers that say nothing by themselves: folded away (their children take their place) when they
 * carry no ref and no name of their own (a name computed from their text is no name of their own:
 * the text is shown). Layout tables are tables used for layout, not data.
 */
const FOLDED_ROLES = new Set([
  'generic',
  'none',
  'presentation',
  'LabelText',
  'paragraph',
  'Section',
  'group',
  'StaticText',
  'LineBreak',
  'MenuListPopup',
  'Canvas',
  'Pre',
  'Abbr',
  'Ruby',
  'emphasis',
  'strong',
  'Mark',
  'superscript',
  'subscript',
  'time',
  'code',
  'deletion',
  'insertion',
  'RootWebArea',
  'Legend',
  'rowgroup',
  'LayoutTable',
  'LayoutTableRow',
  'LayoutTableCell',
  'LayoutTableColumn',
]);
/**
 * Containers that only place their contents (a cell in its row, an item in its list): when one
 * shows no name, no state and no ref, and holds one line, that line takes its place.
 */
const FOLDED_WHEN_SINGLE = new Set(['cell', 'gridcell', 'columnheader', 'rowheader', 'listitem']);
/** Of those, the ones that become a text line when all they hold is their text (headers stay headers). */
const TEXT_WHEN_ONLY_TEXT = new Set(['cell', 'gridcell', 'listitem']);
/**
 * Elements whose click listeners are page-wide delegation (or, for a label, its control's), never
 * a control of their own.
 */
const NEVER_CLICKABLE_TAGS = new Set(['HTML', 'BODY', '#document', 'LABEL']);
/**
 * Roles whose content is a value (what the user typed or chose): never read out. Chromium's date
 * and time inputs are one control each; their inner fields and picker button are its parts.
 */
const VALUE_ROLES = new Set(['textbox', 'searchbox', 'spinbutton', 'slider', 'Date', 'DateTime', 'InputTime']);

/**
 * Folded wrappers that sit inside a line of text (a <b> in a sentence, a token of highlighted
 * code): their text joins the text around them. Every other folded wrapper is a block, which
 * starts and ends a line.
 */
const INLINE_ROLES = new Set([
  'emphasis',
  'strong',
  'code',
  'Mark',
  'superscript',
  'subscript',
  'time',
  'deletion',
  'insertion',
  'Abbr',
  'Ruby',
  'LabelText',
]);
/**
 * Elements laid out inline by default, for wrappers Chromium calls `generic` (a <span> with an id, a
 * <div>): the tag says whether it is a block. An unknown tag (a custom element) counts as a block,
 * which keeps its text on lines of its own.
 */
const INLINE_TAGS = new Set([
  'SPAN',
  'A',
  'B',
  'I',
  'U',
  'S',
  'EM',
  'STRONG',
  'SMALL',
  'BIG',
  'CODE',
  'KBD',
  'SAMP',
  'VAR',
  'TT',
  'MARK',
  'SUB',
  'SUP',
  'TIME',
  'ABBR',
  'CITE',
  'DFN',
  'Q',
  'DATA',
  'BDI',
  'BDO',
  'LABEL',
  'FONT',
  'INS',
  'DEL',
  'STRIKE',
  'NOBR',
  'RUBY',
  'RT',
  'RP',
  'WBR',
]);

/** A <select> (a combobox that takes no typing): its options are listed, its value is not. */
export function isSelect(node: Pick<AxViewNode, 'role' | 'states'>): boolean {
  return node.role === 'combobox' && !node.states.editable;
}

/**
 * The state words of a line. Defaults are left out: a checkbox or radio without `checked` is
 * unchecked, a <select> is collapsed until opened and always has a value, and a list item's level
 * is its nesting, which the indentation shows. The `elements` list keeps every field.
 */
export function stateWords(node: Pick<StitchedNode, 'role' | 'states'>, element: ElementView | undefined, insideSelect: boolean): string[] {
  const s = node.states;
  const words: string[] = [];
  if (s.checked === true) words.push('checked');
  else if (s.checked === 'mixed') words.push('mixed');
  if (s.pressed === true) words.push('pressed');
  // Which option of a <select> is chosen is its value: not shown.
  if (s.selected === true && !insideSelect) words.push('selected');
  if (s.expanded === true) words.push('expanded');
  else if (s.expanded === false && !isSelect(node)) words.push('collapsed');
  if (s.disabled) words.push('disabled');
  if (s.focused && node.role !== 'RootWebArea') words.push('focused');
  if (s.required) words.push('required');
  if (s.readonly && element) words.push('readonly');
  if (s.level !== undefined && node.role !== 'listitem') words.push(`level=${s.level}`);
  if (element?.has_value && !isSelect(node)) words.push('has_value');
  return words;
}

/**
 * Whether a node gets a ref by its role alone, wherever it stands (outside a <select>): what a
 * prefix read (ax-prefix.ts) counts to know it has read far enough. Refs from the page's facts (a
 * click listener, `cursor: pointer`) come on top, so the count is never more than the refs.
 */
export function refByRole(role: string, states: AxViewNode['states']): boolean {
  if (role === 'option') return false; // a <select>'s options get none
  if (INTERACTIVE_ROLES.has(role) && (!INTERACTIVE_WHEN_FOCUSABLE.has(role) || states.focusable === true)) return true;
  return VALUE_ROLES.has(role) || (states.editable === true && states.focusable === true);
}

/** A field whose content is its value: the render never goes into it (nor asks the facts of what is inside). */
export function isEditableContainer(node: Pick<AxViewNode, 'role' | 'states'>): boolean {
  return VALUE_ROLES.has(node.role) || (node.states.editable === true && node.states.focusable === true);
}

/**
 * Renders a stitched tree: the rendered page, or, when the answer reached a part of a prefix read
 * that was not read (an unread placeholder) before the element budget was spent, that part: what
 * the answer says would depend on it, so the read must go further first (observer.ts). A tree
 * without placeholders is always rendered.
 */
export function render(root: StitchedNode, context: RenderContext): RenderOutcome {
  return new TreeRenderer(context).render(root);
}

/** What encloses a node: it changes how the node is rendered. */
interface Enclosing {
  /** A node with a ref (a span inside a button is the button). */
  control: boolean;
  /** A <select> (its options get no ref, and which one is chosen is its value). */
  select: boolean;
  /** A <pre> (its text keeps its line breaks and spaces). */
  pre: boolean;
}

/** What a node line is made from, once the node's ref and children are known. */
interface NodeParts {
  ref: string | undefined;
  element: ElementView | undefined;
  /** The node's name, trimmed. */
  name: string;
  enclosing: Enclosing;
  /** Line-number gutters left out before the node's children were rendered. */
  guttersBefore: number;
}

/**
 * One render of one tree: it walks the tree once in document order, collecting refs, elements and
 * text as it goes, and stops at the element budget or at the first unread part.
 */
class TreeRenderer {
  readonly #context: RenderContext;
  readonly #textLines: TextLine[] = [];
  readonly #elements: ElementView[] = [];
  readonly #targets: RefTarget[] = [];
  readonly #boxes = new Map<string, Box>();
  /** Option lists already written out in this tree → the ref of the select that has them. */
  readonly #optionsListedAt = new Map<string, string>();
  /** Whether an element below each node has a basis for a ref (holdsRefs), once known. */
  readonly #refsBelow = new Map<StitchedNode, boolean>();
  /** Line-number gutters left out so far: a cell that held only one goes with it. */
  #gutters = 0;
  #truncated = false;
  /** Set once the element budget is spent: the rest of the document is not rendered. */
  #budgetSpent = false;
  /** Set at the first unread part the answer depends on: nothing more is rendered. */
  #missing: MissingPart | undefined;

  constructor(context: RenderContext) {
    this.#context = context;
  }

  render(root: StitchedNode): RenderOutcome {
    const top = this.#lines(root, { control: false, select: false, pre: false });
    if (this.#missing) return { needs: this.#missing };
    const lines: string[] = [];
    serialize(withoutEchoedLabels(top), 0, lines);
    const text = this.#textLines.filter((line) => !line.absorbed && line.text !== '').map((line) => line.text);
    return {
      rendered: {
        tree: lines.join('\n'),
        elements: this.#elements,
        text: text.join('\n'),
        truncated: this.#truncated,
        targets: this.#targets,
        boxes: this.#boxes,
      },
    };
  }

  /** Whether rendering stopped: the budget is spent, or a part that was not read was reached. */
  get #stopped(): boolean {
    return this.#budgetSpent || this.#missing !== undefined;
  }

  #scrub(text: string): string {
    return redactSecrets(text, this.#context.secrets);
  }

  /** Stops the render at an unread part of `frameId`'s document: it says what to read. */
  #reachedUnread(frameId: string): Line[] {
    this.#missing ??= { frameId };
    return [];
  }

  /**
   * The lines a node contributes: its own (with its children below), or, for a node that is
   * folded away, its children's. Refs, elements and text are collected in document order.
   */
  #lines(node: StitchedChild, enclosing: Enclosing): Line[] {
    if (node.unread) return this.#reachedUnread(node.frameId);
    if (node.role === 'StaticText') {
      // Spaces between two spans are text nodes of their own: kept, the run needs them. Chromium
      // keeps a line break in a name only where the page keeps it (a <pre>, `white-space: pre`).
      if (node.name === '') return [];
      return [this.#textLine(node.name, enclosing.pre || node.name.includes('\n'), node)];
    }
    if (node.role === 'LineBreak') return [this.#textLine('\n', enclosing.pre)];
    let ref: string | undefined;
    if (!enclosing.select && this.#wantsRef(node, enclosing.control)) {
      if (this.#missing) return [];
      if (this.#elements.length >= this.#context.maxElements) {
        this.#truncated = true;
        this.#budgetSpent = true;
        return [];
      }
      ref = this.#context.refFor(node.frameId, node.backendNodeId!);
      this.#targets.push({ ref, frameId: node.frameId, backendNodeId: node.backendNodeId!, role: node.role, name: node.name });
    }
    const element = ref ? this.#elementFor(node, ref) : undefined;
    if (element) this.#elements.push(element);
    const name = node.name.trim();
    // A list bullet says nothing a list does not (numbered markers are kept).
    if (node.role === 'ListMarker' && !ref && !/[\p{L}\p{N}]/u.test(name)) return [];
    const folded = node.role === 'RootWebArea' ||
      (!ref && (!name || node.nameFromContents === true) && FOLDED_ROLES.has(node.role) && !node.childFrame);

    const tag = this.#tagOf(node);
    const pre = node.role === 'Pre' || tag === 'PRE';
    const guttersBefore = this.#gutters;
    const children = this.#childLines(node, {
      control: enclosing.control || ref !== undefined,
      select: enclosing.select || isSelect(node),
      pre: enclosing.pre || pre,
    });
    if (folded) return this.#foldedLines(node, tag, pre, children);
    return this.#nodeLines(node, { ref, element, name, enclosing, guttersBefore }, closeBlock(children));
  }

  /** The lines of a node's children, runs joined; none for an editable field (its content is its value). */
  #childLines(node: StitchedNode, enclosing: Enclosing): Line[] {
    if (isEditableContainer(node)) return [];
    const children: Line[] = [];
    for (const child of node.children) {
      children.push(...this.#lines(child, enclosing));
      if (this.#stopped) break;
    }
    return joinRuns(children, (text) => this.#scrub(text));
  }

  /** The lines of a wrapper folded away: its children's, as a block unless it sits inside a line. */
  #foldedLines(node: StitchedNode, tag: string | undefined, pre: boolean, lines: Line[]): Line[] {
    const inline = INLINE_ROLES.has(node.role) ||
      ((node.role === 'generic' || node.role === 'none' || node.role === 'presentation') && tag !== undefined && INLINE_TAGS.has(tag));
    if (inline) return lines;
    const children = closeBlock(lines);
    if (!pre || children.length === 0) return children;
    // A <pre> is a block of lines whose breaks and spaces are its content: it keeps a line of
    // its own (`code` when it holds code), its lines below it. Line numbers in a column of
    // their own say nothing the order of the lines does not.
    if (isLineNumberGutter(children)) {
      for (const line of children) if (line.kind === 'text') line.absorbed = true;
      this.#gutters++;
      return [];
    }
    const holdsCode = node.children.some((child) => !child.unread && child.role === 'code');
    if (!holdsCode && node.children.some((child) => child.unread)) return this.#reachedUnread(node.frameId);
    return [{ kind: 'node', role: holdsCode ? 'code' : 'pre', name: '', words: [], children }];
  }

  /** A node's own line, with its children below it (or, for a cell or item, what takes its place). */
  #nodeLines(node: StitchedNode, parts: NodeParts, closed: Line[]): Line[] {
    const { ref, element, name, enclosing } = parts;
    const words = stateWords(node, element, enclosing.select);
    if (node.childFrame?.status === 'unavailable') words.push(`unavailable: ${node.childFrame.reason ?? 'not readable'}`);
    // A name computed from the contents repeats what the lines below say: a container without a
    // ref (a cell around a button) shows it only when nothing but its own text is below it, and
    // not when the element budget cut its contents short (they were not all seen).
    const fromContents = ref === undefined && node.nameFromContents === true;
    const showName = name !== '' && !(fromContents && (this.#stopped || closed.some((c) => c.kind === 'node')));
    let children = closed;
    // Text that the name already says (a button's label, a heading's words) is not repeated.
    // Compared without spaces: a run joins its spans as the page writes them, where the name has a
    // space between two spans that CSS lays out as blocks.
    if (showName) {
      const bare = name.replace(/\s+/g, '');
      children = children.filter((c) => c.kind !== 'text' || !bare.includes(c.raw.replace(/ /g, '')));
    }
    children = withoutEchoedLabels(children);
    if (isSelect(node) && this.#optionsOnItsLine(children, ref, words)) children = [];
    if (!ref && words.length === 0 && FOLDED_WHEN_SINGLE.has(node.role)) {
      // A cell or item holding only its text is that text (one line either way; the role adds
      // nothing the row or list does not say).
      // The cell of a line-number gutter goes with the gutter.
      if (children.length === 0 && this.#gutters > parts.guttersBefore) return [];
      if (showName && fromContents && children.length === 0 && TEXT_WHEN_ONLY_TEXT.has(node.role)) {
        const text = this.#scrub(flatten(name));
        return [{ kind: 'text', source: name, raw: flatten(name), text, pre: false, openStart: false, openEnd: false }];
      }
      // One that shows nothing itself and holds one line gives way to that line. An empty cell
      // keeps its line (it holds a column's place), unless the element budget emptied it.
      if (!showName && (children.length === 1 || (this.#stopped && children.length === 0))) return children;
    }
    const role = node.role === 'Iframe' ? 'iframe' : node.role;
    return [{ kind: 'node', role, name: showName ? this.#scrub(flatten(name)) : '', words, ref, children }];
  }

  /**
   * A <select>'s options on its line (added to `words`; true when they are): what a model needs
   * to pick one, without a line each, and a select with the same options as one above names that
   * select (`[options @5]`) instead of listing them again. Options with a state (disabled) or in
   * groups keep lines of their own.
   */
  #optionsOnItsLine(children: readonly Line[], ref: string | undefined, words: string[]): boolean {
    if (
      children.length === 0 ||
      !children.every((c) => c.kind === 'node' && c.role === 'option' && c.words.length === 0 && c.children.length === 0)
    ) {
      return false;
    }
    const options = children.map((c) => quote(clip(c.kind === 'node' ? c.name : '', MAX_NAME))).join(', ');
    const same = this.#optionsListedAt.get(options);
    words.push(same ? `options ${same}` : `options: ${options}`);
    if (!same && ref) this.#optionsListedAt.set(options, ref);
    return true;
  }

  #tagOf(node: StitchedNode): string | undefined {
    return node.backendNodeId === undefined ? undefined : this.#context.facts(node.frameId, node.backendNodeId)?.nodeName;
  }

  #textLine(source: string, pre: boolean, node?: StitchedNode): TextLine {
    const line: TextLine = {
      kind: 'text',
      source,
      raw: flatten(source),
      text: this.#scrub(shownLines(source, pre)),
      pre,
      openStart: true,
      openEnd: true,
    };
    const box = node?.backendNodeId === undefined ? undefined : this.#context.textBox(node.frameId, node.backendNodeId);
    if (box) line.firstBox = line.lastBox = box;
    this.#textLines.push(line);
    return line;
  }

  /**
   * Why a node would carry a ref wherever it stood (whatever the element budget, with no control
   * around it): its role (or an editable field), the page's facts about it (a click listener, its
   * own `cursor: pointer`, drag and drop), or nothing.
   */
  #refBasis(node: StitchedNode): { role: true } | { facts: NodeFacts } | undefined {
    if (node.backendNodeId === undefined || node.role === 'StaticText' || node.role === 'RootWebArea') return undefined;
    if (INTERACTIVE_ROLES.has(node.role) && (!INTERACTIVE_WHEN_FOCUSABLE.has(node.role) || node.states.focusable === true)) {
      return { role: true };
    }
    if (isEditableContainer(node)) return { role: true };
    const facts = this.#context.facts(node.frameId, node.backendNodeId);
    if (!facts || NEVER_CLICKABLE_TAGS.has(facts.nodeName)) return undefined;
    return facts.ownPointer || facts.clickable || facts.dragAndDrop ? { facts } : undefined;
  }

  /**
   * Whether an element below the node, in the node's own document, has a basis for a ref: the
   * same as whether one below it gets a ref (the innermost such always does), but decided on the
   * whole tree, not on what the element budget lets through, so that a truncated observation
   * gives the refs of a full one, cut short. Iframes' documents are left out: their clicks never
   * reach a listener of this one. Computed once a node. An unread part met first stops the render.
   */
  #holdsRefs(node: StitchedNode): boolean {
    const known = this.#refsBelow.get(node);
    if (known !== undefined) return known;
    let found = false;
    for (const child of node.children) {
      if (child.unread) {
        this.#reachedUnread(child.frameId);
        return false;
      }
      if (child.frameId !== node.frameId) continue;
      if (this.#refBasis(child) !== undefined || this.#holdsRefs(child)) {
        found = true;
        break;
      }
      if (this.#missing) return false;
    }
    this.#refsBelow.set(node, found);
    return found;
  }

  #wantsRef(node: StitchedNode, insideControl: boolean): boolean {
    const basis = this.#refBasis(node);
    if (!basis) return false;
    if ('role' in basis) return true;
    const { facts } = basis;
    if (facts.dragAndDrop) return true;
    if (insideControl) return false; // a span inside a button is the button
    // A pointer cursor set on the element itself shows it clickable as a whole. A listener alone
    // on an element that holds controls is delegation for them (a framework's root, a list
    // dispatching its items' clicks): the controls are what to click, not the space around them.
    return facts.ownPointer || !this.#holdsRefs(node);
  }

  #elementFor(node: StitchedNode, ref: string): ElementView {
    const context = this.#context;
    const facts = node.backendNodeId === undefined ? undefined : context.facts(node.frameId, node.backendNodeId);
    const box = facts?.box;
    const visible = box !== undefined && box[2] > 0 && box[3] > 0;
    const onScreen = visible ? context.viewportBox?.(node.frameId, box) : undefined;
    if (onScreen) this.#boxes.set(ref, onScreen);
    return elementView(node, ref, { visible, inViewport: visible && context.inViewport(node.frameId, box) }, this.#context.secrets);
  }
}

/** The `elements` entry of a node with a ref: its states as the wire gives them, its name redacted and clipped. */
export function elementView(
  node: Pick<StitchedNode, 'role' | 'name' | 'states' | 'frameId'>,
  ref: string,
  where: { visible: boolean; inViewport: boolean },
  secrets: readonly KnownSecret[],
): ElementView {
  const s = node.states;
  const element: ElementView = {
    ref,
    role: node.role,
    name: clip(redactSecrets(node.name, secrets), MAX_NAME),
    frame_id: node.frameId,
    visible: where.visible,
    in_viewport: where.inViewport,
  };
  if (s.checked !== undefined) element.checked = s.checked;
  if (s.selected !== undefined) element.selected = s.selected;
  if (s.expanded !== undefined) element.expanded = s.expanded;
  if (s.disabled) element.disabled = true;
  if (s.focused) element.focused = true;
  if (s.required) element.required = true;
  if (isEditableContainer(node) || node.role === 'combobox' || node.role === 'listbox') element.has_value = s.hasValue === true;
  if (s.level !== undefined) element.level = s.level;
  if (node.role === 'link' && s.url) element.href = redactUrl(s.url);
  return element;
}
