// PURE: one document's `Accessibility.getFullAXTree` payload → a tree without Chromium's noise.
// The payload is not in DOM order and hangs non-ignored nodes off ignored ones, so the tree is
// rebuilt from the root through childIds, ignored nodes are spliced out (their children move up)
// and InlineTextBox nodes dropped.
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
  children: AxViewNode[];
}

const DROPPED_ROLES = new Set(['InlineTextBox']);

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

/** Builds the document's tree; returns undefined when the payload has no root. */
export function buildAxTree(nodes: readonly Cdp.Accessibility.AXNode[]): AxViewNode | undefined {
  const byId = new Map<string, Cdp.Accessibility.AXNode>();
  for (const node of nodes) byId.set(node.nodeId, node);
  const root = nodes.find((node) => node.parentId === undefined) ?? nodes[0];
  if (!root) return undefined;
  const visited = new Set<string>();

  // Returns the visible nodes this AX node contributes: itself, or (when ignored) its children.
  const convert = (node: Cdp.Accessibility.AXNode): AxViewNode[] => {
    if (visited.has(node.nodeId)) return []; // a malformed payload must not loop forever
    visited.add(node.nodeId);
    const children: AxViewNode[] = [];
    for (const childId of node.childIds ?? []) {
      const child = byId.get(childId);
      if (child) children.push(...convert(child));
    }
    const role = String(node.role?.value ?? '');
    if (DROPPED_ROLES.has(role)) return [];
    if (node.ignored) return children;
    return [
      {
        role,
        name: String(node.name?.value ?? ''),
        backendNodeId: node.backendDOMNodeId,
        states: statesOf(node),
        children,
      },
    ];
  };
  const [tree] = convert(root);
  return tree;
}
