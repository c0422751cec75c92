// observe's find (PROTOCOL.md §6 "find"): the elements whose name, own text or nearby text hold
// every word, from the whole document whatever max_elements is, at a cost in proportion to the
// answer. Each frame under the observed one is searched in our isolated world (page/find.ts), and
// only what it found is read from the accessibility tree, one getPartialAXTree per element: its
// role, name and states decide its ref as a full observation's render does (render.ts), and the
// tab's ref registry gives it the ref any observation gives that node.
import type { Cdp } from '../../protocol/generated/cdp.ts';
import type { FrameRecord } from '../browser/frame-tree.ts';
import type { IsolatedWorlds } from '../browser/isolated-worlds.ts';
import { callPageRaw, type FoundAnswer, type FoundRecord } from '../browser/page-module.ts';
import type { Tab } from '../browser/tab.ts';
import type { SendOptions } from '../cdp/session.ts';
import { isCdpError } from '../cdp/errors.ts';
import { Deadline } from '../util/deadline.ts';
import { type KnownSecret, redactSecrets, redactUrl } from '../util/redact.ts';
import { MAX_FIND_MATCHES } from '../wire/observe-bounds.ts';
import { readAxPart } from './ax-part.ts';
import { buildAxTree, statesOf } from './ax-tree.ts';
import { DEFAULT_BUDGET, framesUnder, type ObserveBudget } from './frame-reads.ts';
import { type Snapshot, unreadableNow } from './observer.ts';
import type { RefRegistry } from './refs.ts';
import { type ElementView, elementView, INTERACTIVE_ROLES, refByRole, type RefTarget, stateWords } from './render.ts';
import type { ObservedFrame } from './state-store.ts';
import { clip, MAX_NAME, quote } from './tree-lines.ts';
import { backendIdOf, NODE_LIST } from './node-list.ts';

/** The roles a page element can state (`role=`) that give it a ref: Chromium's own names (PopUpButton…) are left out. */
const ARIA_WIDGET_ROLES = [...INTERACTIVE_ROLES].filter((role) => /^[a-z]+$/.test(role));

export interface FindOptions {
  tab: Tab;
  root: FrameRecord;
  refs: RefRegistry;
  worlds: IsolatedWorlds;
  /** What was asked: split into lowercase words here. */
  find: string;
  /** Only elements of this accessibility role (any case). */
  role?: string;
  secrets: readonly KnownSecret[];
  budget?: ObserveBudget;
  signal?: AbortSignal;
}

/** One match as the wire's `matches` gives it. */
export interface FoundMatch {
  ref: string;
  path: string[];
  text: string;
}

/** A find's answer: an observation's snapshot whose elements are the matches, and the matches. */
export interface FindSnapshot extends Snapshot {
  matches: FoundMatch[];
}

/** What one frame's search found: each element with its node, or why the frame could not be searched. */
interface FrameSearch {
  frame: FrameRecord;
  documentBackendNodeId?: number;
  found: Array<{ record: FoundRecord; backendNodeId: number }>;
  more: boolean;
  title?: string;
  reason?: string;
}

/** A found element that gets a ref, with what its line says. */
interface Match {
  target: RefTarget;
  element: ElementView;
  path: string[];
  text: string;
  words: string[];
}

export async function find(options: FindOptions): Promise<FindSnapshot> {
  const { tab, root } = options;
  const unreadable = unreadableNow(tab, root);
  if (unreadable) return { ...unreadable, matches: [] };
  const words = options.find.toLowerCase().trim().split(/\s+/);
  const budget = options.budget ?? DEFAULT_BUDGET;
  // The observed frame has the whole budget, as an observation's does, and every other frame its
  // share, for the search and then again for reading what it found: the first accessibility read
  // of a document may have to build the renderer's accessibility tree, which a first look pays too.
  const sendFor = (frame: FrameRecord, deadline: Deadline) => ({
    timeoutMs: Math.max(1, frame === root ? deadline.remaining() : Math.min(budget.perFrameMs, deadline.remaining())),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  const searchDeadline = new Deadline(budget.totalMs);
  const frames = framesUnder(tab, root);
  // Each frame is searched for one more than the answer holds: whether there were more is then known.
  const searches = await Promise.all(frames.map((frame) => {
    const send = sendFor(frame, searchDeadline);
    // A frame that cannot be searched in time is unavailable, as an observation's would be; the rest is answered.
    return searchFrame(options.worlds, frame, words, send).catch((error: unknown): FrameSearch => ({
      frame,
      found: [],
      more: false,
      reason: reasonOf(error, send.timeoutMs),
    }));
  }));
  const matches: Match[] = [];
  let truncated = false;
  const role = options.role?.toLowerCase();
  const readDeadline = new Deadline(budget.totalMs);
  for (const search of searches) {
    const send = sendFor(search.frame, readDeadline);
    const judged = await Promise.allSettled(search.found.map((found) => judge(options, search.frame, found, send)));
    for (const outcome of judged) {
      if (outcome.status === 'rejected') {
        // What was read of the frame is answered; the frame says that more may match.
        search.reason ??= `some elements could not be read: ${reasonOf(outcome.reason, send.timeoutMs)}`;
        continue;
      }
      const match = outcome.value;
      if (!match || (role !== undefined && match.target.role.toLowerCase() !== role)) continue;
      if (matches.length >= MAX_FIND_MATCHES) truncated = true;
      else matches.push({ ...match, path: [...framePath(tab, root, search.frame), ...match.path] });
    }
    if (search.more) truncated = true;
  }
  const rootReason = searches[0]?.reason;
  const observedFrames: ObservedFrame[] = searches.map((search) => ({
    frameId: search.frame.id,
    loaderId: search.frame.loaderId,
    documentBackendNodeId: search.documentBackendNodeId,
    url: search.frame.url,
    status: search.reason === undefined ? 'observed' : 'unavailable',
    ...(search.reason === undefined ? {} : { reason: search.reason }),
  }));
  return {
    tree: matches.length > 0
      ? matches.map(lineOf).join('\n')
      : rootReason === undefined
      ? `no element matches ${quote(clip(options.find.trim(), MAX_NAME))}`
      : `the page could not be searched: ${rootReason}`,
    elements: matches.map((match) => match.element),
    text: '',
    truncated,
    targets: matches.map((match) => match.target),
    boxes: new Map(),
    layouts: new Map(),
    frames: observedFrames,
    title: searches[0]?.title ?? tab.title,
    matches: matches.map((match) => ({ ref: match.target.ref, path: match.path, text: match.text })),
  };
}

/** One frame searched in our isolated world: its document's node and the elements found. */
async function searchFrame(worlds: IsolatedWorlds, frame: FrameRecord, words: string[], send: SendOptions): Promise<FrameSearch> {
  const contextId = await worlds.contextFor(frame.session, frame.id, frame.loaderId);
  const target = { session: frame.session, executionContextId: contextId };
  const { result, exceptionDetails } = await callPageRaw(
    target,
    'findInPage',
    [words, MAX_FIND_MATCHES + 1, ARIA_WIDGET_ROLES],
    NODE_LIST,
    send,
  );
  if (exceptionDetails || result.deepSerializedValue?.type !== 'array') {
    throw new Error(`the search failed in the page: ${exceptionDetails?.exception?.description ?? exceptionDetails?.text ?? 'no answer'}`);
  }
  const [answer, document, ...nodes] = result.deepSerializedValue.value as Cdp.Runtime.DeepSerializedValue[];
  const { found, more, title } = JSON.parse(String(answer?.value)) as FoundAnswer;
  const documentBackendNodeId = backendIdOf(document);
  return {
    frame,
    ...(typeof documentBackendNodeId === 'number' ? { documentBackendNodeId } : {}),
    found: found.flatMap((record, i) => {
      const backendNodeId = backendIdOf(nodes[i]);
      return typeof backendNodeId === 'number' ? [{ record, backendNodeId }] : [];
    }),
    more,
    title,
  };
}

/**
 * A found element as the accessibility tree has it, when it gets a ref there: its role (or, without
 * an interactive role, the page's facts: render.ts #wantsRef) decides, as in a full observation.
 * Left out of the tree (hidden, aria-hidden): no ref, no match.
 */
async function judge(
  options: FindOptions,
  frame: FrameRecord,
  found: { record: FoundRecord; backendNodeId: number },
  send: { timeoutMs: number; signal?: AbortSignal },
): Promise<Match | undefined> {
  const { record, backendNodeId } = found;
  const { nodes } = await frame.session.sendWith(send, 'Accessibility.getPartialAXTree', { backendNodeId, fetchRelatives: false });
  const node = nodes.find((n) => n.backendDOMNodeId === backendNodeId);
  if (!node || node.ignored) return undefined;
  const role = String(node.role?.value ?? '');
  const states = statesOf(node);
  if (!refByRole(role, states) && !record.clickable) return undefined;
  const name = record.safeName ?? (record.holdsField ? await safeNameOf(frame, backendNodeId, send) : String(node.name?.value ?? ''));
  const ref = options.refs.refFor(frame.id, frame.loaderId, backendNodeId);
  const view = { role, name, states, frameId: frame.id };
  const element = elementView(view, ref, { visible: record.visible, inViewport: record.inViewport }, options.secrets);
  return {
    target: { ref, frameId: frame.id, backendNodeId, role, name },
    element,
    path: record.path.map((part) => redactSecrets(part, options.secrets)),
    text: redactSecrets(record.text, options.secrets),
    words: stateWords(view, element, false),
  };
}

/** The name of an element that holds a form control, computed from its subtree without any value (ax-tree.ts SafeNames). */
async function safeNameOf(frame: FrameRecord, backendNodeId: number, send: { timeoutMs: number; signal?: AbortSignal }): Promise<string> {
  const part = await readAxPart(frame, backendNodeId, send);
  return buildAxTree(part.subtree)?.name ?? '';
}

/** The iframes between the observed frame and `frame`, outermost first, as a path names them. */
function framePath(tab: Tab, root: FrameRecord, frame: FrameRecord): string[] {
  const path: string[] = [];
  for (let at: FrameRecord | undefined = frame; at && at !== root; at = at.parentId ? tab.frames.get(at.parentId) : undefined) {
    path.unshift(`iframe ${quote(clip(at.name || redactUrl(at.url), MAX_NAME))}`);
  }
  return path;
}

/** A match's line: its path, its line as an observation gives it, and its text when that says more than its name. */
function lineOf(match: Match): string {
  const { element } = match;
  const own = [element.role, quote(element.name), ...match.words, element.ref].filter((part) => part !== '""').join(' ');
  const text = match.text && match.text !== element.name ? ` — ${match.text}` : '';
  return [...match.path, own].join(' › ') + text;
}

function reasonOf(error: unknown, timeoutMs: number): string {
  if (isCdpError(error) && error.kind === 'timeout') return `no answer within ${timeoutMs} ms`;
  if (isCdpError(error) && error.isTargetGone) return 'the frame went away while it was searched';
  return error instanceof Error ? error.message : String(error);
}
