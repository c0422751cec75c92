// Reaching a DOM node by backendNodeId in an isolated world of its frame, so that page scripts
// that patch prototypes (Node.prototype.contains, focus…) cannot fake our checks.
import { type CdpSession, SessionSlot } from '../cdp/session.ts';
import { PerContext } from '../browser/per-context.ts';
import { BoundedMap } from '../util/bounded-map.ts';

export interface NodeHandle {
  session: CdpSession;
  objectId: string;
  backendNodeId: number;
  /** The isolated world's context the node was resolved in. */
  executionContextId: number;
}

export async function resolveNode(
  session: CdpSession,
  backendNodeId: number,
  executionContextId: number,
): Promise<NodeHandle> {
  const { object } = await session.send('DOM.resolveNode', { backendNodeId, executionContextId });
  if (!object.objectId) throw new Error(`node ${backendNodeId} has no object`);
  return { session, objectId: object.objectId, backendNodeId, executionContextId };
}

/** Nodes kept resolved per context of our world, most recently used last. */
const KEPT_PER_CONTEXT = 32;
/**
 * By context, then document and backendNodeId (see keptKey), held by the CDP session whose objects
 * they are (a slot: gone with the session). Contexts of documents long gone are forgotten: their
 * objects are gone too.
 */
const KEPT = new SessionSlot(() => new PerContext<BoundedMap<string, Promise<NodeHandle>>>(() => new BoundedMap(KEPT_PER_CONTEXT), 64));

/**
 * A tab's session outlives its renderer process (a crash, a cross-site navigation), and the new
 * process numbers its contexts and nodes from the start again: the same context id and
 * backendNodeId then name a node of the new document while the kept handle is an object of the
 * dead process. The loaderId of the document tells them apart.
 */
const keptKey = (loaderId: string, backendNodeId: number) => `${loaderId}\u0000${backendNodeId}`;

/**
 * resolveNode, remembered across acts: an agent often acts on an element it acted on just before
 * (the same field, a "next" button), and the lookup is a round trip before anything else can
 * happen. The handle stays the same node as long as it is held (a backendNodeId is never given to
 * another node meanwhile); whether that node is still connected to the observed document is
 * checked in page on every use, as for a fresh one. At most KEPT_PER_CONTEXT nodes per context
 * are held; the least recently used one is released. A context's objects go away with it.
 * `loaderId` is that of the document whose world `executionContextId` is.
 */
export function resolveKept(
  session: CdpSession,
  node: { backendNodeId: number; executionContextId: number; loaderId: string },
): Promise<NodeHandle> {
  const { backendNodeId, executionContextId } = node;
  const nodes = session.slot(KEPT).get(session, executionContextId);
  const key = keptKey(node.loaderId, backendNodeId);
  const held = nodes.get(key);
  if (held) {
    nodes.renew(key, held);
    return held;
  }
  const handle = resolveNode(session, backendNodeId, executionContextId);
  for (const evicted of nodes.renew(key, handle)) evicted.then(release, () => {});
  handle.catch(() => nodes.get(key) === handle && nodes.delete(key));
  return handle;
}

export function release(handle: NodeHandle): void {
  handle.session.send('Runtime.releaseObject', { objectId: handle.objectId }).catch(() => {});
}
