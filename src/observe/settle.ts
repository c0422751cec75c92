// Settling after an input and taking the frames' changes in the same round trip (TabReader.settle):
// what it returns, a ReadAhead, is handed to the observation that follows (TabReader.observe), which
// then does not ask those frames again.
import type { FrameRecord } from '../browser/frame-tree.ts';
import type { IsolatedWorlds } from '../browser/isolated-worlds.ts';
import type { Tab } from '../browser/tab.ts';
import { readAxPart } from './ax-part.ts';
import { type FrameChanges, type MonitorMark, readChanges, type SettleFirst } from './change-monitor.ts';
import { DEFAULT_BUDGET, framesUnder } from './frame-reads.ts';
import { SETTLE_CAP_MS, SETTLE_QUIET_MS } from '../browser/page-settle.ts';
import { type AxReadsAhead, cachedFrameOf } from './read-plan.ts';
import type { TabReader } from './tab-reader.ts';

/**
 * What was read ahead of an observation of `rootId`, as an act's input settled: the frames'
 * changes, and for the acted frame the accessibility reads of what it likely changed. "Read ahead"
 * is the one name for this idea here and in observer.ts, read-plan.ts and frame-reads.ts.
 */
export interface ReadAhead {
  rootId: string;
  /** By frame id. */
  frames: Map<string, FrameReadAhead>;
}

export interface FrameReadAhead {
  loaderId: string;
  /** The mark they were taken against: the observation must still stand there. */
  since: MonitorMark | undefined;
  changes: FrameChanges;
  /**
   * Accessibility reads of elements likely to have changed (the field an act filled), made
   * while the frame settled; kept only when the changes are `quiet`, so they are still true.
   */
  axReadsAhead?: AxReadsAhead;
}

/** What was read ahead of `frame`, when it was taken against where its last read stands. */
export function readAheadFor(options: {
  reader: TabReader;
  readAhead: ReadAhead | undefined;
  root: FrameRecord;
  frame: FrameRecord;
  mark: MonitorMark | undefined;
}): FrameReadAhead | undefined {
  const { reader, root, frame, mark } = options;
  const taken = options.readAhead?.rootId === root.id ? options.readAhead.frames.get(frame.id) : undefined;
  if (!taken || taken.loaderId !== frame.loaderId) return undefined;
  const same = taken.since === undefined
    ? mark === undefined
    : mark !== undefined && mark.monitor === taken.since.monitor && mark.generation === taken.since.generation;
  if (!same) return undefined;
  reader.count('changesReadAhead');
  return taken;
}

export interface SettleOptions {
  reader: TabReader;
  worlds: IsolatedWorlds;
  tab: Tab;
  /** The frame the next observation observes. */
  root: FrameRecord;
  /** The frame the input went to. */
  frame: FrameRecord;
  /**
   * The input's acknowledgement, when the settle goes out along with the input (at once when
   * absent): the page then settles as after an input (page/settle.ts `afterInput`).
   */
  acknowledged?: Promise<unknown>;
  /** Elements of `frame` the input surely changed (the field an act filled), to read ahead. */
  readAheadIds?: readonly number[];
  timeoutMs?: number;
}

/**
 * Lets `frame` settle after an input and takes its changes since the last observation of `root`,
 * in one round trip, for the observation that follows (ObserveOptions.readAhead). The other frames
 * of that observation that were read before are asked meanwhile, once `acknowledged` (the input's
 * acknowledgement: whatever its handlers did at once to those frames is done): their changes are
 * taken while the acted frame settles rather than after. Frames that could not be asked are left
 * out (the observation asks them itself); settled all the same. The elements of `frame` named in
 * `readAheadIds` (the field an act filled), and those that changed in it for the last
 * observation, are read for the accessibility tree once the input is acknowledged, while the frame
 * settles: the observation uses those reads if nothing happened after the input's handlers
 * (FrameChanges.quiet), one round trip less.
 */
export async function settleAndTakeChanges(options: SettleOptions): Promise<ReadAhead> {
  const { reader, worlds, tab, root, frame } = options;
  const settle: SettleFirst = { quietMs: SETTLE_QUIET_MS, capMs: SETTLE_CAP_MS, afterInput: options.acknowledged !== undefined };
  const acknowledged = options.acknowledged ?? Promise.resolve();
  const readAheadIds = options.readAheadIds ?? [];
  const timeoutMs = options.timeoutMs ?? DEFAULT_BUDGET.perFrameMs;
  const cached = reader.lastRead(root.id);
  const take = async (target: FrameRecord, settleFirst?: SettleFirst): Promise<[string, FrameReadAhead] | undefined> => {
    const loaderId = target.loaderId;
    const since = cachedFrameOf(cached, target)?.mark;
    const { changes } = await readChanges({ worlds, frame: target, since, timeoutMs, ...(settleFirst ? { settle: settleFirst } : {}) });
    return changes ? [target.id, { loaderId, since, changes }] : undefined;
  };
  const others = framesUnder(tab, root).filter((other) => other !== frame && cachedFrameOf(cached, other) !== undefined);
  const own = cachedFrameOf(cached, frame);
  // What changed in the frame last time is read as well: a field's input handler that updates a
  // status line or a counter next to it does so again.
  const toRead = own && readAheadIds.length > 0 ? [...new Set([...readAheadIds, ...own.readAheadIds])] : [];
  const reads = toRead.length > 0
    ? acknowledged
      .then(() => Promise.all(toRead.map(async (id) => [id, await readAxPart(frame, id, { timeoutMs })] as const)))
      .catch(() => undefined)
    : Promise.resolve(undefined);
  const [[acted, ...rest], parts] = await Promise.all([
    Promise.all([take(frame, settle), ...others.map((other) => acknowledged.then(() => take(other), () => undefined))]),
    reads,
  ]);
  // The reads still hold only if nothing happened after the input's handlers (FrameChanges.quiet).
  const actedEntry: [string, FrameReadAhead] | undefined = acted && parts && acted[1].changes.quiet
    ? [acted[0], { ...acted[1], axReadsAhead: new Map(parts.map(([id, part]) => [id, Promise.resolve(part)])) }]
    : acted;
  return { rootId: root.id, frames: new Map([actedEntry, ...rest].filter((entry) => entry !== undefined)) };
}
