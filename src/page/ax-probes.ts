// Where a prefix read of the accessibility tree (observe/ax-prefix.ts) asks first. Each
// getPartialAXTree names one element, its children and its ancestors with their child lists, so
// asking about the elements at the ends of the tree's paths reads every path in one call each,
// where reading the tree level by level takes a call per node that has children.

/**
 * The document, then the nodes a prefix read of its first `wanted` refs asks about first, in
 * document order (open shadow roots and slots as they render): each element without element
 * children or with text of its own (a control whose contents the page does not hold, such as a
 * select, counts as one; one that holds only a text is named by the text), until the elements
 * that likely get a ref number more than `wanted`, and
 * at most four per wanted ref. Not rendered subtrees are skipped. A guess from the DOM: the read
 * checks everything it asked about against the tree and reads on level by level where it falls
 * short, so a wrong guess costs calls, never an answer. `skip`: the first ones are left out (a
 * read further asked for them before).
 */
export function axProbes(wanted: number, skip = 0): Node[] {
  const refLike = 'a[href],button,input:not([type=hidden]),select,textarea,summary,[tabindex],[contenteditable=""],[contenteditable=true]';
  // Their accessibility children do not come from their element children.
  const opaque = new Set(['select', 'svg', 'math', 'iframe', 'frame', 'object', 'embed', 'video', 'audio', 'canvas', 'textarea', 'input']);
  const unrendered = new Set(['head', 'script', 'style', 'template', 'noscript', 'link', 'meta', 'title']);
  const probes: Node[] = [];
  const start = document.body ?? document.documentElement;
  const limit = wanted * 4;
  let refs = 0;
  const stack: Element[] = start ? [start] : [];
  while (stack.length > 0 && refs <= wanted && probes.length <= limit) {
    const element = stack.pop()!;
    if (unrendered.has(element.localName)) continue;
    // No box: not rendered, unless its children render in its place (display: contents).
    if (element.checkVisibility?.() === false && getComputedStyle(element).display !== 'contents') continue;
    if (element.matches(refLike) && element.checkVisibility?.({ visibilityProperty: true }) !== false) refs++;
    const slot = element.localName === 'slot' ? (element as HTMLSlotElement).assignedNodes({ flatten: true }) : [];
    const nodes: readonly Node[] = slot.length > 0 ? slot : [...(element.shadowRoot ?? element).childNodes];
    const children = nodes.filter((node): node is Element => node.nodeType === Node.ELEMENT_NODE);
    const texts = nodes.filter((node) => node.nodeType === Node.TEXT_NODE && (node as Text).data.trim() !== '');
    // An element that only holds a text is asked about through the text: the element may be
    // ignored (a span for styling), its text never is.
    if (!opaque.has(element.localName) && children.length === 0 && texts.length === 1) probes.push(texts[0]!);
    else if (opaque.has(element.localName) || children.length === 0 || texts.length > 0) probes.push(element);
    if (opaque.has(element.localName)) continue;
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!);
  }
  return [document, ...probes.slice(skip)];
}
