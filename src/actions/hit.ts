// What a hit point means for a pointer action (PROTOCOL.md §7 step 7): whether the browser routes
// a click there to the target, and, when it does not, what real element is on top. A hit on a
// pseudo-element comes back from DOM.getNodeForLocation as the pseudo-element itself; resolved in
// our isolated world it is a CSSPseudoElement, whose `element` is the element it belongs to.
import type { FrameRecord } from '../browser/frame-tree.ts';
import type { IsolatedWorlds } from '../browser/isolated-worlds.ts';
import { callInWorld, pageFunction } from '../browser/page-function.ts';
import type { CdpSession } from '../cdp/session.ts';
import { type NodeHandle, release, resolveNode } from './node-handle.ts';
import type { HitDescription } from './outcome.ts';

/**
 * Where a click on a hit node goes: to the target (`target`), forwarded to it by its label
 * (`label`), or elsewhere: to an element, or to an element whose pseudo-element was hit.
 */
export type Reach = 'target' | 'label' | 'covered' | 'covered_by_pseudo';

/**
 * In page, `this` = the target. A pseudo-element is never an event target: its originating
 * element is. The target or a node inside it (up the flat tree: slots, parents, shadow hosts) is
 * the target. Otherwise the nearest <label> above the hit decides, unless interactive content of
 * its own (a link, a button…) comes first: a label forwards a click to its labelled control, but
 * not a click on such content, and an outer label forwards nothing from an inner one.
 */
export function clickReaches(this: Element, hit: object): Reach {
  const up = (node: Node): Node | null => (node as Element).assignedSlot ?? node.parentNode ?? (node as ShadowRoot).host ?? null;
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
  const start: Node | null = pseudo ? ((hit as { element?: Element }).element ?? null) : hit;
  for (let node = start; node; node = up(node)) if (node === this) return 'target';
  for (let node = start; node; node = up(node)) {
    if (node instanceof HTMLLabelElement) return node.control === this ? 'label' : 'covered';
    if (node instanceof Element && interactive(node)) break;
  }
  return pseudo ? 'covered_by_pseudo' : 'covered';
}

/** In page: the element a CSSPseudoElement belongs to. */
function originatingElement(this: { element?: Element }): Element | null {
  return this.element ?? null;
}

/**
 * Role, name and tag of a node, given by backendNodeId or as an object of a context, and whether
 * it is a pseudo-element (which describeOriginating names properly).
 */
export async function describeHit(
  session: CdpSession,
  node: { backendNodeId: number } | { objectId: string },
): Promise<{ hit: HitDescription; pseudo: boolean }> {
  const [ax, described] = await Promise.all([
    session.send('Accessibility.getPartialAXTree', { ...node, fetchRelatives: true }).catch(() => ({ nodes: [] })),
    session.send('DOM.describeNode', node).catch(() => undefined),
  ]);
  const backendNodeId = described?.node.backendNodeId;
  const byId = new Map(ax.nodes.map((n) => [n.nodeId, n]));
  // The node itself may be ignored (a bare div, a label whose text names its control); then its
  // nearest ancestor that is not says what it is (the page itself says nothing).
  let named = ax.nodes.find((n) => n.backendDOMNodeId === backendNodeId);
  while (named?.ignored) named = named.parentId === undefined ? undefined : byId.get(named.parentId);
  if (named?.role?.value === 'RootWebArea') named = undefined;
  let name = String(named?.name?.value ?? '');
  // A label has no name of its own: its text (the name it gives its control) says which it is.
  if (named?.role?.value === 'LabelText' && !name) {
    name = ax.nodes
      .filter((n) => n.parentId === named!.nodeId && n.role?.value === 'StaticText')
      .map((n) => String(n.name?.value ?? ''))
      .join(' ');
  }
  return {
    hit: {
      role: String(named?.role?.value ?? 'generic'),
      name,
      tag: (described?.node.localName || described?.node.nodeName || '').toLowerCase(),
    },
    pseudo: described?.node.pseudoType !== undefined,
  };
}

/** A hit pseudo-element (a handle in our world) described as the element it belongs to. */
export async function describeOriginating(pseudo: NodeHandle): Promise<HitDescription | undefined> {
  const { result } = await callInWorld(pseudo.session, pseudo.executionContextId, pageFunction(originatingElement), {
    objectId: pseudo.objectId,
  });
  if (!result.objectId) return undefined;
  try {
    return (await describeHit(pseudo.session, { objectId: result.objectId })).hit;
  } finally {
    pseudo.session.send('Runtime.releaseObject', { objectId: result.objectId }).catch(() => {});
  }
}

/** What was hit in `frame` (by a point over one of its out-of-process iframes), as a real element. */
export async function describeInFrame(worlds: IsolatedWorlds, frame: FrameRecord, backendNodeId: number): Promise<HitDescription> {
  const described = await describeHit(frame.session, { backendNodeId });
  if (!described.pseudo) return described.hit;
  try {
    const context = await worlds.contextFor(frame.session, frame.id, frame.loaderId);
    const handle = await resolveNode(frame.session, backendNodeId, context);
    try {
      return (await describeOriginating(handle)) ?? described.hit;
    } finally {
      release(handle);
    }
  } catch {
    return described.hit;
  }
}
