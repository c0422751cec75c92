// Reaching a DOM node by backendNodeId in an isolated world of its frame, so that page scripts
// that patch prototypes (Node.prototype.contains, focus…) cannot fake our checks.
import type { CdpSession } from '../cdp/session.ts';
import { callInWorld, pageFunction } from '../browser/page-function.ts';

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

/**
 * Calls `fn` with `this` = the node and returns its JSON result. `fn` is serialised with
 * toString(), so it must not close over anything; a string is an already serialised function.
 */
export async function callOn<T>(
  handle: NodeHandle,
  fn: ((this: never, ...args: never[]) => unknown) | string,
  args: Array<{ value?: unknown; objectId?: string }> = [],
): Promise<T> {
  const { result, exceptionDetails } = await callInWorld(handle.session, handle.executionContextId, typeof fn === 'string' ? fn : pageFunction(fn), {
    objectId: handle.objectId,
    arguments: args,
    returnByValue: true,
    awaitPromise: true,
  });
  if (exceptionDetails) {
    throw new Error(`in-page check failed: ${exceptionDetails.exception?.description ?? exceptionDetails.text}`);
  }
  return result.value as T;
}

export function release(handle: NodeHandle): void {
  handle.session.send('Runtime.releaseObject', { objectId: handle.objectId }).catch(() => {});
}
