// PURE: one document's `Accessibility.getFullAXTree` payload → a tree without Chromium's noise.
// The payload is not in DOM order and hangs non-ignored nodes off ignored ones, so the tree is
// rebuilt from the root through childIds, ignored nodes are spliced out (their children move up)
// and InlineTextBox nodes dropped.
//
// Names are Chromium's computed names with one exception (PROTOCOL.md §11, no input values): a name
// computed from text that holds a form control takes that control's value with it (a table cell
// around a text field is named after what was typed in it, a <label> wrapping two controls names
// one after the other's value, aria-labelledby may point at a field). Such a name is rebuilt here
// from the same text with every control's value left out; see SafeNames.
import type { Cdp } from '../../protocol/generated/cdp.ts';

export interface AxStates {
  checked?: boolean | 'mixed';
  selected?: boolean;
  expanded?: boolean;
  disabled?: boolean;
  focused?: boolean;
  focusable?: boolean;
  required?: boolean;
  pressed?: boolean | 'mixed';
  readonly?: boolean;
  level?: number;
  /** Editable text (input, textarea, contenteditable root): its content is a value, never shown. */
  editable?: boolean;
  /** A value is set (its content is never read out). */
  hasValue?: boolean;
  /** A link's target (unredacted here; redacted when rendered). */
  url?: string;
}

export interface AxViewNode {
  role: string;
  name: string;
  backendNodeId: number | undefined;
  states: AxStates;
  children: AxChild[];
  /** Never set: what tells a node from an UnreadNode among a node's children. */
  unread?: never;
  /**
   * The name was computed from the node's contents (its text and its descendants' names), so the
   * rendered children already say it. From Chromium's name sources; when a payload carries none
   * (a node kept without them), presumed from the role.
   */
  nameFromContents?: boolean;
}

const DROPPED_ROLES = new Set(['InlineTextBox']);

/**
 * Where a prefix read (ax-prefix.ts) left a node's children unread: one placeholder stands for
 * them, where they would be. Rendering one means the read must go further (render.ts answers
 * `{ needs }`).
 */
export interface UnreadNode {
  unread: true;
}

/** A node's child in the tree: a node, or (a prefix read) the placeholder of children not read yet. */
export type AxChild = AxViewNode | UnreadNode;

/**
 * Whether a node's kept views hold a placeholder: kept views are either whole (none anywhere
 * below) or those of a node none of whose children was read (a placeholder right below).
 */
function holdsPlaceholder(views: readonly AxChild[]): boolean {
  return views.some((view) => view.unread || view.children.some((child) => child.unread));
}

/**
 * Controls whose content is a value (typed, chosen or set by the user): the accessible-name
 * algorithm puts that value into the name of a container or label around them.
 */
const VALUE_CONTROL_ROLES = new Set([
  'textbox',
  'searchbox',
  'spinbutton',
  'slider',
  'combobox',
  'listbox',
  'Date',
  'DateTime',
  'InputTime',
  'ColorWell',
]);

/**
 * Roles Chromium names from their contents (ARIA's "name from: contents" roles plus its own);
 * only used when a node comes without name sources.
 */
const CONTENTS_NAMED_ROLES = new Set([
  'button',
  'cell',
  'gridcell',
  'checkbox',
  'columnheader',
  'rowheader',
  'heading',
  'link',
  'menuitem',
  'menuitemcheckbox',
  'menuitemradio',
  'option',
  'radio',
  'row',
  'switch',
  'tab',
  'tooltip',
  'treeitem',
  'term',
  'DisclosureTriangle',
  'ListMarker',
  'PopUpButton',
  'ToggleButton',
  'LayoutTableCell',
  'StaticText',
]);

type AXNode = Cdp.Accessibility.AXNode;
type AXValueSource = Cdp.Accessibility.AXValueSource;

/** The source Chromium took the name from: the first one with a value that is not superseded. */
function nameSourceOf(node: AXNode): AXValueSource | undefined {
  return node.name?.sources?.find((source) => !source.superseded && source.value?.value !== undefined && source.value.value !== '');
}

function isValueControl(node: AXNode): boolean {
  if (node.ignored) return false;
  if (VALUE_CONTROL_ROLES.has(String(node.role?.value ?? ''))) return true;
  // contenteditable content ("plaintext" / "richtext"): what is in it is typed text.
  for (const property of node.properties ?? []) {
    if (property.name === 'editable') return typeof property.value.value === 'string' && property.value.value !== '';
  }
  return false;
}

function flatten(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/**
 * Names without input values (PROTOCOL.md §11). A name Chromium computed from contents or from
 * related elements (<label>, aria-labelledby, <legend>, <caption>) that hold a value control is
 * rebuilt from the same nodes: their text, the names of descendants named otherwise (aria-label,
 * alt), and nothing from any value control. Every other name is Chromium's.
 */
class SafeNames {
  readonly #byId: ReadonlyMap<string, AXNode>;
  #byBackendMap: Map<number, AXNode> | undefined;
  #parentMap: Map<string, AXNode> | undefined;
  readonly #valueBelow = new Map<string, boolean>();
  readonly #names = new Map<string, string>();
  readonly #computing = new Set<string>();
  /** Nodes whose name was worked out from other nodes (labels, descendants), not taken as Chromium gave it. */
  readonly #lookedAround = new Set<string>();

  constructor(byId: ReadonlyMap<string, AXNode>) {
    this.#byId = byId;
  }

  // Built on first use: most names never need them.
  get #byBackend(): Map<number, AXNode> {
    if (!this.#byBackendMap) {
      this.#byBackendMap = new Map();
      for (const node of this.#byId.values()) {
        if (node.backendDOMNodeId !== undefined && (!node.ignored || !this.#byBackendMap.has(node.backendDOMNodeId))) {
          this.#byBackendMap.set(node.backendDOMNodeId, node);
        }
      }
    }
    return this.#byBackendMap;
  }

  get #parent(): Map<string, AXNode> {
    if (!this.#parentMap) {
      this.#parentMap = new Map();
      for (const node of this.#byId.values()) for (const childId of node.childIds ?? []) this.#parentMap.set(childId, node);
    }
    return this.#parentMap;
  }

  #children(node: AXNode): AXNode[] {
    const out: AXNode[] = [];
    for (const id of node.childIds ?? []) {
      const child = this.#byId.get(id);
      if (child) out.push(child);
    }
    return out;
  }

  /** Whether a value control sits below the node (not counting `except` itself). */
  #hasValueControlBelow(node: AXNode, except?: AXNode): boolean {
    if (except === undefined) {
      const known = this.#valueBelow.get(node.nodeId);
      if (known !== undefined) return known;
      this.#valueBelow.set(node.nodeId, false); // a malformed payload must not loop forever
      let found = false;
      for (const id of node.childIds ?? []) {
        const child = this.#byId.get(id);
        if (child && (isValueControl(child) || this.#hasValueControlBelow(child))) {
          found = true;
          break;
        }
      }
      this.#valueBelow.set(node.nodeId, found);
      return found;
    }
    const seen = new Set<string>();
    const stack = this.#children(node);
    while (stack.length > 0) {
      const next = stack.pop()!;
      if (seen.has(next.nodeId)) continue;
      seen.add(next.nodeId);
      if (next === except) continue; // the named control itself: its own value is not in its name
      if (isValueControl(next)) return true;
      stack.push(...this.#children(next));
    }
    return false;
  }

  /** Whether the name came from contents: Chromium says so, or (without sources) the role usually does. */
  fromContents(node: AXNode): boolean {
    if (node.role?.value === 'StaticText') return true; // a text node is its text
    const sources = node.name?.sources;
    if (!sources) return CONTENTS_NAMED_ROLES.has(String(node.role?.value ?? ''));
    // nameSourceOf, unrolled: this runs for every named node.
    for (const source of sources) {
      if (source.superseded) continue;
      const value = source.value?.value;
      if (value !== undefined && value !== '') return source.type === 'contents';
    }
    return false;
  }

  /** The nodes a related-element name was computed from, when the payload says which. */
  #relatedNodes(node: AXNode): Array<{ node?: AXNode; text: string }> | undefined {
    if (node.name?.sources) {
      const source = nameSourceOf(node);
      if (source?.type !== 'relatedElement') return undefined;
      const related = source.attributeValue?.relatedNodes ?? source.nativeSourceValue?.relatedNodes ?? [];
      return related.map((r) => ({ node: this.#byBackend.get(r.backendDOMNodeId), text: r.text ?? '' }));
    }
    // Without sources: a <label> around the control, a <legend> or <caption> of the group or table.
    for (let up = this.#parent.get(node.nodeId); up; up = this.#parent.get(up.nodeId)) {
      if (up.role?.value === 'LabelText') return [{ node: up, text: '' }];
    }
    const role = node.role?.value;
    if (role === 'group' || role === 'table' || role === 'radiogroup') {
      const named = this.#children(node).find((c) => c.role?.value === 'Legend' || c.role?.value === 'caption');
      if (named) return [{ node: named, text: '' }];
    }
    return undefined;
  }

  /** The text of `root` as a name: text nodes and otherwise-named descendants, no value control, not `self`. */
  #textOf(root: AXNode, self: AXNode): string {
    const parts: string[] = [];
    const seen = new Set<string>();
    const walk = (node: AXNode, isRoot: boolean) => {
      if (seen.has(node.nodeId)) return;
      seen.add(node.nodeId);
      if (node.role?.value === 'InlineTextBox') return;
      if (!isRoot && node === self) return;
      if (isValueControl(node)) return;
      if (!node.ignored) {
        if (node.role?.value === 'StaticText') {
          parts.push(String(node.name?.value ?? ''));
          return;
        }
        if (!isRoot && node.name?.value && !this.fromContents(node)) {
          parts.push(this.name(node));
          return;
        }
      }
      for (const child of this.#children(node)) walk(child, false);
    };
    walk(root, true);
    return flatten(parts.join(' '));
  }

  /**
   * Whether the node's name was worked out from other nodes of the payload: in a document read in
   * part, nodes not read yet may change it, so its view is not kept for a later build.
   */
  lookedAround(node: AXNode): boolean {
    return this.#lookedAround.has(node.nodeId);
  }

  /** The node's name with no input value in it (`fromContents`: what fromContents says of it). */
  name(node: AXNode, fromContents = this.fromContents(node)): string {
    const chromium = String(node.name?.value ?? '');
    if (chromium === '' || node.role?.value === 'StaticText') return chromium;
    // The usual case, decided without the bookkeeping below: no value control where the name came from.
    if (fromContents && !isValueControl(node) && !this.#hasValueControlBelow(node)) return chromium;
    if (!fromContents && node.name?.sources && nameSourceOf(node)?.type !== 'relatedElement') return chromium;
    const known = this.#names.get(node.nodeId);
    if (known !== undefined) return known;
    this.#lookedAround.add(node.nodeId);
    if (this.#computing.has(node.nodeId)) return ''; // aria-labelledby cycles
    this.#computing.add(node.nodeId);
    let name = chromium;
    if (fromContents) {
      name = isValueControl(node) ? '' : this.#textOf(node, node);
    } else {
      const related = this.#relatedNodes(node);
      // aria-labelledby may point at the node itself: then its own value is part of the name.
      const leaks = related?.some((r) => r.node !== undefined && (isValueControl(r.node) || this.#hasValueControlBelow(r.node, node)));
      if (related && leaks) {
        // A related node the payload does not hold is taken at Chromium's word for it.
        name = flatten(related.map((r) => (r.node ? (r.node === node ? '' : this.#textOf(r.node, node)) : r.text)).join(' '));
      }
    }
    this.#computing.delete(node.nodeId);
    this.#names.set(node.nodeId, name);
    return name;
  }
}

function boolOf(value: unknown): boolean | undefined {
  if (value === true || value === 'true') return true;
  if (value === false || value === 'false') return false;
  return undefined;
}

function triState(value: unknown): boolean | 'mixed' | undefined {
  return value === 'mixed' ? 'mixed' : boolOf(value);
}

export function statesOf(node: Cdp.Accessibility.AXNode): AxStates {
  const states: AxStates = {};
  for (const property of node.properties ?? []) {
    const value = property.value.value;
    switch (property.name) {
      case 'checked':
        states.checked = triState(value);
        break;
      case 'pressed':
        states.pressed = triState(value);
        break;
      case 'selected':
      case 'expanded':
      case 'disabled':
      case 'focused':
      case 'focusable':
      case 'required':
      case 'readonly': {
        const flag = boolOf(value);
        if (flag !== undefined) states[property.name] = flag;
        break;
      }
      case 'level':
        if (typeof value === 'number') states.level = value;
        break;
      case 'editable':
        // "plaintext" / "richtext": the node holds user-editable content.
        if (typeof value === 'string' && value !== '') states.editable = true;
        break;
      case 'url':
        if (typeof value === 'string') states.url = value;
        break;
    }
  }
  const value = node.value?.value;
  if (value !== undefined && value !== null && value !== '') states.hasValue = true;
  return states;
}

/**
 * Builds the document's tree; returns undefined when the payload has no root. With `reuse`, a
 * node object seen in an earlier build gives the same result without being converted again: a
 * patched document (ax-document.ts) shares every node object whose subtree did not change.
 */
export function buildAxTree(
  nodes: readonly Cdp.Accessibility.AXNode[],
  reuse?: WeakMap<Cdp.Accessibility.AXNode, AxChild[]>,
): AxViewNode | undefined {
  const byId = new Map<string, Cdp.Accessibility.AXNode>();
  for (const node of nodes) byId.set(node.nodeId, node);
  const root = nodes.find((node) => node.parentId === undefined) ?? nodes[0];
  return root ? buildAxTreeFrom(byId, root, reuse) : undefined;
}

/**
 * The same, from nodes already keyed by id (a kept document: no copy of tens of thousands). With
 * `partial` (a prefix read, ax-prefix.ts), each child missing from `byId` becomes an UnreadNode
 * placeholder (a text node's InlineTextBoxes excepted: they are dropped anyway). A view with a
 * placeholder below it changes as its children are read, so `reuse` keeps the views whose subtree
 * was read whole, and those of nodes none of whose children was read, for as long as none is:
 * after a change on a large page read by prefix, the unchanged rows, read or not, keep their views
 * (and their stitched copies, stitch.ts) instead of being built again.
 */
export function buildAxTreeFrom(
  byId: ReadonlyMap<string, Cdp.Accessibility.AXNode>,
  root: Cdp.Accessibility.AXNode,
  reuse?: WeakMap<Cdp.Accessibility.AXNode, AxChild[]>,
  partial = false,
): AxViewNode | undefined {
  const visited = new Set<string>();
  const names = new SafeNames(byId);
  // The views of this build that may change as more is read: a placeholder below them, or a name
  // worked out from other nodes.
  const mayChange = new WeakSet<AxChild[]>();

  // Returns the visible nodes this AX node contributes: itself, or (when ignored) its children.
  const convert = (node: Cdp.Accessibility.AXNode): AxChild[] => {
    const known = reuse?.get(node);
    if (known && !holdsPlaceholder(known)) return known;
    if (known && partial && noneRead(node)) {
      mayChange.add(known);
      return known;
    }
    if (visited.has(node.nodeId)) return []; // a malformed payload must not loop forever
    visited.add(node.nodeId);
    const { views, unreadOnly } = convertOnce(node);
    if (!mayChange.has(views) || unreadOnly) reuse?.set(node, views);
    return views;
  };
  const noneRead = (node: Cdp.Accessibility.AXNode) => (node.childIds ?? []).every((id) => !byId.has(id));
  const convertOnce = (node: Cdp.Accessibility.AXNode): { views: AxChild[]; unreadOnly: boolean } => {
    const children: AxChild[] = [];
    let whole = true;
    let unreadOnly = true;
    const role = String(node.role?.value ?? '');
    for (const childId of node.childIds ?? []) {
      const child = byId.get(childId);
      if (child) {
        unreadOnly = false;
        const views = convert(child);
        if (mayChange.has(views)) whole = false;
        children.push(...views);
      } else if (partial && role !== 'StaticText') {
        children.push({ unread: true });
        whole = false;
      }
    }
    const views = viewsOf(node, role, children);
    const lookedAround = partial && names.lookedAround(node);
    if (!whole || lookedAround) mayChange.add(views);
    // None of its children read: it stays what it is until one is (its name, taken as Chromium
    // gave it, looked at nothing below).
    return { views, unreadOnly: !whole && unreadOnly && !lookedAround };
  };
  const viewsOf = (node: Cdp.Accessibility.AXNode, role: string, children: AxChild[]): AxChild[] => {
    if (DROPPED_ROLES.has(role)) return [];
    if (node.ignored) return children;
    const fromContents = node.name?.value ? names.fromContents(node) : false;
    const view: AxViewNode = {
      role,
      name: names.name(node, fromContents),
      backendNodeId: node.backendDOMNodeId,
      states: statesOf(node),
      children,
    };
    if (view.name !== '' && fromContents) view.nameFromContents = true;
    return [view];
  };
  // A document's root is never ignored, so its first view is itself, never a placeholder.
  const [tree] = convert(root);
  return tree?.unread ? undefined : tree;
}
