// Knowing, cheaply, what may have changed in a frame's document since it was last read, so that an
// observation re-reads only that: the server's side of the change monitor in our isolated world
// (src/page/monitor.ts), which records the DOM mutations and the events that change what an
// observation shows, and answers "what changed since generation G?" with the top-most changed
// elements — or says that only a full re-read is safe.
import type { IsolatedWorlds } from '../browser/isolated-worlds.ts';
import type { FrameRecord } from '../browser/frame-tree.ts';
import { callPage, callPageRaw, type MonitorSummary } from '../browser/page-module.ts';
import type { Cdp } from '../../protocol/generated/cdp.ts';
import { NODE_LIST } from './node-list.ts';

/** Beyond this many changed places, one full read is cheaper than many partial ones. */
export const MAX_CHANGED_ROOTS = 48;

/** What a monitor can say about a frame's document since a given generation. */
export interface FrameChanges {
  /** The monitor's identity: a new one (a new document or a new world) starts from nothing. */
  monitor: string;
  generation: number;
  /** Only a full re-read is safe. */
  full: boolean;
  /** Layout may have moved (scrolling, resizing, fonts) even where no node changed. */
  geometry: boolean;
  /** The document's scroll offset when the changes were taken (what a kept snapshot is read with). */
  scroll?: [x: number, y: number];
  /**
   * Something changed that can move boxes or change what listens for clicks (a mutation, a
   * show/hide rule's state, an image load…). Without it and without `geometry` (a value typed,
   * a box ticked, focus moved) the last snapshot's geometry still holds.
   */
  layout: boolean;
  /** backendNodeIds of the top-most changed elements (empty with `full`). */
  roots: number[];
  /** backendNodeIds of the elements inside `roots` that set `cursor: pointer` themselves. */
  pointers: number[];
  /**
   * Taken after a settle: nothing the monitor records (a mutation, an event, a value set by
   * script) happened between the input's handlers and this answer, so a read of the page made
   * at any time in between saw what a read now would.
   */
  quiet: boolean;
  /** With `full`: how many elements the document has. */
  elements?: number;
}

/** Where the caller's last read of the frame stood. */
export interface MonitorMark {
  monitor: string;
  generation: number;
}

/** What readChanges may wait for first, in the same call: the page settling after an input. */
export interface SettleFirst {
  quietMs: number;
  capMs: number;
  /** Wait first for the input armed in this world to be handled (src/page/settle.ts: armInputWait). */
  afterInput?: boolean;
}

export interface ReadChangesOptions<B> {
  worlds: IsolatedWorlds;
  frame: FrameRecord;
  /** Where the caller's last read of the frame stood (undefined: everything counts as changed). */
  since: MonitorMark | undefined;
  timeoutMs: number;
  /** Let the page settle first, in the same round trip. */
  settle?: SettleFirst;
  /**
   * Sent right behind the question, as soon as it is sent (so it reaches the page after it); its
   * result comes back with the changes. Named for where it goes on the wire, not what it is: the
   * observer sends its reads ahead here (observer.ts), but any call could ride behind.
   */
  behind?: () => B;
}

/**
 * What changed in the frame's document since `since` (its monitor is installed on first use, and
 * then everything counts as changed). `changes` is undefined when the frame cannot be asked: the
 * caller reads everything. With `settle`, the page is first left to settle (see page-settle.ts),
 * in the same round trip.
 */
export async function readChanges<B = undefined>(options: ReadChangesOptions<B>): Promise<{ changes?: FrameChanges; behind?: B }> {
  const { worlds, frame, since, timeoutMs, settle } = options;
  let behind: B | undefined;
  try {
    const session = frame.session;
    const contextId = await worlds.contextFor(session, frame.id, frame.loaderId);
    const target = { session, executionContextId: contextId };
    const take = [since?.generation ?? -1, since?.monitor ?? '', MAX_CHANGED_ROOTS] as const;
    const answerAs = { ...NODE_LIST, awaitPromise: settle !== undefined };
    // No second attempt when the context lacks the module: what the caller sent behind the
    // question would then reach the page before the answer is taken.
    const callOptions = { timeoutMs: timeoutMs + (settle?.capMs ?? 0), retry: false };
    const answer = settle
      ? callPageRaw(target, 'settleThenTake', [settle.quietMs, settle.capMs, settle.afterInput === true, ...take], answerAs, callOptions)
      : callPageRaw(target, 'takeChanges', [...take], answerAs, callOptions);
    behind = options.behind?.();
    const { result, exceptionDetails } = await answer;
    const changes = exceptionDetails ? undefined : parseTaken(result.deepSerializedValue);
    return changes ? { changes, ...(behind !== undefined ? { behind } : {}) } : {};
  } catch {
    return {};
  }
}

/** The summary and the elements' backendNodeIds out of `takeChanges`' deep-serialized answer. */
function parseTaken(value: Cdp.Runtime.DeepSerializedValue | undefined): FrameChanges | undefined {
  const items = value?.type === 'array' && Array.isArray(value.value) ? (value.value as Cdp.Runtime.DeepSerializedValue[]) : undefined;
  const head = items?.[0];
  if (!items || head?.type !== 'string' || typeof head.value !== 'string') return undefined;
  const summary = JSON.parse(head.value) as MonitorSummary;
  if (typeof summary.monitor !== 'string') return undefined;
  const ids: number[] = [];
  // An element listed twice (a changed root that is also a pointer element) is serialized once;
  // the repeat only points back at the first by its weakLocalObjectReference.
  const seen = new Map<number, number>();
  for (const item of items.slice(1)) {
    let backendNodeId = item.type === 'node' ? (item.value as { backendNodeId?: unknown } | undefined)?.backendNodeId : undefined;
    if (backendNodeId === undefined && item.weakLocalObjectReference !== undefined) backendNodeId = seen.get(item.weakLocalObjectReference);
    if (typeof backendNodeId !== 'number') return { ...changesOf(summary), full: true };
    if (item.weakLocalObjectReference !== undefined) seen.set(item.weakLocalObjectReference, backendNodeId);
    ids.push(backendNodeId);
  }
  return { ...changesOf(summary), roots: ids.slice(0, summary.roots), pointers: ids.slice(summary.roots) };
}

function changesOf(summary: MonitorSummary): FrameChanges {
  return {
    monitor: summary.monitor,
    generation: summary.generation,
    full: summary.full,
    geometry: summary.geometry,
    layout: summary.layout,
    ...(summary.scroll ? { scroll: summary.scroll } : {}),
    ...(summary.elements !== undefined ? { elements: summary.elements } : {}),
    roots: [],
    pointers: [],
    quiet: summary.quiet === true,
  };
}

/** Hands closed shadow roots (which page JS cannot reach) to the frame's monitor. */
export async function watchClosedRoots(
  worlds: IsolatedWorlds,
  frame: FrameRecord,
  backendNodeIds: readonly number[],
  timeoutMs: number,
): Promise<boolean> {
  try {
    const contextId = await worlds.contextFor(frame.session, frame.id, frame.loaderId);
    await Promise.all(
      backendNodeIds.map(async (backendNodeId) => {
        const { object } = await frame.session.sendWith({ timeoutMs }, 'DOM.resolveNode', { backendNodeId, executionContextId: contextId });
        if (!object.objectId) throw new Error('no object');
        await callPage({ session: frame.session, executionContextId: contextId, objectId: object.objectId }, 'watchRoot', [], {
          timeoutMs,
        });
        frame.session.send('Runtime.releaseObject', { objectId: object.objectId }).catch(() => {});
      }),
    );
    return true;
  } catch {
    return false;
  }
}
