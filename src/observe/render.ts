// PURE: a stitched accessibility tree (frames joined at their iframe nodes) → what a model reads:
// the indented tree text, the `elements` list, the visible page text, and the table of which ref
// names which DOM node. Refs go on interactive nodes in document order; values are never shown.
// The tree's format is described in docs/tree-format.md; each rule below says why.
import { redactSecrets, redactUrl } from '../util/redact.ts';
import type { AxViewNode } from './ax-tree.ts';
import type { Box, NodeFacts } from './page-facts.ts';

export interface StitchedNode extends AxViewNode {
  frameId: string;
  children: StitchedNode[];
  /** Set on iframe nodes: the frame whose document hangs here. */
  childFrame?: { frameId: string; status: 'observed' | 'unavailable'; reason?: string };
}

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
  /** Strings to hide wherever they appear (passwords typed through act). */
  secrets: readonly string[];
  facts(frameId: string, backendNodeId: number): NodeFacts | undefined;
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

/** Roles that are interactive by themselves (links, buttons, form controls, ARIA widgets). */
const INTERACTIVE_ROLES = new Set([
  'button', 'link', 'textbox', 'searchbox', 'checkbox', 'radio', 'switch', 'combobox', 'listbox',
  'option', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'tab', 'slider', 'spinbutton',
  'treeitem', 'scrollbar', 'PopUpButton', 'ToggleButton', 'DisclosureTriangle', 'gridcell', 'Date', 'DateTime', 'InputTime',
  'columnheader', 'rowheader', 'row',
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
  'generic', 'none', 'presentation', 'LabelText', 'paragraph', 'Section', 'group', 'StaticText',
  'LineBreak', 'MenuListPopup', 'Canvas', 'Pre', 'Abbr', 'Ruby', 'emphasis', 'strong', 'Mark',
  'superscript', 'subscript', 'time', 'code', 'deletion', 'insertion', 'RootWebArea', 'Legend',
  'rowgroup', 'LayoutTable', 'LayoutTableRow', 'LayoutTableCell', 'LayoutTableColumn',
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

const MAX_NAME = 150;
/**
 * Text lines are context for the refs around them, not the page's text (that is `text`, with
 * include_text): a long one keeps its start and its end, which leads into the link or control
 * after it.
 */
const MAX_TREE_TEXT = 80;
/** One space a level: the structure reads the same, and the bytes and tokens are fewer. */
const INDENT = ' ';

function flatten(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** `text` cut at UTF-16 index `at` without splitting a surrogate pair. */
function cutAt(text: string, at: number): number {
  const code = text.charCodeAt(at);
  return code >= 0xdc00 && code <= 0xdfff ? at - 1 : at;
}

function clip(text: string, max: number): string {
  const flat = flatten(text);
  return flat.length > max ? `${flat.slice(0, cutAt(flat, max - 1))}…` : flat;
}

/** Clips in the middle, at word boundaries where there are some: "start of it … end of it". */
function clipMiddle(text: string, max: number): string {
  const flat = flatten(text);
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

function quote(text: string): string {
  return JSON.stringify(text);
}

/** A <select> (a combobox that takes no typing): its options are listed, its value is not. */
function isSelect(node: StitchedNode): boolean {
  return node.role === 'combobox' && !node.states.editable;
}

/**
 * The state words of a line. Defaults are left out: a checkbox or radio without `checked` is
 * unchecked, a <select> is collapsed until opened and always has a value, and a list item's level
 * is its nesting, which the indentation shows. The `elements` list keeps every field.
 */
function stateWords(node: StitchedNode, element: ElementView | undefined, insideSelect: boolean): string[] {
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

/** One line of the tree to be: a text line, or a node line with the lines below it. */
type NodeLine = { kind: 'node'; role: string; name: string; words: string[]; ref?: string; children: Line[] };
type Line = { kind: 'text'; text: string; raw: string } | NodeLine;

/** At most this many nodes share a line (a run), so that a long toolbar stays readable. */
const MAX_RUN = 10;

/**
 * Drops a text line that only repeats the name of the control right after it (a <label>'s text
 * before the field it names): the control's own line already says it, and models pay per byte.
 */
function withoutEchoedLabels(lines: Line[]): Line[] {
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
function serialize(lines: readonly Line[], depth: number, out: string[]): void {
  const pad = INDENT.repeat(depth);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.kind === 'text') {
      out.push(`${pad}${quote(clipMiddle(line.text, MAX_TREE_TEXT))}`);
      continue;
    }
    if (joinable(line)) {
      const run = [nameAndRef(line)];
      for (let next = lines[i + 1]; run.length < MAX_RUN && next?.kind === 'node' && next.role === line.role && joinable(next); next = lines[i + 1]) {
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

export function render(root: StitchedNode, context: RenderContext): Rendered {
  const textLines: string[] = [];
  const elements: ElementView[] = [];
  const targets: RefTarget[] = [];
  const boxes = new Map<string, Box>();
  let truncated = false;
  const scrub = (text: string) => redactSecrets(text, context.secrets);

  const isEditableContainer = (node: StitchedNode) =>
    VALUE_ROLES.has(node.role) || (node.states.editable === true && node.states.focusable === true);

  /**
   * Why a node would carry a ref wherever it stood (whatever the element budget, with no control
   * around it): its role (or an editable field), the page's facts about it (a click listener, its
   * own `cursor: pointer`, drag and drop), or nothing.
   */
  const refBasis = (node: StitchedNode): { role: true } | { facts: NodeFacts } | undefined => {
    if (node.backendNodeId === undefined || node.role === 'StaticText' || node.role === 'RootWebArea') return undefined;
    if (INTERACTIVE_ROLES.has(node.role) && (!INTERACTIVE_WHEN_FOCUSABLE.has(node.role) || node.states.focusable === true)) return { role: true };
    if (isEditableContainer(node)) return { role: true };
    const facts = context.facts(node.frameId, node.backendNodeId);
    if (!facts || NEVER_CLICKABLE_TAGS.has(facts.nodeName)) return undefined;
    return facts.ownPointer || facts.clickable || facts.dragAndDrop ? { facts } : undefined;
  };

  // Whether an element below the node, in the node's own document, has a basis for a ref: the
  // same as whether one below it gets a ref (the innermost such always does), but decided on the
  // whole tree, not on what the element budget lets through, so that a truncated observation
  // gives the refs of a full one, cut short. Iframes' documents are left out: their clicks never
  // reach a listener of this one. Computed once a node, for this render only.
  const refsBelow = new Map<StitchedNode, boolean>();
  const holdsRefs = (node: StitchedNode): boolean => {
    const known = refsBelow.get(node);
    if (known !== undefined) return known;
    let found = false;
    for (const child of node.children) {
      if (child.frameId !== node.frameId) continue;
      if (refBasis(child) !== undefined || holdsRefs(child)) {
        found = true;
        break;
      }
    }
    refsBelow.set(node, found);
    return found;
  };

  const wantsRef = (node: StitchedNode, insideControl: boolean): boolean => {
    const basis = refBasis(node);
    if (!basis) return false;
    if ('role' in basis) return true;
    const { facts } = basis;
    if (facts.dragAndDrop) return true;
    if (insideControl) return false; // a span inside a button is the button
    // A pointer cursor set on the element itself shows it clickable as a whole. A listener alone
    // on an element that holds controls is delegation for them (a framework's root, a list
    // dispatching its items' clicks): the controls are what to click, not the space around them.
    return facts.ownPointer || !holdsRefs(node);
  };

  const elementFor = (node: StitchedNode, ref: string): ElementView => {
    const facts = node.backendNodeId === undefined ? undefined : context.facts(node.frameId, node.backendNodeId);
    const box = facts?.box;
    const visible = box !== undefined && box[2] > 0 && box[3] > 0;
    const s = node.states;
    const element: ElementView = {
      ref,
      role: node.role,
      name: clip(scrub(node.name), MAX_NAME),
      frame_id: node.frameId,
      visible,
      in_viewport: visible && context.inViewport(node.frameId, box),
    };
    const onScreen = visible ? context.viewportBox?.(node.frameId, box) : undefined;
    if (onScreen) boxes.set(ref, onScreen);
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
  };

  // Set once the element budget is spent: the rest of the document is not rendered.
  let stopped = false;
  /** Option lists already written out in this tree → the ref of the select that has them. */
  const optionsListedAt = new Map<string, string>();

  // The lines a node contributes: its own (with its children below), or, for a node that is
  // folded away, its children's. Refs, elements and text are collected in document order.
  const visit = (node: StitchedNode, insideControl: boolean, insideSelect: boolean): Line[] => {
    if (node.role === 'StaticText') {
      const raw = node.name.replace(/\s+/g, ' ').trim();
      if (!raw) return [];
      const text = scrub(raw);
      textLines.push(text);
      return [{ kind: 'text', text, raw }];
    }
    let ref: string | undefined;
    if (!insideSelect && wantsRef(node, insideControl)) {
      if (elements.length >= context.maxElements) {
        truncated = true;
        stopped = true;
        return [];
      }
      ref = context.refFor(node.frameId, node.backendNodeId!);
      targets.push({ ref, frameId: node.frameId, backendNodeId: node.backendNodeId!, role: node.role, name: node.name });
    }
    const element = ref ? elementFor(node, ref) : undefined;
    if (element) elements.push(element);
    const name = node.name.trim();
    // A list bullet says nothing a list does not (numbered markers are kept).
    if (node.role === 'ListMarker' && !ref && !/[\p{L}\p{N}]/u.test(name)) return [];
    const folded =
      node.role === 'RootWebArea' ||
      (!ref && (!name || node.nameFromContents === true) && FOLDED_ROLES.has(node.role) && !node.childFrame);

    let children: Line[] = [];
    // The content of an editable field is its value: never read it out.
    if (!isEditableContainer(node)) {
      const control = insideControl || ref !== undefined;
      const select = insideSelect || isSelect(node);
      for (const child of node.children) {
        children.push(...visit(child, control, select));
        if (stopped) break;
      }
    }
    if (folded) return children;

    const words = stateWords(node, element, insideSelect);
    if (node.childFrame?.status === 'unavailable') words.push(`unavailable: ${node.childFrame.reason ?? 'not readable'}`);
    // A name computed from the contents repeats what the lines below say: a container without a
    // ref (a cell around a button) shows it only when nothing but its own text is below it, and
    // not when the element budget cut its contents short (they were not all seen).
    const fromContents = ref === undefined && node.nameFromContents === true;
    const showName = name !== '' && !(fromContents && (stopped || children.some((c) => c.kind === 'node')));
    // Text that the name already says (a button's label, a heading's words) is not repeated.
    if (showName) children = children.filter((c) => c.kind !== 'text' || !name.includes(c.raw));
    children = withoutEchoedLabels(children);
    // A <select>'s options on its line: what a model needs to pick one, without a line each, and
    // a select with the same options as one above names that select (`[options @5]`) instead of
    // listing them again. Options with a state (disabled) or in groups keep lines of their own.
    if (isSelect(node) && children.length > 0 && children.every((c) => c.kind === 'node' && c.role === 'option' && c.words.length === 0 && c.children.length === 0)) {
      const options = children.map((c) => quote(clip(c.kind === 'node' ? c.name : '', MAX_NAME))).join(', ');
      const same = optionsListedAt.get(options);
      words.push(same ? `options ${same}` : `options: ${options}`);
      if (!same && ref) optionsListedAt.set(options, ref);
      children = [];
    }
    if (!ref && words.length === 0 && FOLDED_WHEN_SINGLE.has(node.role)) {
      // A cell or item holding only its text is that text (one line either way; the role adds
      // nothing the row or list does not say).
      if (showName && fromContents && children.length === 0 && TEXT_WHEN_ONLY_TEXT.has(node.role)) {
        const text = scrub(flatten(name));
        return [{ kind: 'text', text, raw: name }];
      }
      // One that shows nothing itself and holds one line gives way to that line. An empty cell
      // keeps its line (it holds a column's place), unless the element budget emptied it.
      if (!showName && (children.length === 1 || (stopped && children.length === 0))) return children;
    }
    const role = node.role === 'Iframe' ? 'iframe' : node.role;
    return [{ kind: 'node', role, name: showName ? scrub(flatten(name)) : '', words, ref, children }];
  };

  const lines: string[] = [];
  serialize(withoutEchoedLabels(visit(root, false, false)), 0, lines);
  return { tree: lines.join('\n'), elements, text: textLines.join('\n'), truncated, targets, boxes };
}
