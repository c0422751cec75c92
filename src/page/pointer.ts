// Where a click lands: scrolling a node to the centre, a control's labels, and whether a hit
// node passes a click on to the target.
import { isSameConnectedNode } from './identity.ts';

/** What DOM.resolveNode gives for a pseudo-element's backendNodeId (a CSSPseudoElement). */
export interface PseudoElement {
  readonly type: string;
  readonly element: Element | null;
}

/**
 * Where a click on a hit node goes: to the target (`target`), forwarded to it by its label
 * (`label`), or elsewhere: to an element, or to an element whose pseudo-element was hit. Nowhere
 * that matters when the target is no longer the observed node (`detached`).
 */
export type Reach = 'target' | 'label' | 'covered' | 'covered_by_pseudo' | 'detached';

export function scrollIntoCenter(this: Element): void {
  this.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' });
}

/** A labelable control's labels in tree order (its own tree), or null when it has none. */
export function labelsOf(this: Element): HTMLLabelElement[] | null {
  const labels = (this as Partial<HTMLInputElement>).labels;
  return labels && labels.length > 0 ? [...labels] : null;
}

/**
 * `this` = the target, which must still be connected to `sameDocument` (identity.ts), checked in
 * this same call: a replaced target is `detached`, whatever was hit (a new node drawn where it was,
 * say). A pseudo-element is never an event target: its originating
 * element is. The target or a node inside it (up the flat tree: slots, parents, shadow hosts) is
 * the target. Otherwise the nearest <label> above the hit decides, unless interactive content of
 * its own (a link, a button…) comes first: a label forwards a click to its labelled control, but
 * not a click on such content, and an outer label forwards nothing from an inner one.
 */
export function clickReaches(this: Element, hit: Node | PseudoElement, sameDocument: Document): Reach {
  if (!isSameConnectedNode.call(this, sameDocument)) return 'detached';
  const up = flatTreeParent;
  // The HTML spec's interactive content, as Chromium's label activation tests it.
  const interactive = (element: Element): boolean => {
    if (element instanceof HTMLAnchorElement) return element.hasAttribute('href');
    if (element instanceof HTMLInputElement) return element.type !== 'hidden';
    if (element instanceof HTMLImageElement || element instanceof HTMLObjectElement) return element.hasAttribute('usemap');
    if (element instanceof HTMLMediaElement) return element.controls;
    return [HTMLButtonElement, HTMLDetailsElement, HTMLEmbedElement, HTMLIFrameElement, HTMLSelectElement, HTMLTextAreaElement].some((
      type,
    ) => element instanceof type);
  };
  const pseudo = !(hit instanceof Node);
  // A CSSPseudoElement (resolved from a pseudo-element's backendNodeId) names its element.
  const start: Node | null = hit instanceof Node ? hit : hit.element;
  for (let node = start; node; node = up(node)) if (node === this) return 'target';
  for (let node = start; node; node = up(node)) {
    if (node instanceof HTMLLabelElement) return node.control === this ? 'label' : 'covered';
    if (node instanceof Element && interactive(node)) break;
  }
  return pseudo ? 'covered_by_pseudo' : 'covered';
}

/** The element a pseudo-element belongs to. */
export function originatingElement(this: PseudoElement): Element | null {
  return this.element ?? null;
}

/** The next node up the flat tree: a slotted node's slot, a shadow root's host. */
export function flatTreeParent(node: Node): Node | null {
  return (node as Element).assignedSlot ?? node.parentNode ?? (node as ShadowRoot).host ?? null;
}

/**
 * The blocker above `start` (docs/tree-format.md, "Blockers"): the nearest dialog above it (role
 * dialog or alertdialog, `<dialog>`, aria-modal), else the nearest fixed or sticky element above
 * it (a banner, an overlay's backdrop), else null.
 */
export function pinnedAbove(start: Node | null, known: Map<Node, Pinned> = new Map()): Element | null {
  // The nodes up to the first one whose answer is known (`known`, shared by the calls of one
  // in-page call that asks about many points: siblings share their ancestors' answers).
  const path: Node[] = [];
  let node = start;
  for (; node && !known.has(node); node = flatTreeParent(node)) path.push(node);
  let pinned: Pinned = node ? known.get(node)! : { element: null, dialog: false };
  // Down from the top: a dialog above wins over anything pinned below it; the nearest one wins.
  for (let i = path.length - 1; i >= 0; i--) {
    const at = path[i]!;
    if (at instanceof Element && at !== document.body && at !== document.documentElement) {
      const role = at.getAttribute('role');
      if (at instanceof HTMLDialogElement || role === 'dialog' || role === 'alertdialog' || at.getAttribute('aria-modal') === 'true') {
        pinned = { element: at, dialog: true };
      } else if (!pinned.dialog) {
        const position = getComputedStyle(at).position;
        if (position === 'fixed' || position === 'sticky') pinned = { element: at, dialog: false };
      }
    }
    known.set(at, pinned);
  }
  return pinned.element;
}

/** What pinnedAbove found above a node: the blocker, and whether it is a dialog. */
export interface Pinned {
  element: Element | null;
  dialog: boolean;
}

/**
 * `this` = a node a click hit instead of its target. The blocker it belongs to (pinnedAbove), else
 * the hit element itself.
 */
export function blockerOf(this: Node | PseudoElement): Element | null {
  const start: Node | null = this instanceof Node ? this : this.element;
  return pinnedAbove(start) ?? (start instanceof Element ? start : start?.parentElement ?? null);
}

/**
 * Which of `boxes` (elements' layout boxes in the viewport, CSS px) a blocker covers where a click
 * would land: a dialog or a pinned (fixed or sticky) element on top at the box's centre, outside
 * which the element lies (docs/tree-format.md, "Blockers"). The element is told in the stack of
 * elements at that point by its box, the same one the read measured: the page cannot be handed
 * every ref's node cheaply. A box whose centre is out of the viewport is left alone (an act
 * scrolls it first, and what covers it then is not known now). Answers
 * [{ covered: per box the index of its blocker or -1 } as JSON, blocker, its dismiss control or
 * null, …].
 */
export function coversAt(boxes: ReadonlyArray<readonly [number, number, number, number]>): [string, ...Array<Element | null>] {
  const inside = (node: Node, container: Element): boolean => {
    for (let at: Node | null = node; at; at = flatTreeParent(at)) if (at === container) return true;
    return false;
  };
  const sameBox = (element: Element, [x, y, width, height]: readonly number[]): boolean => {
    const rect = element.getBoundingClientRect();
    return Math.abs(rect.x - x!) < 1 && Math.abs(rect.y - y!) < 1 && Math.abs(rect.width - width!) < 1 &&
      Math.abs(rect.height - height!) < 1;
  };
  const blockers: Element[] = [];
  const pinnedOf = new Map<Node, Pinned>();
  const covered = boxes.map((box) => {
    const [x, y, width, height] = box;
    const cx = x + width / 2;
    const cy = y + height / 2;
    if (cx < 0 || cy < 0 || cx >= innerWidth || cy >= innerHeight) return -1;
    const stack = document.elementsFromPoint(cx, cy);
    const hit = stack[0];
    if (!hit) return -1;
    const blocker = pinnedAbove(hit, pinnedOf);
    if (!blocker) return -1;
    const element = stack.find((candidate) => sameBox(candidate, box));
    // Not found at its own centre (it lets the pointer through, or moved): nothing to say.
    if (!element || inside(element, blocker) || inside(hit, element)) return -1;
    const known = blockers.indexOf(blocker);
    return known >= 0 ? known : blockers.push(blocker) - 1;
  });
  return [JSON.stringify({ covered }), ...blockers.flatMap((blocker) => [blocker, dismissOf.call(blocker)])];
}

/**
 * `this` = a blocker. The visible control inside it that dismisses it (docs/tree-format.md,
 * "Blockers"): a button or link named to close it, else to refuse, else to accept; the first in
 * tree order of the first kind found.
 */
export function dismissOf(this: Element): Element | null {
  const KINDS = [
    // Not \b: after a sign such as × there is no word boundary to find, so a button that is only
    // "×" would never match; what may not follow is a letter or digit ("Closet", "x-ray").
    /^(close|dismiss|hide|×|✕|✖|x)(?![\p{L}\p{N}])/iu,
    /^(reject|deny|decline|refuse|no,? thanks|only necessary|necessary only|use necessary)/i,
    /^(accept|allow all|agree|i agree|ok\b|okay|got it|i understand)/i,
  ];
  const nameOf = (element: Element): string =>
    (element.getAttribute('aria-label') || element.getAttribute('title') ||
      (element instanceof HTMLInputElement ? element.value : element.textContent) || '').replace(/\s+/g, ' ').trim();
  const shown = (element: Element): boolean => element.getClientRects().length > 0 && getComputedStyle(element).visibility === 'visible';
  const controls = [...this.querySelectorAll('button, a[href], [role=button], input[type=button], input[type=submit]')].filter(shown);
  for (const kind of KINDS) {
    const found = controls.find((control) => kind.test(nameOf(control)));
    if (found) return found;
  }
  return null;
}
