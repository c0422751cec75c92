// Installing the in-page module (src/page/) in a context of our isolated world, once, and calling
// its functions by name with typed arguments and typed results.
import type { Cdp } from '../../protocol/generated/cdp.ts';
import { type CdpSession, type SendOptions, SessionSlot } from '../cdp/session.ts';
import { PAGE_API, PAGE_HELPERS, type PageApi, type PseudoElement } from '../page/index.ts';

export type {
  FactRecord,
  FactsAnswer,
  Focused,
  FoundAnswer,
  FoundRecord,
  Mark,
  MarkStyle,
  MonitorSummary,
  Preparation,
  PseudoFact,
  Reach,
} from '../page/index.ts';
export { factBits, markdownMarks } from '../page/index.ts';
export type { MarkdownAnswer } from '../page/index.ts';

export type PageName = keyof PageApi;

/** An object of the call's context, passed where the in-page function takes a node. */
export class PageObject {
  readonly objectId: string;
  // Nominal: a NodeHandle (which has an objectId too) is not an argument by itself.
  readonly #brand = true;
  constructor(objectId: string) {
    this.objectId = objectId;
  }
}

type InPageObject = Node | PseudoElement;
/** An in-page parameter as the server passes it: a node as a PageObject, anything else as JSON. */
type ServerArg<T> = [T] extends [InPageObject] ? PageObject : [T] extends [InPageObject | null] ? PageObject | null : T;
type ServerArgs<P extends unknown[]> = { [I in keyof P]: ServerArg<P[I]> };
export type PageArgs<K extends PageName> = ServerArgs<Parameters<PageApi[K]>>;
export type PageResult<K extends PageName> = Awaited<ReturnType<PageApi[K]>>;

/** Where a call without `this` runs: a context of our world. */
export interface ContextTarget {
  session: CdpSession;
  executionContextId: number;
}
/** Where a call with a node as `this` runs: an object of a context of our world (a NodeHandle). */
export interface ObjectTarget extends ContextTarget {
  objectId: string;
}
export type PageTarget<K extends PageName> = ThisParameterType<PageApi[K]> extends InPageObject ? ObjectTarget : ContextTarget;

export interface PageCallOptions extends SendOptions {
  /**
   * When the context is found without the module (a call by name that lands in a context the
   * module never reached), install it and call again: the default. Without, the call fails.
   */
  retry?: boolean;
}

/** How a CDP answer should come back, for callPageRaw (callPage always asks for JSON). */
export type AnswerOptions = Pick<Cdp.Runtime.CallFunctionOnParams, 'returnByValue' | 'awaitPromise' | 'serializationOptions'>;

/** What a call by name throws in a context that has no module. */
const NOT_INSTALLED = 'pagewire: in-page module not installed';
/** Contexts remembered per session; one forgotten only costs installing the module again. */
const MAX_CONTEXTS = 256;

/** The module as sent: its source once per context, then a short call by name. */
interface InstallableModule {
  /** A declaration that installs the module in its context and calls `name`. */
  installAndCall(name: PageName): string;
  /** A declaration that calls `name` of the installed module (or throws NOT_INSTALLED). */
  callByName(name: PageName): string;
  /** The size of what installs it. */
  readonly sourceBytes: number;
}

/**
 * The module as one installable source: each function and class of PAGE_API and PAGE_HELPERS as
 * a local binding of its own name, so that they call one another directly. Transpilers that keep
 * function names (esbuild, under tsx) wrap inner functions in a `__name(fn, "name")` helper that
 * does not exist in the page; a local stand-in makes the source run wherever it was compiled. The
 * module's global is named after a hash of its source: two servers of different versions on one
 * browser never call each other's functions.
 */
export function installableModule(): InstallableModule {
  const parts: Array<[string, { name: string; toString(): string }]> = [...Object.entries(PAGE_HELPERS), ...Object.entries(PAGE_API)];
  const bindings = parts.map(([key, part]) => {
    if (part.name !== key) throw new Error(`in-page module: ${key} is named ${part.name} where it runs`);
    return `const ${key} = (${part.toString()});`;
  });
  const body = `const __name = (f) => f;\n${bindings.join('\n')}\nconst api = { ${Object.keys(PAGE_API).join(', ')} };`;
  const global = `__pagewire_${hash(body)}`;
  const install = `${body}\nglobalThis.${global} = api;`;
  return {
    installAndCall: (name) => `function (...args) {\n${install}\nreturn api.${name}.apply(this, args);\n}`,
    callByName: (name) =>
      `function(...a){const m=globalThis.${global};if(!m)throw ${JSON.stringify(NOT_INSTALLED)};return m.${name}.apply(this,a)}`,
    sourceBytes: new TextEncoder().encode(install).length,
  };
}

/** FNV-1a, 32 bits, base 36. */
function hash(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return (h >>> 0).toString(36);
}

/**
 * The module's text is fixed by the code that is loaded, the same for every session, so it is made
 * once, as the code is loaded: a constant, not a cache.
 */
const MODULE = installableModule();

/** Which of a session's contexts hold the module, or are about to: calls into one context run in the order sent. */
const INSTALLED = new SessionSlot<Set<number>>(() => new Set());

/**
 * Calls the in-page function `name` with `args` in `target` (a context, or an object of one
 * as `this`) and answers its JSON result. Throws when the function threw, or the call failed.
 */
export async function callPage<K extends PageName>(
  target: PageTarget<K>,
  name: K,
  args: PageArgs<K>,
  options: PageCallOptions = {},
): Promise<PageResult<K>> {
  const { result, exceptionDetails } = await callPageRaw(target, name, args, { returnByValue: true, awaitPromise: true }, options);
  if (exceptionDetails) {
    throw new Error(`in-page check failed: ${exceptionDetails.exception?.description ?? exceptionDetails.text}`);
  }
  return result.value as PageResult<K>;
}

/**
 * The same call, answered as CDP gives it: for results that are objects of the page (a handle, a
 * deep serialization naming nodes). The first call in a context carries the module's source and
 * leaves the module there; later calls only name the function. The message is written before this
 * returns (callers that send more right behind it rely on the order).
 */
export async function callPageRaw<K extends PageName>(
  target: PageTarget<K>,
  name: K,
  args: PageArgs<K>,
  answer: AnswerOptions,
  options: PageCallOptions = {},
): Promise<Cdp.Runtime.CallFunctionOnResult> {
  const { session, executionContextId } = target;
  const installed = session.slot(INSTALLED);
  const named = installed.has(executionContextId);
  installed.add(executionContextId);
  if (installed.size > MAX_CONTEXTS) installed.delete(installed.values().next().value!);
  const objectId = (target as Partial<ObjectTarget>).objectId;
  let reply: Cdp.Runtime.CallFunctionOnResult;
  try {
    reply = await session.sendWith(options, 'Runtime.callFunctionOn', {
      ...answer,
      ...(objectId === undefined ? { executionContextId } : { objectId }),
      arguments: (args as unknown[]).map(callArgument),
      functionDeclaration: named ? MODULE.callByName(name) : MODULE.installAndCall(name),
    });
  } catch (error) {
    installed.delete(executionContextId);
    throw error;
  }
  const exception = reply.exceptionDetails?.exception;
  if (named && exception?.type === 'string' && exception.value === NOT_INSTALLED) {
    installed.delete(executionContextId);
    if (options.retry === false) throw new Error(NOT_INSTALLED);
    return callPageRaw(target, name, args, answer, options);
  }
  return reply;
}

function callArgument(arg: unknown): Cdp.Runtime.CallArgument {
  return arg instanceof PageObject ? { objectId: arg.objectId } : { value: arg };
}
