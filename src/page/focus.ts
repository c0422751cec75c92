// Focusing a field in its own world and preparing it for typing, in one call.
import { isSameConnectedNode } from './identity.ts';
import { armInputWait } from './settle.ts';

/** What to do to a field once focus is confirmed on it, before typing. */
export type Preparation = 'none' | 'select' | 'caret_end';

export interface Focused {
  /** Focus is on the node, through any shadow roots, in a document that has focus. */
  focused: boolean;
  password: boolean;
  /** The origin of the node's document, as the page's own `origin` says it. */
  origin: string;
  /** With 'select': what was selected ('empty', 'selected', 'readonly', 'other' or `input:<type>`). */
  contents?: string;
}

/**
 * Focuses the node, confirms focus is on it and only then prepares it, so nothing is selected in
 * a field that did not keep the focus.
 */
export function focusAndPrepare(this: Element, preparation: Preparation): Focused {
  // In the isolated world: the page cannot have patched focus(). Same as DOM.focus (both run
  // Element::focus), one message less.
  (this as HTMLElement).focus();
  // deno-lint-ignore no-this-alias -- in-page code walks up from `this`
  let node: Element = this;
  let root = node.getRootNode() as Document | ShadowRoot;
  let focused = true;
  while (root instanceof ShadowRoot) {
    if (root.activeElement !== node) {
      focused = false;
      break;
    }
    node = root.host;
    root = node.getRootNode() as Document | ShadowRoot;
  }
  focused = focused && (root as Document).activeElement === node && (root as Document).hasFocus();
  const password = this instanceof HTMLInputElement && this.type === 'password';
  const origin = this.ownerDocument.defaultView?.origin ?? 'null';
  if (!focused) return { focused, password, origin };
  if (preparation === 'caret_end') {
    // Append: put the caret at the end rather than wherever a previous selection left it.
    const field = this as HTMLInputElement;
    if (typeof field.setSelectionRange === 'function' && typeof field.value === 'string') {
      try {
        field.setSelectionRange(field.value.length, field.value.length);
      } catch {
        // types without a selection API (email, number) keep their caret
      }
    }
    return { focused, password, origin };
  }
  if (preparation !== 'select') return { focused, password, origin };
  if (this instanceof HTMLInputElement || this instanceof HTMLTextAreaElement) {
    const textual = this instanceof HTMLTextAreaElement ||
      ['', 'text', 'search', 'url', 'tel', 'email', 'password', 'number'].includes(this.type);
    if (!textual) return { focused, password, origin, contents: `input:${this.type}` };
    if (this.readOnly || this.disabled) return { focused, password, origin, contents: 'readonly' };
    this.select();
    return { focused, password, origin, contents: this.value === '' ? 'empty' : 'selected' };
  }
  if ((this as HTMLElement).isContentEditable) {
    const range = document.createRange();
    range.selectNodeContents(this);
    const selection = getSelection();
    selection?.removeAllRanges();
    selection?.addRange(range);
    return { focused, password, origin, contents: this.textContent === '' ? 'empty' : 'selected' };
  }
  return { focused, password, origin, contents: 'other' };
}

/**
 * First the node check of identity.ts, touching nothing when it fails ('detached'); then
 * focusAndPrepare; then, when `armInput` and focus took, armInputWait.
 */
export function focusPrepared(
  this: Element,
  preparation: Preparation,
  sameDocument: Document,
  armInput: boolean,
): Focused | 'detached' {
  if (!isSameConnectedNode.call(this, sameDocument)) return 'detached';
  const focused = focusAndPrepare.call(this, preparation);
  if (armInput && focused.focused) armInputWait.call(this);
  return focused;
}
