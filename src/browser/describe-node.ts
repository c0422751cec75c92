// A node as an agent would name it: its accessibility role and name, and its tag. A click's
// blocker and what it hit are described so (actions/hit.ts), and an observation's blockers too.
import type { CdpSession } from '../cdp/session.ts';

export interface NodeDescription {
  role: string;
  name: string;
  tag: string;
}

/**
 * Role, name and tag of a node, given by backendNodeId or as an object of a context, and whether
 * it is a pseudo-element (which describeOriginating names properly).
 */
export async function describeHit(
  session: CdpSession,
  node: { backendNodeId: number } | { objectId: string },
): Promise<{ hit: NodeDescription; pseudo: boolean; backendNodeId: number | undefined }> {
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
    backendNodeId,
  };
}
