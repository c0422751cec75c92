// Serialising in-page functions for Runtime.callFunctionOn, and sending each one to a context of
// our isolated world only once.
import type { CdpSession, SendOptions } from '../cdp/session.ts';
import type { Cdp } from '../../protocol/generated/cdp.ts';
import { PerContext } from './per-context.ts';

/**
 * The source of an in-page function for Runtime.callFunctionOn. Transpilers that keep function
 * names (esbuild, under tsx) wrap inner functions in a `__name(fn, "name")` helper that does not
 * exist in the page; a local stand-in makes the source run wherever it was compiled.
 */
export function pageFunction(fn: (...args: never[]) => unknown): string {
  let source = sources.get(fn);
  if (source === undefined) {
    source = `function (...args) { const __name = (f) => f; return (${fn.toString()}).apply(this, args); }`;
    sources.set(fn, source);
  }
  return source;
}

// Keyed by function identity, holding only its source text: the same for every tab and server.
const sources = new WeakMap<(...args: never[]) => unknown, string>();

/** Where, in each context of our world, the functions sent so far are kept (page scripts cannot see it). */
const REGISTRY = '__pagewireFunctions';
/** What a call by name throws when the context does not have the function. */
const NOT_INSTALLED = 'pagewire: in-page function not installed';
/** Contexts remembered per session; one forgotten only costs sending its functions again. */
const MAX_CONTEXTS = 256;

// Module-level, as `sources` above: a declaration's name is the same in every context of every
// tab and server (the code that runs, not a page's state), so a name never means two functions,
// whichever context a call lands in. It grows only with the distinct declarations sent.
const keys = new Map<string, string>();
/** The keys of the functions each context of our world has. */
const installed = new PerContext<Set<string>>(() => new Set(), MAX_CONTEXTS);

function keyOf(declaration: string): string {
  let key = keys.get(declaration);
  if (key === undefined) {
    key = `f${keys.size}`;
    keys.set(declaration, key);
  }
  return key;
}

const installAndCall = (key: string, declaration: string) =>
  `function (...args) { const fn = (${declaration}); (globalThis.${REGISTRY} ??= new Map()).set(${
    JSON.stringify(key)
  }, fn); return fn.apply(this, args); }`;

const callByName = (key: string) =>
  `function (...args) { const fn = globalThis.${REGISTRY}?.get(${JSON.stringify(key)}); if (fn === undefined) throw new Error(${
    JSON.stringify(NOT_INSTALLED)
  }); return fn.apply(this, args); }`;

export type WorldCallParams = Omit<Cdp.Runtime.CallFunctionOnParams, 'functionDeclaration' | 'executionContextId'>;

/**
 * Runtime.callFunctionOn of `declaration` in our world's context `contextId`: on `params.objectId`
 * (an object of that context) or, without one, in the context itself. The first call in a context
 * carries the function's source and leaves the function there; later calls name it. The source of
 * the change monitor is about 13 KB, and taking in a source that size costs the renderer about a
 * millisecond on every call, on the path of every act and observation.
 *
 * The message is written before this returns (callers that send more right behind it rely on the
 * order). A context found without the function (its first call failed before running) gets the
 * source again, unless `retry` is false: the call then fails.
 */
export async function callInWorld(
  session: CdpSession,
  contextId: number,
  declaration: string,
  params: WorldCallParams,
  options: SendOptions & { retry?: boolean } = {},
): Promise<Cdp.Runtime.CallFunctionOnResult> {
  const key = keyOf(declaration);
  const here = installed.get(session, contextId);
  const named = here.has(key);
  // Calls into one context run in the order they were sent: one sent behind this may name it.
  here.add(key);
  const target = params.objectId === undefined ? { ...params, executionContextId: contextId } : params;
  let reply: Cdp.Runtime.CallFunctionOnResult;
  try {
    reply = await session.sendWith(options, 'Runtime.callFunctionOn', {
      ...target,
      functionDeclaration: named ? callByName(key) : installAndCall(key, declaration),
    });
  } catch (error) {
    here.delete(key);
    throw error;
  }
  if (named && reply.exceptionDetails?.exception?.description?.includes(NOT_INSTALLED)) {
    here.delete(key);
    if (options.retry === false) throw new Error(NOT_INSTALLED);
    return callInWorld(session, contextId, declaration, params, options);
  }
  return reply;
}
