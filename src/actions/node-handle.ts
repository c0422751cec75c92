// Reaching a DOM node by backendNodeId in an isolated world of its frame, so that page scripts
// that patch prototypes (Node.prototype.contains, focus…) cannot fake our checks.
import type { CdpSession } from '../cdp/session.ts';

const WORLD_NAME = '__pagewire__';

/** Isolated-world execution contexts, per frame document (frame id + loader id). */
export class IsolatedWorlds {
  readonly #contexts = new Map<string, Promise<number>>();

  contextFor(session: CdpSession, frameId: string, loaderId: string): Promise<number> {
    const key = `${frameId}\u0000${loaderId}`;
    let context = this.#contexts.get(key);
    if (!context) {
      context = session
        .send('Page.createIsolatedWorld', { frameId, worldName: WORLD_NAME, grantUniveralAccess: false })
        .then((r) => r.executionContextId);
      // A failed creation must be retried next time, not cached.
      context.catch(() => this.#contexts.delete(key));
      this.#contexts.set(key, context);
      if (this.#contexts.size > 256) this.#contexts.delete(this.#contexts.keys().next().value!);
    }
    return context;
  }
}

/**
 * The source of an in-page function for Runtime.callFunctionOn. Transpilers that keep function
 * names (esbuild, under tsx) wrap inner functions in a `__name(fn, "name")` helper that does not
 * exist in the page; a local stand-in makes the source run wherever it was compiled.
 */
export function pageFunction(fn: (...args: never[]) => unknown): string {
  return `function (...args) { const __name = (f) => f; return (${fn.toString()}).apply(this, args); }`;
}

export interface NodeHandle {
  session: CdpSession;
  objectId: string;
  backendNodeId: number;
}

export async function resolveNode(
  session: CdpSession,
  backendNodeId: number,
  executionContextId: number,
): Promise<NodeHandle> {
  const { object } = await session.send('DOM.resolveNode', { backendNodeId, executionContextId });
  if (!object.objectId) throw new Error(`node ${backendNodeId} has no object`);
  return { session, objectId: object.objectId, backendNodeId };
}

/**
 * Calls `fn` with `this` = the node and returns its JSON result. `fn` is serialised with
 * toString(), so it must not close over anything.
 */
export async function callOn<T>(
  handle: NodeHandle,
  fn: (this: never, ...args: never[]) => unknown,
  args: Array<{ value?: unknown; objectId?: string }> = [],
): Promise<T> {
  const { result, exceptionDetails } = await handle.session.send('Runtime.callFunctionOn', {
    objectId: handle.objectId,
    functionDeclaration: pageFunction(fn),
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
