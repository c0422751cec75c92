// PURE: a stitched accessibility tree (frames joined at their iframe nodes) → what a model reads:
// the indented tree text, the `elements` list, the visible page text, and the table of which ref
// names which DOM node. Refs go on interactive nodes in document order; values are never shown.
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
}

/** Roles that are interactive by themselves (links, buttons, form controls, ARIA widgets). */
const INTERACTIVE_ROLES = new Set([
  'button', 'link', 'textbox', 'searchbox', 'checkbox', 'radio', 'switch', 'combobox', 'listbox',
  'option', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'tab', 'slider', 'spinbutton',
  'treeitem', 'scrollbar', 'PopUpButton', 'ToggleButton', 'DisclosureTriangle', 'gridcell', 'Date', 'DateTime', 'InputTime',
  'columnheader', 'rowheader', 'row',
]);
/** Of those, the ones that only count when focusable (grids and tables are often static). */
const INTERACTIVE_WHEN_FOCUSABLE = new Set(['gridcell', 'columnheader', 'rowheader', 'row', 'scrollbar']);
/** Wrappers that say nothing by themselves: folded away when they carry no ref and no name. */
const FOLDED_ROLES = new Set([
  'generic', 'none', 'presentation', 'LabelText', 'paragraph', 'Section', 'group', 'StaticText',
  'LineBreak', 'MenuListPopup', 'Canvas', 'Pre', 'Abbr', 'Ruby', 'emphasis', 'strong', 'Mark',
  'superscript', 'subscript', 'time', 'code', 'deletion', 'insertion', 'RootWebArea', 'Legend',
]);
/** Elements whose click listeners are page-wide delegation, not a control of their own. */
const NEVER_CLICKABLE_TAGS = new Set(['HTML', 'BODY', '#document', 'LABEL']);
/**
 * Roles whose content is a value (what the user typed or chose): never read out. Chromium's date
 * and time inputs are one control each; their inner fields and picker button are its parts.
 */
const VALUE_ROLES = new Set(['textbox', 'searchbox', 'spinbutton', 'slider', 'Date', 'DateTime', 'InputTime']);

const MAX_NAME = 150;
const MAX_TREE_TEXT = 100;

function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

function quote(text: string): string {
  return JSON.stringify(text);
}

function stateWords(node: StitchedNode, element: ElementView | undefined, insideSelect: boolean): string[] {
  const s = node.states;
  const words: string[] = [];
  if (s.checked === true) words.push('checked');
  else if (s.checked === 'mixed') words.push('mixed');
  else if (s.checked === false && element) words.push('unchecked');
  if (s.pressed === true) words.push('pressed');
  // Which option of a <select> is chosen is its value: not shown.
  if (s.selected === true && !insideSelect) words.push('selected');
  if (s.expanded === true) words.push('expanded');
  else if (s.expanded === false) words.push('collapsed');
  if (s.disabled) words.push('disabled');
  if (s.focused && node.role !== 'RootWebArea') words.push('focused');
  if (s.required) words.push('required');
  if (s.readonly && element) words.push('readonly');
  if (s.level !== undefined) words.push(`level=${s.level}`);
  if (element?.has_value) words.push('has_value');
  return words;
}

/**
 * Drops a text line that only repeats the name of the control right after it (a <label>'s text
 * before the field it names): the control's own line already says it, and models pay per byte.
 */
function withoutEchoedLabels(lines: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const next = lines[i + 1];
    const label = /^(\s*)text (".*")$/.exec(line);
    if (label && next !== undefined && next.startsWith(label[1]!) && next.slice(label[1]!.length).includes(` ${label[2]}`) && !/^\s/.test(next.slice(label[1]!.length))) {
      const rest = next.slice(label[1]!.length);
      if (rest.indexOf(` ${label[2]}`) === rest.indexOf(' ')) continue;
    }
    out.push(line);
  }
  return out;
}

export function render(root: StitchedNode, context: RenderContext): Rendered {
  const lines: string[] = [];
  const textLines: string[] = [];
  const elements: ElementView[] = [];
  const targets: RefTarget[] = [];
  let truncated = false;
  const scrub = (text: string) => redactSecrets(text, context.secrets);

  const isEditableContainer = (node: StitchedNode) =>
    VALUE_ROLES.has(node.role) || (node.states.editable === true && node.states.focusable === true);

  const wantsRef = (node: StitchedNode, insideControl: boolean): boolean => {
    if (node.backendNodeId === undefined || node.role === 'StaticText' || node.role === 'RootWebArea') return false;
    if (INTERACTIVE_ROLES.has(node.role)) {
      return !INTERACTIVE_WHEN_FOCUSABLE.has(node.role) || node.states.focusable === true;
    }
    if (isEditableContainer(node)) return true;
    const facts = context.facts(node.frameId, node.backendNodeId);
    if (insideControl && !facts?.dragAndDrop) return false; // a span inside a button is the button
    if (!facts || NEVER_CLICKABLE_TAGS.has(facts.nodeName)) return false;
    return facts.ownPointer || facts.clickable || facts.dragAndDrop;
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

  // Returns false once the element budget is spent: the rest of the document is not rendered.
  const visit = (node: StitchedNode, depth: number, parentName: string, insideControl: boolean, insideSelect: boolean): boolean => {
    if (node.role === 'StaticText') {
      const text = node.name.replace(/\s+/g, ' ').trim();
      if (!text) return true;
      textLines.push(scrub(text));
      // Name computed from contents (buttons, links, headings) already says this text.
      if (parentName && parentName.includes(text)) return true;
      lines.push(`${'  '.repeat(depth)}text ${quote(clip(scrub(text), MAX_TREE_TEXT))}`);
      return true;
    }
    let ref: string | undefined;
    if (!insideSelect && wantsRef(node, insideControl)) {
      if (elements.length >= context.maxElements) {
        truncated = true;
        return false;
      }
      ref = context.refFor(node.frameId, node.backendNodeId!);
      targets.push({ ref, frameId: node.frameId, backendNodeId: node.backendNodeId!, role: node.role, name: node.name });
    }
    const element = ref ? elementFor(node, ref) : undefined;
    if (element) elements.push(element);
    const name = node.name.trim();
    const folded = node.role === 'RootWebArea' || (!ref && !name && FOLDED_ROLES.has(node.role) && !node.childFrame);
    let childDepth = depth;
    if (!folded) {
      const words = stateWords(node, element, insideSelect);
      if (node.childFrame) {
        words.push(`frame=${node.childFrame.frameId}`);
        if (node.childFrame.status === 'unavailable') words.push(`unavailable: ${node.childFrame.reason ?? 'not readable'}`);
      }
      const role = node.role === 'Iframe' ? 'iframe' : node.role;
      let line = `${'  '.repeat(depth)}${role}`;
      if (name) line += ` ${quote(clip(scrub(name), MAX_NAME))}`;
      if (words.length) line += ` [${words.join(', ')}]`;
      if (ref) line += ` ${ref}`;
      lines.push(line);
      childDepth = depth + 1;
    }
    // The content of an editable field is its value: never read it out.
    if (isEditableContainer(node)) return true;
    const control = insideControl || ref !== undefined;
    const select = insideSelect || (node.role === 'combobox' && !node.states.editable);
    const nameForChildren = folded ? parentName : name;
    for (const child of node.children) {
      if (!visit(child, childDepth, nameForChildren, control, select)) return false;
    }
    return true;
  };

  visit(root, 0, '', false, false);
  return { tree: withoutEchoedLabels(lines).join('\n'), elements, text: textLines.join('\n'), truncated, targets };
}
