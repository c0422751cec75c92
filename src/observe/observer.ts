// One observation of a tab: the accessibility tree of every frame under the observed one (each
// through the session that hosts it, so out-of-process iframes are read too), one DOMSnapshot per
// renderer for geometry and clickability, stitched at the iframe nodes and rendered. A frame that
// cannot be read within its budget is reported unavailable; the rest is still returned.
import type { Cdp } from '../../protocol/generated/cdp.ts';
import type { FrameRecord } from '../browser/frame-tree.ts';
import type { PendingDialog } from '../browser/dialogs.ts';
import type { Tab } from '../browser/tab.ts';
import { isCdpError } from '../cdp/errors.ts';
import type { CdpSession } from '../cdp/session.ts';
import { ServerError } from '../errors.ts';
import { type AxViewNode, buildAxTree, buildAxTreeFrom } from './ax-tree.ts';
import { type Box, type DocumentFacts, type PointerSource, readSnapshot, SNAPSHOT_STYLES } from './page-facts.ts';
import type { RefRegistry } from './refs.ts';
import { render, type Rendered, type StitchedNode } from './render.ts';
import type { ObservedFrame } from './state-store.ts';
import { type FrameChanges, type MonitorMark, readChanges, type SettleFirst, watchClosedRoots } from './change-monitor.ts';
import { type AxDocument, axDocument, type AxPatch, patchAxDocument } from './ax-document.ts';
import type { IsolatedWorlds } from '../browser/isolated-worlds.ts';
import type { KnownSecret } from '../util/redact.ts';
import { type AxPart, readAxPart } from './ax-part.ts';
import type { TabReader } from './tab-reader.ts';

export interface ObserveBudget {
  perFrameMs: number;
  totalMs: number;
}

export const DEFAULT_BUDGET: ObserveBudget = { perFrameMs: 1_000, totalMs: 3_000 };

export interface ObserveInput {
  tab: Tab;
  /** The tab's reading state: what earlier observations read, and the counters. */
  reader: TabReader;
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
  /** Frames' changes already taken (by act, as its input settled): not asked for again. */
  prefetched?: PrefetchedChanges;
}

/** Frames' changes, taken before an observation of `rootId` began (see settleAndTakeChanges). */
export interface PrefetchedChanges {
  rootId: string;
  /** By frame id. */
  frames: Map<string, PrefetchedFrame>;
}

interface PrefetchedFrame {
  loaderId: string;
  /** The mark they were taken against: the observation must still stand there. */
  since: MonitorMark | undefined;
  changes: FrameChanges;
  /**
   * Accessibility reads of elements likely to have changed (the field an act filled), made
   * while the frame settled; kept only when the changes are `quiet`, so they are still true.
   */
  preread?: ReadonlyMap<number, Promise<AxPart | undefined>>;
}

export interface Snapshot extends Rendered {
  frames: ObservedFrame[];
  title: string;
  /** Set when a dialog was (or became) pending: nothing could be read. */
  dialog?: PendingDialog;
}

export interface FrameRead {
  frame: FrameRecord;
  /** The frame's document when its read began. */
  loaderId: string;
  tree?: AxViewNode;
  /** The nodes the tree was built from, kept for patching after a change. */
  ax?: AxDocument;
  reason?: string;
}

/** How to read a frame's tree: in full, from the last read, or the last read with parts re-read. */
type FramePlan =
  | { kind: 'full' }
  | { kind: 'reuse'; read: FrameRead }
  | { kind: 'patch'; ax: AxDocument; roots: number[]; preread?: ReadonlyMap<number, Promise<AxPart | undefined>> };

interface ReadPlan {
  frames: Map<string, FramePlan>;
  /** Renderers whose documents did not change: their last snapshot still holds. */
  snapshots: Map<CdpSession, SessionRead>;
  /** Renderers whose documents changed in known places: snapshot without computed styles. */
  light: Map<CdpSession, PointerSource>;
}

/** The frame and every frame below it, in the tree's order. */
function framesUnder(tab: Tab, root: FrameRecord): FrameRecord[] {
  const all = tab.frames.list();
  const inside = new Set([root.id]);
  const out: FrameRecord[] = [];
  for (const frame of all) {
    if (frame.id === root.id || (frame.parentId !== undefined && inside.has(frame.parentId))) {
      inside.add(frame.id);
      out.push(frame);
    }
  }
  return out;
}

function failure(error: unknown, budgetMs: number): string {
  if (isCdpError(error) && error.kind === 'timeout') return `no answer within ${budgetMs} ms`;
  if (isCdpError(error) && error.isTargetGone) return 'the frame went away while it was read';
  return error instanceof Error ? error.message : String(error);
}

/** Runs `work`, but gives up as soon as a dialog opens (the renderer is paused then). */
async function unlessDialog<T>(tab: Tab, work: Promise<T>): Promise<{ value?: T; dialog?: PendingDialog }> {
  const opened = tab.dialogs.whenOpened();
  try {
    return await Promise.race([work.then((value) => ({ value })), opened.promise.then((dialog) => ({ dialog }))]);
  } finally {
    opened.dispose();
  }
}

const CRASHED = 'the page crashed: navigate or reload the tab (act), or close it';

export async function observe(input: ObserveInput): Promise<Snapshot> {
  const { tab, root } = input;
  const pending = tab.dialogs.pending;
  if (pending) return dialogSnapshot(tab, root, pending);
  if (tab.crashed) return unreadableSnapshot(tab, root, CRASHED);
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
  const budget = input.budget ?? DEFAULT_BUDGET;
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
  const snapshot = renderRead(input, frames, read);
  input.reader.renderMemo.set(read, { refs: input.refs, key, snapshot });
  return snapshot;
}

/** Whether the frames under `root`, or any of their documents, changed since `read` began. */
function documentsMoved(tab: Tab, root: FrameRecord, frames: FrameRecord[], read: PageRead): boolean {
  const now = framesUnder(tab, root);
  if (now.length !== frames.length || now.some((frame, i) => frame !== frames[i])) return true;
  return read.frameReads.some((frameRead, i) => frameRead.loaderId !== now[i]!.loaderId);
}

function renderRead(input: ObserveInput, frames: FrameRecord[], read: PageRead): Snapshot {
  const { tab, root } = input;
  const { frameReads, sessionSnapshots, ownerPairs } = read;
  const stitchedViews = input.reader.stitchedViews;

  const factsByFrame = new Map<string, DocumentFacts>();
  const ownerToFrame = new Map<string, string>(); // `${parentFrameId}:${backendNodeId}` → child frame id
  const layoutSize = new Map<CdpSession, Cdp.Page.GetLayoutMetricsResult>();
  for (const { session, documents, metrics } of sessionSnapshots) {
    if (metrics) layoutSize.set(session, metrics);
    for (const document of documents) {
      factsByFrame.set(document.frameId, document);
      for (const [owner, child] of document.childFrames) ownerToFrame.set(`${document.frameId}:${owner}`, child);
    }
  }
  for (const pair of ownerPairs) {
    if (!pair) continue;
    const child = tab.frames.get(pair[1]);
    if (child?.parentId) ownerToFrame.set(`${child.parentId}:${pair[0]}`, child.id);
  }

  const readByFrame = new Map(frameReads.map((read) => [read.frame.id, read]));
  const observedFrames: ObservedFrame[] = frameReads.map(({ frame, tree, reason }) => ({
    frameId: frame.id,
    loaderId: frame.loaderId,
    documentBackendNodeId: tree?.backendNodeId,
    url: frame.url,
    status: tree ? 'observed' : 'unavailable',
    ...(reason ? { reason } : {}),
  }));

  const stitch = (node: AxViewNode, frameId: string): StitchedNode => {
    const known = stitchedViews.get(node);
    if (known) return known;
    const stitched: StitchedNode = { ...node, frameId, children: [] };
    const childFrameId = node.role === 'Iframe' && node.backendNodeId !== undefined
      ? ownerToFrame.get(`${frameId}:${node.backendNodeId}`)
      : undefined;
    if (childFrameId !== undefined) {
      const read = readByFrame.get(childFrameId);
      if (read?.tree) {
        stitched.childFrame = { frameId: childFrameId, status: 'observed' };
        stitched.children = read.tree.children.map((child) => stitch(child, childFrameId));
      } else {
        stitched.childFrame = { frameId: childFrameId, status: 'unavailable', reason: read?.reason ?? 'not read' };
      }
      return stitched;
    }
    stitched.children = node.children.map((child) => stitch(child, frameId));
    // Without an iframe below, the result depends on nothing but the node: keep it for the next
    // observation (a patched tree shares the views of its unchanged parts).
    if (node.role !== 'Iframe' && node.children.every((child) => stitchedViews.has(child))) stitchedViews.set(node, stitched);
    return stitched;
  };

  const rootRead = readByFrame.get(root.id);
  let tree: StitchedNode = rootRead?.tree
    ? stitch(rootRead.tree, root.id)
    : { role: 'RootWebArea', name: '', backendNodeId: undefined, states: {}, frameId: root.id, children: [] };
  if (input.subtree) {
    const found = findNode(tree, input.subtree.frameId, input.subtree.backendNodeId);
    if (!found) throw new ServerError('invalid_params', 'root_ref is no longer in the page', { details: { field: 'root_ref' } });
    tree = found;
  }

  const viewport = viewportIndex(tab, frames, factsByFrame, layoutSize);
  const rendered = render(tree, {
    maxElements: input.maxElements,
    secrets: input.secrets,
    facts: (frameId, backendNodeId) => factsByFrame.get(frameId)?.nodes.get(backendNodeId),
    textBox: (frameId, backendNodeId) => factsByFrame.get(frameId)?.textBoxes.get(backendNodeId),
    inViewport: viewport.inViewport,
    viewportBox: viewport.viewportBox,
    refFor: (frameId, backendNodeId) => input.refs.refFor(frameId, tab.frames.get(frameId)?.loaderId ?? '', backendNodeId),
  });
  return { ...rendered, frames: observedFrames, title: rootRead?.tree?.name ?? '' };
}

export interface SessionRead {
  session: CdpSession;
  documents: DocumentFacts[];
  metrics: Cdp.Page.GetLayoutMetricsResult | undefined;
}

export interface PageRead {
  frameReads: FrameRead[];
  sessionSnapshots: SessionRead[];
  ownerPairs: Array<readonly [number, string] | undefined>;
}

/** The raw reads of every frame and renderer an observation needs (or the dialog that stopped them). */
async function readPage(
  input: ObserveInput,
  frames: FrameRecord[],
  budget: ObserveBudget,
  plan?: ReadPlan,
): Promise<PageRead | { dialog: PendingDialog }> {
  const { tab, root } = input;
  const started = performance.now();
  const sessions = new Map<CdpSession, FrameRecord>();
  for (const frame of frames) if (!sessions.has(frame.session)) sessions.set(frame.session, frame);
  // The observed frame itself (and its renderer's snapshot) may use the whole budget: a large page
  // can take more than a second to read, and without it there is no observation at all. Every
  // other frame gets its own, shorter budget, so one stalled iframe cannot hold the rest.
  const timeoutFor = (isRoot: boolean) => {
    const left = budget.totalMs - (performance.now() - started);
    return Math.max(1, isRoot ? left : Math.min(budget.perFrameMs, left));
  };
  const send = <T>(isRoot: boolean, call: (options: { timeoutMs: number; signal?: AbortSignal }) => Promise<T>) =>
    call({ timeoutMs: timeoutFor(isRoot), ...(input.signal ? { signal: input.signal } : {}) });

  const readFrame = async (frame: FrameRecord): Promise<Omit<FrameRead, 'loaderId'>> => {
    // Its first document has not committed: what is there is a placeholder, not the page.
    if (frame !== root && frame.loaderId === '' && frame.loading) {
      return { frame, reason: 'its document is still loading (no navigation has committed)' };
    }
    const framePlan = plan?.frames.get(frame.id);
    if (framePlan?.kind === 'reuse') {
      input.reader.count('frameReadsReused');
      return { ...framePlan.read, frame };
    }
    try {
      if (framePlan?.kind === 'patch') {
        const patched = await readPatched({
          reader: input.reader,
          frame,
          ax: framePlan.ax,
          roots: framePlan.roots,
          send: (call) => send(frame === root, call),
          ...(framePlan.preread ? { preread: framePlan.preread } : {}),
        });
        if (patched) {
          input.reader.count('frameReadsPatched');
          return { frame, tree: treeOf(patched, input.reader), ax: patched };
        }
      }
      input.reader.count('frameReadsFull');
      const { nodes } = await send(frame === root, (o) => frame.session.sendWith(o, 'Accessibility.getFullAXTree', { frameId: frame.id }));
      // Built from the kept nodes, so that a later patch of them reuses this build's work.
      const ax = axDocument(nodes);
      const tree = ax ? treeOf(ax, input.reader) : buildAxTree(nodes);
      if (!tree) return { frame, reason: 'the frame has no document' };
      return ax ? { frame, tree, ax } : { frame, tree };
    } catch (error) {
      if (isCdpError(error) && error.kind === 'protocol' && /Accessibility/i.test(error.message) && frame === root) {
        throw new ServerError('internal_error', `the CDP Accessibility domain is unavailable: ${error.message}`, { cause: error });
      }
      return { frame, reason: failure(error, frame === root ? budget.totalMs : budget.perFrameMs) };
    }
  };
  const reads = Promise.all(
    frames.map(async (frame): Promise<FrameRead> => {
      const loaderId = frame.loaderId;
      return { ...(await readFrame(frame)), loaderId };
    }),
  );
  const snapshots = Promise.all(
    [...sessions.keys()].map(async (session): Promise<SessionRead> => {
      const kept = plan?.snapshots.get(session);
      if (kept) {
        input.reader.count('snapshotsKept');
        return kept;
      }
      try {
        const pointers = plan?.light.get(session);
        input.reader.count(pointers ? 'snapshotsLight' : 'snapshotsFull');
        const [snapshot, metrics] = await Promise.all([
          send(
            session === root.session,
            (o) =>
              session.sendWith(o, 'DOMSnapshot.captureSnapshot', {
                computedStyles: pointers ? [] : SNAPSHOT_STYLES,
                includeDOMRects: false,
              }),
          ),
          send(session === root.session, (o) => session.sendWith(o, 'Page.getLayoutMetrics')),
        ]);
        return { session, documents: readSnapshot(snapshot, pointers), metrics };
      } catch {
        return { session, documents: [] as DocumentFacts[], metrics: undefined };
      }
    }),
  );
  // Out-of-process frames are not in their parent's snapshot: ask the parent who owns them, once
  // per parent document (a frame keeps its owner element; a new element makes a new frame).
  const owners = Promise.all(
    frames
      .filter((frame) => frame.crossProcess && frame.parentId !== undefined && frame !== root)
      .map(async (frame) => {
        const parent = tab.frames.get(frame.parentId!);
        if (!parent) return undefined;
        const known = input.reader.frameOwners.get(frame);
        if (known?.parentLoaderId === parent.loaderId) return [known.backendNodeId, frame.id] as const;
        try {
          const { backendNodeId } = await send(false, (o) => parent.session.sendWith(o, 'DOM.getFrameOwner', { frameId: frame.id }));
          input.reader.frameOwners.set(frame, { parentLoaderId: parent.loaderId, backendNodeId });
          return [backendNodeId, frame.id] as const;
        } catch {
          return undefined;
        }
      }),
  );
  const outcome = await unlessDialog(tab, Promise.all([reads, snapshots, owners]));
  if (outcome.dialog || !outcome.value) return { dialog: outcome.dialog ?? tab.dialogs.pending! };
  const [frameReads, sessionSnapshots, ownerPairs] = outcome.value;
  return { frameReads, sessionSnapshots, ownerPairs };
}

/**
 * The frame's last tree with the changed parts read again (see ax-document.ts), or undefined when
 * that cannot be done and the caller must read the whole document.
 */
async function readPatched(options: {
  reader: TabReader;
  frame: FrameRecord;
  ax: AxDocument;
  roots: readonly number[];
  send: <T>(call: (options: { timeoutMs: number; signal?: AbortSignal }) => Promise<T>) => Promise<T>;
  preread?: ReadonlyMap<number, Promise<AxPart | undefined>>;
}): Promise<AxDocument | undefined> {
  const { reader, frame, ax, roots, send, preread } = options;
  const readPart = async (backendNodeId: number, retry: boolean): Promise<AxPatch | undefined> => {
    const early = await preread?.get(backendNodeId);
    if (early) reader.count('axPartsPrefetched');
    const { subtree, relatives } = early ?? (await send((o) => readAxPart(frame, backendNodeId, o)));
    const own = subtree.find((node) => node.backendDOMNodeId === backendNodeId);
    if (own) return { backendNodeId, subtree, relatives };
    // No accessibility node of its own (a <b> inside a button, whose content is the button's):
    // read the nearest ancestor that the last tree has instead.
    if (!retry) return undefined;
    const byId = new Map(relatives.map((node) => [node.nodeId, node]));
    let node = relatives.find((candidate) => candidate.backendDOMNodeId === backendNodeId);
    while (node && (node.backendDOMNodeId === backendNodeId || !ax.nodes.has(node.nodeId))) {
      node = node.parentId === undefined ? undefined : byId.get(node.parentId);
    }
    // Up to the document itself: that is a full read.
    if (!node || node.backendDOMNodeId === undefined || node.nodeId === ax.rootId) return undefined;
    return readPart(node.backendDOMNodeId, false);
  };
  try {
    const patches = await Promise.all(roots.map((backendNodeId) => readPart(backendNodeId, true)));
    if (patches.some((patch) => patch === undefined)) return undefined;
    return patchAxDocument(ax, patches as AxPatch[]);
  } catch (error) {
    if (isCdpError(error) && (error.kind === 'timeout' || error.isTargetGone)) throw error;
    return undefined; // e.g. a changed element without an accessibility node
  }
}

function treeOf(document: AxDocument, reader: TabReader): AxViewNode | undefined {
  const root = document.nodes.get(document.rootId);
  return root ? buildAxTreeFrom(document.nodes, root, reader.views) : undefined;
}

export interface CachedFrame {
  loaderId: string;
  /** Where the frame's monitor stood when this read began. */
  mark: MonitorMark;
  read: FrameRead;
  /** The few elements that had changed for this read: the likeliest to change again. */
  lastChanged: readonly number[];
}

/** At most this many of a read's changed elements are read early on the next observation. */
const MAX_READ_EARLY = 4;

export interface CachedRead {
  frames: Map<string, CachedFrame>;
  read: PageRead;
}

function pointerSource(previous: SessionRead, changes: FrameChanges[]): PointerSource {
  const byFrame = new Map(previous.documents.map((document) => [document.frameId, document.nodes]));
  return {
    changedRoots: new Set(changes.flatMap((change) => change.roots)),
    pointers: new Set(changes.flatMap((change) => change.pointers)),
    previous: (frameId, backendNodeId) => byFrame.get(frameId)?.get(backendNodeId),
  };
}

/**
 * A kept snapshot with each document's scroll offset as its monitor last saw it: the document
 * may have scrolled with every box where it was in the document (what in_viewport is read from).
 */
function scrolledTo(snapshot: SessionRead, scrolls: ReadonlyMap<string, readonly [number, number] | undefined>): SessionRead {
  const moved = (document: DocumentFacts) => {
    const scroll = scrolls.get(document.frameId);
    return scroll !== undefined && (scroll[0] !== document.scrollX || scroll[1] !== document.scrollY);
  };
  if (!snapshot.documents.some(moved)) return snapshot;
  return {
    ...snapshot,
    documents: snapshot.documents.map((document) => {
      if (!moved(document)) return document;
      const [scrollX, scrollY] = scrolls.get(document.frameId)!;
      return { ...document, scrollX, scrollY };
    }),
  };
}

/** The last read of `frame` in `cached`, while the frame still shows that document. */
function cachedFrameOf(cached: CachedRead | undefined, frame: FrameRecord): CachedFrame | undefined {
  const entry = cached?.frames.get(frame.id);
  return entry && entry.loaderId === frame.loaderId ? entry : undefined;
}

/** The prefetched changes of `frame`, when they were taken against where its last read stands. */
function prefetchedFor(input: ObserveInput, frame: FrameRecord, mark: MonitorMark | undefined): PrefetchedFrame | undefined {
  const prefetched = input.prefetched?.rootId === input.root.id ? input.prefetched.frames.get(frame.id) : undefined;
  if (!prefetched || prefetched.loaderId !== frame.loaderId) return undefined;
  const same = prefetched.since === undefined
    ? mark === undefined
    : mark !== undefined && mark.monitor === prefetched.since.monitor && mark.generation === prefetched.since.generation;
  if (!same) return undefined;
  input.reader.count('changesPrefetched');
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
 * in one round trip, for the observation that follows (ObserveInput.prefetched). The other frames
 * of that observation that were read before are asked meanwhile, once `acknowledged` (the input's
 * acknowledgement: whatever its handlers did at once to those frames is done): their changes are
 * taken while the acted frame settles rather than after. Frames that could not be asked are left
 * out (the observation asks them itself); settled all the same. The elements of `frame` named in
 * `likelyChanged` (the field an act filled), and those that changed in it for the last
 * observation, are read for the accessibility tree once the input is acknowledged, while the frame
 * settles: the observation uses those reads if nothing happened after the input's handlers
 * (FrameChanges.quiet), one round trip less.
 */
export async function settleAndTakeChanges(options: SettleOptions): Promise<PrefetchedChanges> {
  const { reader, worlds, tab, root, frame, settle } = options;
  const acknowledged = options.acknowledged ?? Promise.resolve();
  const likelyChanged = options.likelyChanged ?? [];
  const timeoutMs = options.timeoutMs ?? DEFAULT_BUDGET.perFrameMs;
  const cached = reader.lastRead(root.id);
  const take = async (target: FrameRecord, settleFirst?: SettleFirst): Promise<[string, PrefetchedFrame] | undefined> => {
    const loaderId = target.loaderId;
    const since = cachedFrameOf(cached, target)?.mark;
    const changes = await readChanges(worlds, target, since, timeoutMs, settleFirst);
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

function planFor(
  cached: CachedFrame | undefined,
  frame: FrameRecord,
  changes: FrameChanges,
  preread?: ReadonlyMap<number, Promise<AxPart | undefined>>,
): FramePlan {
  if (!cached || cached.loaderId !== frame.loaderId || changes.full || !cached.read.tree) return { kind: 'full' };
  if (changes.roots.length === 0) return { kind: 'reuse', read: cached.read };
  return cached.read.ax ? { kind: 'patch', ax: cached.read.ax, roots: changes.roots, ...(preread ? { preread } : {}) } : { kind: 'full' };
}

async function readPageCached(
  input: ObserveInput,
  frames: FrameRecord[],
  budget: ObserveBudget,
): Promise<PageRead | { dialog: PendingDialog }> {
  const { tab, root } = input;
  const worlds = input.worlds;
  if (!worlds) return readPage(input, frames, budget);
  const reader = input.reader;
  const cached = reader.lastRead(root.id);
  const cachedFrame = (frame: FrameRecord) => cachedFrameOf(cached, frame);
  // Changes are taken before the page is read: a change during the read is seen next time.
  const prefetched = frames.map((frame) => prefetchedFor(input, frame, cachedFrame(frame)?.mark));
  // What changed last time is read again for the accessibility tree right behind the question
  // (a status line, a counter, a live region changes again and again): when it did change, its
  // read is there with the answer, a round trip sooner. It reaches the page after the question,
  // so it sees the page as the answer does, or later, as any read after the answer would.
  const readEarly: Array<ReadonlyMap<number, Promise<AxPart | undefined>> | undefined> = frames.map((_frame, i) => prefetched[i]?.preread);
  const changes = await Promise.all(
    frames.map(
      (frame, i) =>
        prefetched[i]?.changes ??
          readChanges(worlds, frame, cachedFrame(frame)?.mark, budget.perFrameMs, undefined, () => {
            const likely = cachedFrame(frame)?.lastChanged ?? [];
            if (likely.length === 0) return;
            const options = { timeoutMs: budget.perFrameMs, ...(input.signal ? { signal: input.signal } : {}) };
            readEarly[i] = new Map(likely.map((id) => [id, readAxPart(frame, id, options).catch(() => undefined)]));
          }),
    ),
  );
  const sameFrameSet = cached !== undefined && cached.frames.size === frames.length && frames.every((frame) => cached.frames.has(frame.id));
  const unchanged = (frame: FrameRecord, i: number) => {
    const entry = cachedFrame(frame);
    const change = changes[i];
    return entry !== undefined && change !== undefined && !change.full && !change.geometry && change.generation === entry.mark.generation;
  };
  if (cached && sameFrameSet && frames.every(unchanged)) {
    reader.count('frameReadsReused', frames.length);
    return cached.read;
  }

  const plan: ReadPlan = { frames: new Map(), snapshots: new Map(), light: new Map() };
  frames.forEach((frame, i) => {
    const change = changes[i];
    plan.frames.set(frame.id, change ? planFor(cachedFrame(frame), frame, change, readEarly[i]) : { kind: 'full' });
  });
  if (cached && sameFrameSet) {
    for (const snapshot of cached.read.sessionSnapshots) {
      const hosted = frames.map((frame, i) => [frame, i] as const).filter(([frame]) => frame.session === snapshot.session);
      if (hosted.length === 0 || snapshot.documents.length === 0) continue;
      // A renderer none of whose frames changed, or changed only in values, checks and focus,
      // keeps its snapshot (geometry, clickability)…
      const boxesHold = (frame: FrameRecord, i: number) => {
        const change = changes[i];
        return unchanged(frame, i) || (change !== undefined && !change.full && !change.geometry && !change.layout);
      };
      if (hosted.every(([frame, i]) => boxesHold(frame, i))) {
        plan.snapshots.set(snapshot.session, scrolledTo(snapshot, new Map(hosted.map(([frame, i]) => [frame.id, changes[i]?.scroll]))));
        continue;
      }
      // …and one whose frames changed in known places is read again without computed styles.
      if (hosted.every(([frame]) => plan.frames.get(frame.id)?.kind !== 'full')) {
        plan.light.set(snapshot.session, pointerSource(snapshot, hosted.map(([, i]) => changes[i]!)));
      }
    }
  }
  const read = await readPage(input, frames, budget, plan);
  if ('dialog' in read) return read;
  const cacheable = changes.every((change) => change !== undefined) && read.frameReads.every((r) => r.tree);
  const monitors = new Map(frames.map((frame, i) => [frame.id, changes[i]?.monitor]));
  if (cacheable && (await watchClosedShadowRoots({ reader, worlds, tab, read, budget, monitorOf: (frameId) => monitors.get(frameId) }))) {
    const entries = new Map<string, CachedFrame>();
    read.frameReads.forEach((frameRead, i) => {
      const change = changes[i]!;
      entries.set(frameRead.frame.id, {
        loaderId: frameRead.loaderId,
        mark: { monitor: change.monitor, generation: change.generation },
        read: frameRead,
        lastChanged: change.roots.length <= MAX_READ_EARLY ? change.roots : [],
      });
    });
    reader.keepRead(root.id, { frames: entries, read });
  } else {
    reader.keepRead(root.id, undefined);
  }
  return read;
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

function findNode(node: StitchedNode, frameId: string, backendNodeId: number): StitchedNode | undefined {
  if (node.frameId === frameId && node.backendNodeId === backendNodeId) return node;
  for (const child of node.children) {
    const found = findNode(child, frameId, backendNodeId);
    if (found) return found;
  }
  return undefined;
}

/**
 * in_viewport for a box of a frame's document: it must meet that frame's viewport (its scroll
 * position and size; a child frame's size is its iframe element's), and the frame's iframe element
 * must itself be in its parent's viewport.
 */
function viewportIndex(
  tab: Tab,
  frames: FrameRecord[],
  facts: Map<string, DocumentFacts>,
  metrics: Map<CdpSession, Cdp.Page.GetLayoutMetricsResult>,
): { inViewport: (frameId: string, box: Box) => boolean; viewportBox: (frameId: string, box: Box) => Box | undefined } {
  const ownerBox = new Map<string, Box>(); // child frame id → its iframe element's box in the parent
  for (const document of facts.values()) {
    for (const [owner, child] of document.childFrames) {
      const box = document.nodes.get(owner)?.box;
      if (box) ownerBox.set(child, box);
    }
  }
  const meets = (a: Box, x: number, y: number, w: number, h: number) => a[0] < x + w && a[0] + a[2] > x && a[1] < y + h && a[1] + a[3] > y;
  const memo = new Map<string, boolean>();
  const frameVisible = (frameId: string): boolean => {
    const known = memo.get(frameId);
    if (known !== undefined) return known;
    const frame = tab.frames.get(frameId);
    let result = true;
    if (frame?.parentId && frames.some((f) => f.id === frame.parentId)) {
      const box = ownerBox.get(frameId);
      result = box ? inViewport(frame.parentId, box) : true;
    }
    memo.set(frameId, result);
    return result;
  };
  const inViewport = (frameId: string, box: Box): boolean => {
    const document = facts.get(frameId);
    const frame = tab.frames.get(frameId);
    if (!document || !frame) return false;
    const size = frame.parentId ? ownerBox.get(frameId) : undefined;
    const layout = metrics.get(frame.session)?.cssLayoutViewport;
    const width = size ? size[2] : (layout?.clientWidth ?? 0);
    const height = size ? size[3] : (layout?.clientHeight ?? 0);
    return meets(box, document.scrollX, document.scrollY, width, height) && frameVisible(frameId);
  };
  // Through each frame's scroll and its iframe element's place in the parent (the iframe's
  // border and padding are not counted: a child frame's boxes may sit a few px off).
  const viewportBox = (frameId: string, box: Box): Box | undefined => {
    const document = facts.get(frameId);
    const frame = tab.frames.get(frameId);
    if (!document || !frame) return undefined;
    const own: Box = [box[0] - document.scrollX, box[1] - document.scrollY, box[2], box[3]];
    if (!frame.parentId) return own;
    const owner = ownerBox.get(frameId);
    const placed = owner ? viewportBox(frame.parentId, owner) : undefined;
    return placed ? [own[0] + placed[0], own[1] + placed[1], own[2], own[3]] : undefined;
  };
  return { inViewport, viewportBox };
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
    title: tab.title,
    frames: [{ frameId: root.id, loaderId: root.loaderId, documentBackendNodeId: undefined, url: root.url, status: 'unavailable', reason }],
  };
}
