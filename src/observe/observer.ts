// One observation of a tab: the accessibility tree of every frame under the observed one (each
// through the session that hosts it, so out-of-process iframes are read too), one DOMSnapshot per
// renderer for geometry and clickability, stitched at the iframe nodes and rendered. A frame that
// cannot be read within its budget is reported unavailable; the rest is still returned.
//
// The jobs live apart: read-plan.ts decides what must be read again (pure), frame-reads.ts reads
// it over CDP, stitch.ts joins and renders it, settle.ts takes changes ahead of the observation.
// This module asks the frames' monitors what changed and runs those steps in order.
import type { PendingDialog } from '../browser/dialogs.ts';
import type { FrameRecord } from '../browser/frame-tree.ts';
import type { IsolatedWorlds } from '../browser/isolated-worlds.ts';
import type { Tab } from '../browser/tab.ts';
import type { KnownSecret } from '../util/redact.ts';
import { readAxPart } from './ax-part.ts';
import { type FrameChanges, readChanges, watchClosedRoots } from './change-monitor.ts';
import {
  DEFAULT_BUDGET,
  framesUnder,
  type FurtherRead,
  type ObserveBudget,
  type PageRead,
  type Probes,
  probesOf,
  readFurther,
  readPage,
} from './frame-reads.ts';
import { type AxReadsAhead, cachedFrameOf, planReads, readToKeep } from './read-plan.ts';
import type { RefRegistry } from './refs.ts';
import { type ReadAhead, readAheadFor } from './settle.ts';
import { type RenderedPage, renderPage } from './stitch.ts';
import type { TabReader } from './tab-reader.ts';

export { DEFAULT_BUDGET, type ObserveBudget } from './frame-reads.ts';

/** What one observation asks for (TabReader.observe adds the reader). */
export interface ObserveOptions {
  tab: Tab;
  root: FrameRecord;
  refs: RefRegistry;
  maxElements: number;
  /** What to hide wherever it appears (typed passwords and secrets, configured secret values). */
  secrets: readonly KnownSecret[];
  /** Render only the subtree of this node (root_ref). */
  subtree?: { frameId: string; backendNodeId: number };
  budget?: ObserveBudget;
  signal?: AbortSignal;
  /** With our isolated worlds, unchanged frames are not read again (see change-monitor.ts). */
  worlds?: IsolatedWorlds;
  /** Frames' changes already taken (TabReader.settle, as an act's input settled): not asked for again. */
  readAhead?: ReadAhead;
}

export interface ObserveInput extends ObserveOptions {
  /** The tab's reading state: what earlier observations read, and the counters. */
  reader: TabReader;
}

export interface Snapshot extends RenderedPage {
  /** Set when a dialog was (or became) pending: nothing could be read. */
  dialog?: PendingDialog;
}

const CRASHED = 'the page crashed: navigate or reload the tab (act), or close it';

/** What a tab that cannot be read now answers (a dialog pending, a crashed page); undefined when it can be read. */
export function unreadableNow(tab: Tab, root: FrameRecord): Snapshot | undefined {
  const pending = tab.dialogs.pending;
  if (pending) return dialogSnapshot(tab, root, pending);
  if (tab.crashed) return unreadableSnapshot(tab, root, CRASHED);
  return undefined;
}

export async function observe(input: ObserveInput): Promise<Snapshot> {
  const { tab, root } = input;
  const unreadable = unreadableNow(tab, root);
  if (unreadable) return unreadable;
  // A dead renderer answers nothing: what was asked of it would only run out its budget.
  const crashed = tab.whenCrashed();
  try {
    return await Promise.race([observeLive(input), crashed.promise.then(() => unreadableSnapshot(tab, root, CRASHED))]);
  } finally {
    crashed.dispose();
  }
}

async function observeLive(input: ObserveInput): Promise<Snapshot> {
  const { tab, root } = input;
  const budget = input.budget ?? input.reader.wholeReads?.budget ?? DEFAULT_BUDGET;
  let frames = framesUnder(tab, root);
  let read = await readPageCached(input, frames, budget);
  // A document committed while the page was read (a navigation under way): what was read may
  // mix old and new documents. Read once more, as the frames are now.
  if (!('dialog' in read) && documentsMoved(tab, root, frames, read)) {
    frames = framesUnder(tab, root);
    read = await readPageCached(input, frames, budget);
  }
  if ('dialog' in read) return dialogSnapshot(tab, root, read.dialog);
  // The same read (nothing changed) asked the same way renders the same: skip the work.
  const key = JSON.stringify([input.maxElements, input.subtree ?? null, input.secrets]);
  const memo = input.reader.renderMemo.get(read);
  if (memo && memo.refs === input.refs && memo.key === key) return memo.snapshot;
  for (let round = 0;; round++) {
    const outcome = renderPage({
      tab,
      root,
      frames,
      read,
      refs: input.refs,
      maxElements: input.maxElements,
      secrets: input.secrets,
      stitchedViews: input.reader.stitchedViews,
      ...(input.subtree ? { subtree: input.subtree } : {}),
    });
    if ('rendered' in outcome) {
      input.reader.renderMemo.set(read, { refs: input.refs, key, snapshot: outcome.rendered });
      return outcome.rendered;
    }
    // The answer needs more of the document than its prefix read holds: read on, and again.
    const further = {
      reader: input.reader,
      root,
      frameId: outcome.needs.frameId,
      read,
      maxElements: input.maxElements,
      budget,
      ...(input.worlds ? { worlds: input.worlds } : {}),
      ...(input.subtree ? { subtree: { ...input.subtree, round } } : {}),
    };
    const more = await readFurther(input.signal ? { ...further, signal: input.signal } : further);
    if (!more) throw new Error('the tree was read only in part, and the answer needs more of it');
    input.reader.replaceRead(root.id, read, (await furtherToKeep(input, read, more, budget)) ? more.read : undefined);
    read = more.read;
  }
}

/** Whether the frames under `root`, or any of their documents, changed since `read` began. */
function documentsMoved(tab: Tab, root: FrameRecord, frames: FrameRecord[], read: PageRead): boolean {
  const now = framesUnder(tab, root);
  if (now.length !== frames.length || now.some((frame, i) => frame !== frames[i])) return true;
  return read.frameReads.some((frameRead, i) => frameRead.loaderId !== now[i]!.loaderId);
}

/** From this many elements on, a first look reads the document's tree only as far as its answer needs. */
export const PREFIX_MIN_ELEMENTS = 2_000;

/** TabReader.elementsPerProbe: past one probe for this many elements, a whole read is cheaper. */
export const ELEMENTS_PER_PROBE = 10;

/**
 * The page read for `frames`: the frames' monitors are asked what changed (unless what was read
 * ahead answered already), read-plan.ts says what to read again, and the read is kept for the next time.
 */
async function readPageCached(
  input: ObserveInput,
  frames: FrameRecord[],
  budget: ObserveBudget,
): Promise<PageRead | { dialog: PendingDialog }> {
  const { tab, root, reader } = input;
  const common = { tab, root, reader, frames, budget, ...(input.signal ? { signal: input.signal } : {}) };
  const worlds = input.worlds;
  if (!worlds) return readPage(common);
  const cached = reader.lastRead(root.id);
  const cachedFrame = (frame: FrameRecord) => cachedFrameOf(cached, frame);
  // Changes are taken before the page is read: a change during the read is seen next time.
  const readAhead = frames.map((frame) =>
    readAheadFor({ reader, readAhead: input.readAhead, root, frame, mark: cachedFrame(frame)?.mark })
  );
  // What changed last time is read again for the accessibility tree right behind the question
  // (a status line, a counter, a live region changes again and again): when it did change, its
  // read is there with the answer, a round trip sooner. It reaches the page after the question,
  // so it sees the page as the answer does, or later, as any read after the answer would.
  const asked = await Promise.all(
    frames.map(async (frame, i): Promise<{ changes?: FrameChanges; axReadsAhead?: AxReadsAhead }> => {
      const taken = readAhead[i];
      if (taken) return { changes: taken.changes, ...(taken.axReadsAhead ? { axReadsAhead: taken.axReadsAhead } : {}) };
      const ids = cachedFrame(frame)?.readAheadIds ?? [];
      const options = { timeoutMs: budget.perFrameMs, ...(input.signal ? { signal: input.signal } : {}) };
      const readIdsAhead = ids.length === 0
        ? undefined
        : () => new Map(ids.map((id) => [id, readAxPart(frame, id, options).catch(() => undefined)]));
      const { changes, behind } = await readChanges({
        worlds,
        frame,
        since: cachedFrame(frame)?.mark,
        timeoutMs: budget.perFrameMs,
        ...(readIdsAhead ? { behind: readIdsAhead } : {}),
      });
      return { ...(changes ? { changes } : {}), ...(behind ? { axReadsAhead: behind } : {}) };
    }),
  );
  const changes = asked.map((answer) => answer.changes);
  const axReadsAhead = asked.map((answer) => answer.axReadsAhead);
  const planned = planReads({ cached, frames, changes, axReadsAhead });
  if (planned.kind === 'cached') {
    reader.count('frameReadsReused', frames.length);
    return planned.read;
  }
  // A prefix read costs a round trip per level of the tree it reads: on a small document one
  // whole read is cheaper (docs/observation.md, "A first look"), and so it is on a document whose
  // probes would be many calls: those are asked before the read, so that a document read whole
  // has its snapshot taken alongside, as any whole read.
  const from = input.subtree?.frameId === root.id ? { from: input.subtree.backendNodeId } : {};
  const isLarge = (frame: FrameRecord) => (changes[frames.indexOf(frame)]?.elements ?? 0) >= reader.prefixFrom;
  // A root_ref's subtree is read from its element, with no probes of the document's first paths.
  const subtreeRoot = 'from' in from && isLarge(root);
  const large = reader.wholeReads ? new Map<string, Probes | undefined>() : await prefixFrames({
    reader,
    worlds,
    frames: frames.filter((frame) => isLarge(frame) && !(subtreeRoot && frame === root)),
    elements: (frame) => changes[frames.indexOf(frame)]?.elements ?? 0,
    wanted: input.maxElements + 1,
    send: { timeoutMs: budget.totalMs, ...(input.signal ? { signal: input.signal } : {}) },
  });
  if (subtreeRoot && !reader.wholeReads) large.set(root.id, undefined);
  const prefix = large.size > 0 ? { prefix: { maxElements: input.maxElements, worlds, frames: large, ...from } } : {};
  const read = await readPage({ ...common, ...prefix, plan: planned.plan });
  if ('dialog' in read) return read;
  const keep = readToKeep(read, changes);
  const monitors = new Map(frames.map((frame, i) => [frame.id, changes[i]?.monitor]));
  if (keep && (await watchClosedShadowRoots({ reader, worlds, tab, read, budget, monitorOf: (frameId) => monitors.get(frameId) }))) {
    reader.keepRead(root.id, keep);
  } else {
    reader.keepRead(root.id, undefined);
  }
  return read;
}

/**
 * The frames among `frames` (large documents) to read by prefix, each with the elements to ask
 * about first: a frame whose probes come to more than one for `reader.elementsPerProbe` of its
 * elements is read whole (each probe is a call). A frame whose probes cannot be asked is read by
 * prefix still (it asks them again, or reads level by level).
 */
async function prefixFrames(options: {
  reader: TabReader;
  worlds: IsolatedWorlds;
  frames: FrameRecord[];
  elements: (frame: FrameRecord) => number;
  wanted: number;
  send: { timeoutMs: number; signal?: AbortSignal };
}): Promise<Map<string, Probes | undefined>> {
  const { reader, worlds, wanted, send } = options;
  const asked = await Promise.all(
    options.frames.map((frame) => probesOf({ worlds, frame, wanted, skip: 0, send }).catch(() => undefined)),
  );
  const chosen = new Map<string, Probes | undefined>();
  for (const [i, frame] of options.frames.entries()) {
    const probes = asked[i];
    if (probes && probes.probes.length * reader.elementsPerProbe > options.elements(frame)) continue;
    chosen.set(frame.id, probes);
  }
  return chosen;
}

/**
 * Whether `more`, `read` read further, may be kept for the next observation: when its facts came
 * from a snapshot that lists closed shadow roots, once those are handed to the monitors of the
 * kept read's frames, as after any read (readPageCached).
 */
async function furtherToKeep(input: ObserveInput, read: PageRead, more: FurtherRead, budget: ObserveBudget): Promise<boolean> {
  if (more.keep) return true;
  const kept = input.reader.lastRead(input.root.id);
  if (!input.worlds || kept?.read !== read) return false;
  return watchClosedShadowRoots({
    reader: input.reader,
    worlds: input.worlds,
    tab: input.tab,
    read: more.read,
    budget,
    monitorOf: (frameId) => kept.frames.get(frameId)?.mark.monitor,
  });
}

/**
 * True when every closed shadow root is now watched (else a change there could go unseen). The
 * roots a monitor was handed already are not handed again (TabReader.watchedClosedRoots).
 */
async function watchClosedShadowRoots(options: {
  reader: TabReader;
  worlds: IsolatedWorlds;
  tab: Tab;
  read: PageRead;
  budget: ObserveBudget;
  monitorOf: (frameId: string) => string | undefined;
}): Promise<boolean> {
  const { reader, worlds, tab, read, budget, monitorOf } = options;
  const results = await Promise.all(
    read.sessionSnapshots.flatMap(({ documents }) =>
      documents
        .filter((document) => document.closedShadowRoots.length > 0)
        .map(async (document) => {
          const frame = tab.frames.get(document.frameId);
          if (!frame) return false;
          const monitor = monitorOf(document.frameId);
          const known = monitor === undefined ? undefined : reader.watchedClosedRoots(monitor);
          const fresh = document.closedShadowRoots.filter((backendNodeId) => !known?.has(backendNodeId));
          if (fresh.length === 0) return true;
          if (!(await watchClosedRoots(worlds, frame, fresh, budget.perFrameMs))) return false;
          if (monitor !== undefined) reader.markClosedRootsWatched(monitor, fresh);
          return true;
        })
    ),
  );
  return results.every(Boolean);
}

function dialogSnapshot(tab: Tab, root: FrameRecord, dialog: PendingDialog): Snapshot {
  return { ...unreadableSnapshot(tab, root, 'a dialog is open'), dialog };
}

function unreadableSnapshot(tab: Tab, root: FrameRecord, reason: string): Snapshot {
  return {
    tree: '',
    elements: [],
    text: '',
    truncated: false,
    targets: [],
    boxes: new Map(),
    layouts: new Map(),
    title: tab.title,
    frames: [{ frameId: root.id, loaderId: root.loaderId, documentBackendNodeId: undefined, url: root.url, status: 'unavailable', reason }],
  };
}
