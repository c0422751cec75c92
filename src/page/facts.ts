// The page's facts of the nodes a first look read (observe/prefix-facts.ts), taken in the page
// instead of a whole-document DOMSnapshot: each element's and text's layout box, whether it sets
// `cursor: pointer` itself, drag and drop, what decides whether it responds to clicks apart from
// listeners (which only CDP can see), in the order a snapshot lists them (the flat tree).

/**
 * One record per node of the answer, in the order of the nodes that follow it:
 * [nodeType, flags, x, y, width, height, control, nodeName], the box in the document's coordinates
 * (scroll included). `control`: for a label, the index (among the nodes) of its labelled control, or -1.
 */
export type FactRecord = [
  nodeType: number,
  flags: number,
  x: number,
  y: number,
  width: number,
  height: number,
  control: number,
  nodeName: string,
];

/** What pageFacts answers before its nodes (as JSON): a record per node; the document's scroll offset. */
export interface FactsAnswer {
  records: FactRecord[];
  scroll: [number, number];
}

/** What pseudoFacts answers of a pseudo-element: [1 when it sets `cursor: pointer` itself else 0, its type]. */
export type PseudoFact = [number, string];

/** Bits of FactRecord's flags (a function: only functions of the module reach the page). */
export function factBits() {
  return {
    /** A layout box (the snapshot's layout object). */
    box: 1,
    /** `cursor: pointer` set here and not inherited from a flat-tree parent that has a box. */
    ownPointer: 2,
    /** Responds to clicks whatever its listeners (a link, an enabled input, a main summary…). */
    activates: 4,
    /** A disabled form control: never clickable. */
    disabled: 8,
    /** Editable content (contenteditable, designMode): clickable. */
    editable: 16,
    /** A drag source or an inline drop target. */
    dragAndDrop: 32,
    /** The node lies inside a closed shadow tree (only named nodes can): the page cannot walk there. */
    closed: 64,
    /** Not walked: only what a label's control tells of it (activates, disabled). */
    controlOnly: 128,
    /**
     * A custom element with no open shadow root: it may hold a closed one, which the page cannot
     * see and only a snapshot lists (and the monitor must be handed it to see changes there).
     */
    mayHostClosed: 256,
  } as const;
}

import type { PseudoElement as Pseudo } from './pointer.ts';

/**
 * The facts of the document's elements and texts in flat-tree order (open shadow roots and slots as
 * they render), from the top up to and including `end` and everything inside it, leaving out what
 * lies inside `unread` (nodes whose children the read did not reach: only their own facts are
 * needed). Answers [FactsAnswer as JSON, ...nodes].
 */
export function pageFacts(end: Node | Pseudo | null, ...unread: Node[]): [string, ...Node[]] {
  const FACT = factBits();
  const nodes: Node[] = [];
  const records: FactRecord[] = [];
  const at = new Map<Node, number>();
  const { scrollX, scrollY } = globalThis;
  const up = (node: Node): Element | null => {
    const slot = (node as Element | Text).assignedSlot;
    if (slot) return slot;
    const parent = node.parentNode;
    if (parent instanceof ShadowRoot) return parent.host;
    return parent instanceof Element ? parent : null;
  };
  // A snapshot's cursor is its layout object's: an element without a box has none to pass on.
  const hasBox = (element: Element) => element.checkVisibility();
  const pointer = (element: Element) => getComputedStyle(element).cursor === 'pointer';
  const activates = (element: Element): boolean => {
    if (element instanceof HTMLAnchorElement || element instanceof HTMLAreaElement) return element.hasAttribute('href');
    if (element instanceof SVGAElement) {
      return element.hasAttribute('href') || element.hasAttributeNS('http://www.w3.org/1999/xlink', 'href');
    }
    if (element instanceof HTMLInputElement) return !element.matches(':disabled');
    if (element instanceof HTMLButtonElement) {
      return !element.matches(':disabled') && element.form !== null && (element.type === 'submit' || element.type === 'reset');
    }
    if (element instanceof HTMLElement && element.localName === 'summary') {
      const details = element.parentElement;
      return details instanceof HTMLDetailsElement && details.querySelector(':scope > summary') === element;
    }
    return false;
  };
  const indexOf = (node: Node): number => {
    let k = at.get(node);
    if (k === undefined) {
      k = nodes.length;
      nodes.push(node);
      at.set(node, k);
      records.push([node.nodeType, 0, 0, 0, 0, 0, -1, node.nodeName]);
    }
    return k;
  };
  const recordElement = (element: Element): void => {
    const k = indexOf(element);
    const record = records[k]!;
    let flags = 0;
    if (hasBox(element)) {
      flags |= FACT.box;
      const rect = element.getBoundingClientRect();
      record[2] = rect.x + scrollX;
      record[3] = rect.y + scrollY;
      record[4] = rect.width;
      record[5] = rect.height;
      const parent = up(element);
      if (pointer(element) && !(parent && hasBox(parent) && pointer(parent))) flags |= FACT.ownPointer;
    }
    if (activates(element)) flags |= FACT.activates;
    if (element.matches(':disabled')) flags |= FACT.disabled;
    if ((element as HTMLElement).isContentEditable) flags |= FACT.editable;
    if (element.getAttribute('draggable') === 'true' || element.hasAttribute('ondrop') || element.hasAttribute('ondragover')) {
      flags |= FACT.dragAndDrop;
    }
    const root = element.getRootNode();
    if (root instanceof ShadowRoot && root.mode === 'closed') flags |= FACT.closed;
    if (element.localName.includes('-') && element.shadowRoot === null) flags |= FACT.mayHostClosed;
    record[1] = flags;
    if (element instanceof HTMLLabelElement && element.control) {
      const control = element.control;
      const c = indexOf(control);
      records[k]![6] = c;
      // The control's own facts decide the label's: it may lie anywhere in the document.
      if (c > k) {
        records[c]![1] = FACT.controlOnly | (activates(control) ? FACT.activates : 0) | (control.matches(':disabled') ? FACT.disabled : 0) |
          ((control as HTMLElement).isContentEditable ? FACT.editable : 0);
      }
    }
  };
  const notInto = new Set<Node>(unread);
  const range = document.createRange();
  const recordText = (text: Text, always: boolean): void => {
    range.selectNodeContents(text);
    const laidOut = range.getClientRects().length > 0;
    // Spaces the layout collapsed away (between blocks, table rows) have no accessibility node
    // either: left out, they would only weigh on the answer. Should one be read after all, the
    // server finds it missing and takes the snapshot.
    if (!laidOut && !always && text.data.trim() === '') return;
    const record = records[indexOf(text)]!;
    if (!laidOut) return;
    const rect = range.getBoundingClientRect();
    record[1] = FACT.box;
    record[2] = rect.x + scrollX;
    record[3] = rect.y + scrollY;
    record[4] = rect.width;
    record[5] = rect.height;
  };
  const flatChildren = (node: Node): readonly Node[] => {
    if (node instanceof Element) {
      if (node.shadowRoot) return [...node.shadowRoot.childNodes];
      if (node instanceof HTMLSlotElement && node.getRootNode() instanceof ShadowRoot) {
        const assigned = node.assignedNodes();
        if (assigned.length > 0) return assigned;
      }
    }
    return [...node.childNodes];
  };
  // A node in a closed shadow tree is not on the walk: it stops after that tree's host instead.
  let stop: Node | null = end instanceof Node ? end : (end?.element ?? null);
  for (let root = stop?.getRootNode(); root instanceof ShadowRoot && root.mode === 'closed'; root = stop?.getRootNode()) stop = root.host;
  // Depth first, in document order. After `stop` and its subtree, the walk meets the later
  // children of its ancestors (what a prefix read has of the rest): it records those that hold
  // nothing (a field, an image, a text), without going into any.
  const stack: Array<{ node: Node; inside: boolean }> = [...document.childNodes].reverse().map((node) => ({ node, inside: false }));
  let passed = false;
  while (stack.length > 0) {
    const { node, inside } = stack.pop()!;
    const after = passed && !inside;
    if (after && (node.firstChild !== null || (node instanceof Element && node.shadowRoot))) continue;
    const isEnd = node === stop;
    if (node instanceof Element) recordElement(node);
    else if (node instanceof Text) recordText(node, false);
    else continue;
    if (after || notInto.has(node)) continue;
    if (isEnd) passed = true;
    // Template contents and iframe documents are not the flat tree's.
    if (!(node instanceof Element) || node instanceof HTMLTemplateElement) continue;
    const children = flatChildren(node);
    for (let i = children.length - 1; i >= 0; i--) stack.push({ node: children[i]!, inside: inside || isEnd });
  }
  const answer: FactsAnswer = { records, scroll: [scrollX, scrollY] };
  return [JSON.stringify(answer), ...nodes];
}

/**
 * Of each ::before or ::after a walk does not reach (the tree gives them no DOM children): whether it
 * sets `cursor: pointer` itself, and its type; null for anything else.
 */
export function pseudoFacts(...pseudos: Pseudo[]): Array<PseudoFact | null> {
  return pseudos.map((pseudo) => {
    const element = pseudo instanceof Node ? null : pseudo.element;
    if (!element) return null;
    // Its flat-tree parent is its element; it has a box (the read has a node for it).
    const inherited = element.checkVisibility() && getComputedStyle(element).cursor === 'pointer';
    const own = getComputedStyle(element, pseudo.type).cursor === 'pointer' && !inherited;
    return [own ? 1 : 0, pseudo.type];
  });
}
