// Serialising in-page functions for Runtime.callFunctionOn, and sending each one to a context of
// our isolated world only once.
import { type CdpSession, type SendOptions, SessionSlot } from '../cdp/session.ts';
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

// Not state of any tab, browser or server: the text of the program's own functions, a pure function
// of their identity, the same for every owner and bounded by the functions the program has.
const sources = new WeakMap<(...args: never[]) => unknown, string>();

/** Where, in each context of our world, the functions sent so far are kept (page scripts cannot see it). */
const REGISTRY = '__pagewireFunctions';
/** What a call by name throws when the context does not have the function. */
const NOT_INSTALLED = 'pagewire: in-page function not installed';
/** Contexts remembered per session; one forgotten only costs sending its functions again. */
const MAX_CONTEXTS = 256;

/**
 * What a CDP session has sent into the contexts of our world, held by the session (a slot: made on
 * first use, gone with it). Names are the session's own: a context belongs to one target, and
 * pagewire attaches each target once, so every call into a context goes through the same session
 * and one name never means two functions there.
 */
interface SentFunctions {
  /** Each declaration's name in the contexts' registries. */
  keys: Map<string, string>;
  /** The names each context has. */
  installed: PerContext<Set<string>>;
}

const SENT = new SessionSlot<SentFunctions>(() => ({
  keys: new Map(),
  installed: new PerContext<Set<string>>(() => new Set(), MAX_CONTEXTS),
}));

function keyOf(sent: SentFunctions, declaration: string): string {
  let key = sent.keys.get(declaration);
  if (key === undefined) {
    key = `f${sent.keys.size}`;
    sent.keys.set(declaration, key);
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
  const sent = session.slot(SENT);
  const key = keyOf(sent, declaration);
  const here = sent.installed.get(session, contextId);
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
