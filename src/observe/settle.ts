// Settling after an input and taking the frames' changes in the same round trip (TabReader.settle):
// what it returns, a Prefetch, is handed to the observation that follows (TabReader.observe), which
// then does not ask those frames again.
import type { FrameRecord } from '../browser/frame-tree.ts';
import type { IsolatedWorlds } from '../browser/isolated-worlds.ts';
import type { Tab } from '../browser/tab.ts';
import { readAxPart } from './ax-part.ts';
import { type FrameChanges, type MonitorMark, readChanges, type SettleFirst } from './change-monitor.ts';
import { DEFAULT_BUDGET, framesUnder } from './frame-reads.ts';
import { cachedFrameOf, type EarlyReads } from './read-plan.ts';
import type { TabReader } from './tab-reader.ts';

/** Frames' changes, taken before an observation of `rootId` began (see settleAndTakeChanges). */
export interface Prefetch {
  rootId: string;
  /** By frame id. */
  frames: Map<string, PrefetchedFrame>;
}

export interface PrefetchedFrame {
  loaderId: string;
  /** The mark they were taken against: the observation must still stand there. */
  since: MonitorMark | undefined;
  changes: FrameChanges;
  /**
   * Accessibility reads of elements likely to have changed (the field an act filled), made
   * while the frame settled; kept only when the changes are `quiet`, so they are still true.
   */
  preread?: EarlyReads;
}

/** The prefetched changes of `frame`, when they were taken against where its last read stands. */
export function prefetchedFor(options: {
  reader: TabReader;
  prefetched: Prefetch | undefined;
  root: FrameRecord;
  frame: FrameRecord;
  mark: MonitorMark | undefined;
}): PrefetchedFrame | undefined {
  const { reader, root, frame, mark } = options;
  const prefetched = options.prefetched?.rootId === root.id ? options.prefetched.frames.get(frame.id) : undefined;
  if (!prefetched || prefetched.loaderId !== frame.loaderId) return undefined;
  const same = prefetched.since === undefined
    ? mark === undefined
    : mark !== undefined && mark.monitor === prefetched.since.monitor && mark.generation === prefetched.since.generation;
  if (!same) return undefined;
  reader.count('changesPrefetched');
  return prefetched;
}

export interface SettleOptions {
  reader: TabReader;
  worlds: IsolatedWorlds;
  tab: Tab;
  /** The frame the next observation observes. */
  root: FrameRecord;
  /** The frame the input went to. */
  frame: FrameRecord;
  settle: SettleFirst;
  /** The input's acknowledgement (at once when absent). */
  acknowledged?: Promise<unknown>;
  /** Elements of `frame` the input likely changed (the field an act filled). */
  likelyChanged?: readonly number[];
  timeoutMs?: number;
}

/**
 * Lets `frame` settle after an input and takes its changes since the last observation of `root`,
 * in one round trip, for the observation that follows (ObserveOptions.prefetched). The other frames
 * of that observation that were read before are asked meanwhile, once `acknowledged` (the input's
 * acknowledgement: whatever its handlers did at once to those frames is done): their changes are
 * taken while the acted frame settles rather than after. Frames that could not be asked are left
 * out (the observation asks them itself); settled all the same. The elements of `frame` named in
 * `likelyChanged` (the field an act filled), and those that changed in it for the last
 * observation, are read for the accessibility tree once the input is acknowledged, while the frame
 * settles: the observation uses those reads if nothing happened after the input's handlers
 * (FrameChanges.quiet), one round trip less.
 */
export async function settleAndTakeChanges(options: SettleOptions): Promise<Prefetch> {
  const { reader, worlds, tab, root, frame, settle } = options;
  const acknowledged = options.acknowledged ?? Promise.resolve();
  const likelyChanged = options.likelyChanged ?? [];
  const timeoutMs = options.timeoutMs ?? DEFAULT_BUDGET.perFrameMs;
  const cached = reader.lastRead(root.id);
  const take = async (target: FrameRecord, settleFirst?: SettleFirst): Promise<[string, PrefetchedFrame] | undefined> => {
    const loaderId = target.loaderId;
    const since = cachedFrameOf(cached, target)?.mark;
    const { changes } = await readChanges({ worlds, frame: target, since, timeoutMs, ...(settleFirst ? { settle: settleFirst } : {}) });
    return changes ? [target.id, { loaderId, since, changes }] : undefined;
  };
  const others = framesUnder(tab, root).filter((other) => other !== frame && cachedFrameOf(cached, other) !== undefined);
  const own = cachedFrameOf(cached, frame);
  // What changed in the frame last time is read as well: a field's input handler that updates a
  // status line or a counter next to it does so again.
  const toRead = own && likelyChanged.length > 0 ? [...new Set([...likelyChanged, ...own.lastChanged])] : [];
  const reads = toRead.length > 0
    ? acknowledged
      .then(() => Promise.all(toRead.map(async (id) => [id, await readAxPart(frame, id, { timeoutMs })] as const)))
      .catch(() => undefined)
    : Promise.resolve(undefined);
  const [taken, preread] = await Promise.all([
    Promise.all([take(frame, settle), ...others.map((other) => acknowledged.then(() => take(other), () => undefined))]),
    reads,
  ]);
  const acted = taken[0]?.[1];
  if (acted && preread && acted.changes.quiet) acted.preread = new Map(preread.map(([id, part]) => [id, Promise.resolve(part)]));
  return { rootId: root.id, frames: new Map(taken.filter((entry) => entry !== undefined)) };
}
