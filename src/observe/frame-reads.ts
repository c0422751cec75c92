// The CDP reads of one observation: each frame's accessibility tree (in full, or the last one with
// its changed parts read again), one DOMSnapshot per renderer (full, light or kept), and the
// owners of out-of-process frames. What to read comes from a ReadPlan (read-plan.ts); this module
// only carries it out within the observation's budget.
import type { Cdp } from '../../protocol/generated/cdp.ts';
import type { PendingDialog } from '../browser/dialogs.ts';
import type { FrameRecord } from '../browser/frame-tree.ts';
import type { Tab } from '../browser/tab.ts';
import { isCdpError } from '../cdp/errors.ts';
import type { CdpSession } from '../cdp/session.ts';
import { ServerError } from '../errors.ts';
import { Deadline } from '../util/deadline.ts';
import { type AxDocument, axDocument, type AxPatch, patchAxDocument } from './ax-document.ts';
import { type AxPart, readAxPart } from './ax-part.ts';
import { type AxViewNode, buildAxTree, buildAxTreeFrom } from './ax-tree.ts';
import { type DocumentFacts, readSnapshot, SNAPSHOT_STYLES } from './page-facts.ts';
import type { IsolatedWorlds } from '../browser/isolated-worlds.ts';
import { callPageRaw } from '../browser/page-module.ts';
import { type PrefixCost, readPrefix } from './ax-prefix.ts';
import { readPrefixFacts } from './prefix-facts.ts';
import type { FramePlan, ReadPlan } from './read-plan.ts';
import type { TabReader } from './tab-reader.ts';
import { backendIdOf, NODE_LIST } from './node-list.ts';

export interface ObserveBudget {
  perFrameMs: number;
  totalMs: number;
}

export const DEFAULT_BUDGET: ObserveBudget = { perFrameMs: 1_000, totalMs: 3_000 };

export interface FrameRead {
  frame: FrameRecord;
  /** The frame's document when its read began. */
  loaderId: string;
  tree?: AxViewNode;
  /** The nodes the tree was built from, kept for patching after a change. */
  ax?: AxDocument;
  /**
   * A prefix read (ax.partial): the refs by role it was read for, the document it reads, and how
   * many probes it asked about (page/ax-probes.ts: a read further asks about the next ones).
   */
  prefix?: { wanted: number; documentBackendNodeId: number; probed: number };
  /** Read by prefix, in part or (a small document) whole: the document's backendNodeId. */
  readFromTop?: number;
  reason?: string;
}

export interface SessionRead {
  session: CdpSession;
  documents: DocumentFacts[];
  metrics: Cdp.Page.GetLayoutMetricsResult | undefined;
  /**
   * The observed document's facts are those of the nodes its prefix read holds, taken from the
   * page (prefix-facts.ts), or its pointers are (a light snapshot planned from such facts): a read
   * further takes them again for what it adds.
   */
  fromPage?: true;
}

export interface PageRead {
  frameReads: FrameRead[];
  sessionSnapshots: SessionRead[];
  ownerPairs: Array<readonly [number, string] | undefined>;
}

export interface ReadPageOptions {
  tab: Tab;
  reader: TabReader;
  /** The observed frame: it may use the whole budget. */
  root: FrameRecord;
  /** The root and every frame below it, in the tree's order (framesUnder). */
  frames: FrameRecord[];
  budget: ObserveBudget;
  /** What need not be read in full; without it everything is. */
  plan?: ReadPlan;
  /**
   * Read these frames' trees from the top only as far as `maxElements` refs need (ax-prefix.ts),
   * through our isolated world; without it, every frame in full.
   */
  prefix?: {
    maxElements: number;
    worlds: IsolatedWorlds;
    /**
     * The frames read so (large documents), the observed one or others, each with the elements to
     * ask about first when they were asked already (askProbes).
     */
    frames: ReadonlyMap<string, Probes | undefined>;
    /** An element of the observed frame (backendNodeId): only its subtree is read (root_ref). */
    from?: number;
  };
  signal?: AbortSignal;
}

/** The frame and every frame below it, in the tree's order. */
export function framesUnder(tab: Tab, root: FrameRecord): FrameRecord[] {
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

/** What the frame reads of one readPage share: the page, the plan, and the one deadline of the read. */
interface FrameReadScope {
  tab: Tab;
  reader: TabReader;
  root: FrameRecord;
  budget: ObserveBudget;
  plan: ReadPlan | undefined;
  prefix: ReadPageOptions['prefix'];
  /** How a frame's calls are sent: within the read's deadline, the observed frame's or another's. */
  sendFor(frame: FrameRecord): Send;
}

/** A call's options within `deadline`: what is left of it (at least 1 ms) and its signal. */
function within(deadline: Deadline): SendOptions {
  return { timeoutMs: Math.max(1, deadline.remaining()), signal: deadline.signal };
}

/** The raw reads of every frame and renderer an observation needs (or the dialog that stopped them). */
export async function readPage(options: ReadPageOptions): Promise<PageRead | { dialog: PendingDialog }> {
  const { tab, root, reader, frames, budget, plan } = options;
  const deadline = new Deadline(budget.totalMs, options.signal ? { signal: options.signal } : {});
  const sessions = new Map<CdpSession, FrameRecord>();
  for (const frame of frames) if (!sessions.has(frame.session)) sessions.set(frame.session, frame);
  // The observed frame itself (and its renderer's snapshot) may use the whole budget: a large page
  // can take more than a second to read, and without it there is no observation at all. Every
  // other frame gets its own, shorter budget, so one stalled iframe cannot hold the rest.
  const send = <T>(isRoot: boolean, call: (options: SendOptions) => Promise<T>) =>
    call(within(isRoot ? deadline : deadline.sub(budget.perFrameMs)));
  const scope: FrameReadScope = {
    tab,
    reader,
    root,
    budget,
    plan,
    prefix: options.prefix,
    sendFor: (frame) => (call) => send(frame === root, call),
  };

  const readings = frames.map(async (frame): Promise<FrameRead> => {
    const loaderId = frame.loaderId;
    return { ...(await readFrame(scope, frame)), loaderId };
  });
  const reads = Promise.all(readings);
  // A first look read by prefix takes the facts of what it read from the page rather than a
  // snapshot of the whole document, when the renderer hosts no other frame of the observation
  // (a same-process iframe's document would need its own).
  const fromPage = options.prefix?.frames.has(root.id) && reader.factsFromPage && !plan?.snapshots.has(root.session) &&
      !plan?.light.has(root.session) &&
      frames.every((frame) => frame === root || frame.session !== root.session)
    ? options.prefix.worlds
    : undefined;
  const snapshots = Promise.all(
    [...sessions.keys()].map(async (session): Promise<SessionRead> => {
      const kept = plan?.snapshots.get(session);
      if (kept) {
        reader.count('snapshotsKept');
        return kept;
      }
      let metricsTaken: Cdp.Page.GetLayoutMetricsResult | undefined;
      if (fromPage && session === root.session) {
        const [metrics, read] = await Promise.all([
          send(true, (o) => session.sendWith(o, 'Page.getLayoutMetrics')).catch(() => undefined),
          readings[frames.indexOf(root)]!,
        ]);
        metricsTaken = metrics;
        const facts = metrics && (await factsOfPrefix({ reader, read, worlds: fromPage, send: (call) => send(true, call) }));
        if (facts) return { session, documents: [facts], metrics: metrics!, fromPage: true };
      }
      try {
        const pointers = plan?.light.get(session);
        reader.count(pointers ? 'snapshotsLight' : 'snapshotsFull');
        const [snapshot, metrics] = await Promise.all([
          send(session === root.session, (o) => captureSnapshot(session, o, { light: pointers !== undefined })),
          metricsTaken ?? send(session === root.session, (o) => session.sendWith(o, 'Page.getLayoutMetrics')),
        ]);
        return { session, documents: readSnapshot(snapshot, pointers), metrics, ...(pointers?.partial ? { fromPage: true as const } : {}) };
      } catch {
        return { session, documents: [] as DocumentFacts[], metrics: undefined };
      }
    }),
  );
  const owners = Promise.all(
    frames
      .filter((frame) => frame.crossProcess && frame.parentId !== undefined && frame !== root)
      .map((frame) => readFrameOwner({ tab, reader, frame, send: (call) => send(false, call) })),
  );
  // The reads give up as soon as a dialog opens (the renderer is paused then).
  const outcome = await tab.dialogs.raceOpening(Promise.all([reads, snapshots, owners]));
  if (outcome.dialog) return { dialog: outcome.dialog };
  const [frameReads, sessionSnapshots, ownerPairs] = outcome.value;
  return { frameReads, sessionSnapshots, ownerPairs };
}

type Send = <T>(call: (options: { timeoutMs: number; signal?: AbortSignal }) => Promise<T>) => Promise<T>;

/**
 * One frame's read, as the plan says: its last read reused, its last read patched where it
 * changed, or read afresh. A frame that cannot be read is reported unavailable, with why.
 */
async function readFrame(scope: FrameReadScope, frame: FrameRecord): Promise<Omit<FrameRead, 'loaderId'>> {
  // Its first document has not committed: what is there is a placeholder, not the page.
  if (frame !== scope.root && frame.loaderId === '' && frame.loading) {
    return { frame, reason: 'its document is still loading (no navigation has committed)' };
  }
  const framePlan = scope.plan?.frames.get(frame.id) ?? { kind: 'full' };
  try {
    switch (framePlan.kind) {
      case 'reuse':
        scope.reader.count('frameReadsReused');
        return { ...framePlan.read, frame };
      case 'patch':
        return (await readFramePatched(scope, frame, framePlan)) ?? (await readFrameAfresh(scope, frame));
      case 'full':
        return await readFrameAfresh(scope, frame);
    }
  } catch (error) {
    return failedRead(scope, frame, error);
  }
}

/** The frame's last read patched where it changed (ax-document.ts), or undefined when it cannot be. */
async function readFramePatched(
  scope: FrameReadScope,
  frame: FrameRecord,
  framePlan: Extract<FramePlan, { kind: 'patch' }>,
): Promise<Omit<FrameRead, 'loaderId'> | undefined> {
  const { reader } = scope;
  const patched = await readPatched({
    reader,
    frame,
    ax: framePlan.ax,
    roots: framePlan.roots,
    send: scope.sendFor(frame),
    ...(framePlan.axReadsAhead ? { axReadsAhead: framePlan.axReadsAhead } : {}),
  });
  if (!patched) return undefined;
  reader.count('frameReadsPatched');
  const tree = treeOf(patched, reader);
  return patched.partial && framePlan.prefix ? { frame, tree, ax: patched, prefix: framePlan.prefix } : { frame, tree, ax: patched };
}

/**
 * The frame read afresh: the observed frame, and large documents below it, from the top only as
 * far as the answer needs (a large document's full read costs the renderer seconds, ax-prefix.ts);
 * every other frame, and one whose prefix read fails, whole.
 */
async function readFrameAfresh(scope: FrameReadScope, frame: FrameRecord): Promise<Omit<FrameRead, 'loaderId'>> {
  scope.reader.count('frameReadsFull');
  const prefixed = scope.prefix?.frames.has(frame.id) ? await readFrameByPrefix(scope, frame, scope.prefix) : undefined;
  return prefixed ?? (await readFrameWhole(scope, frame));
}

/** The frame read from the top by prefix, or undefined when it must be read whole instead. */
async function readFrameByPrefix(
  scope: FrameReadScope,
  frame: FrameRecord,
  prefix: NonNullable<ReadPageOptions['prefix']>,
): Promise<Omit<FrameRead, 'loaderId'> | undefined> {
  const { reader } = scope;
  const { worlds, maxElements } = prefix;
  const from = frame === scope.root ? prefix.from : undefined;
  const wanted = maxElements + 1;
  const prefixed = await scope.sendFor(frame)(async (o) => {
    // For a subtree the probes of the document's first paths would read past it: none.
    const asked = prefix.frames.get(frame.id) ??
      (from === undefined
        ? await probesOf({ worlds, frame, wanted, skip: 0, send: o })
        : await probesOf({ worlds, frame, wanted: 0, skip: NO_PROBES, send: o }));
    if (!asked) return undefined;
    const { documentBackendNodeId, probes } = asked;
    const ax = await countedPrefix(reader, {
      read: partReader(frame, o),
      documentBackendNodeId,
      wanted,
      probes,
      ...(from === undefined ? {} : { from }),
    });
    return ax ? { ax, documentBackendNodeId, probed: probes.length } : undefined;
  }).catch((error: unknown) => {
    // A part it cannot read (a node without an element whose children did not come): the
    // document is read whole instead. A frame that does not answer does not answer that either.
    if (isUnanswered(error)) throw error;
    return undefined;
  });
  const tree = prefixed ? treeOf(prefixed.ax, reader) : undefined;
  if (!prefixed || !tree) return undefined;
  const { ax, documentBackendNodeId, probed } = prefixed;
  return ax.partial
    ? { frame, tree, ax, prefix: { wanted, documentBackendNodeId, probed }, readFromTop: documentBackendNodeId }
    : { frame, tree, ax, readFromTop: documentBackendNodeId };
}

/** The frame's whole document (getFullAXTree). */
async function readFrameWhole(scope: FrameReadScope, frame: FrameRecord): Promise<Omit<FrameRead, 'loaderId'>> {
  const { reader } = scope;
  const nodes = await scope.sendFor(frame)((o) => readWhole(reader, frame, o));
  // Built from the kept nodes, so that a later patch of them reuses this build's work.
  const ax = axDocument(nodes);
  const tree = ax ? treeOf(ax, reader) : buildAxTree(nodes);
  if (!tree) return { frame, reason: 'the frame has no document' };
  return ax ? { frame, tree, ax } : { frame, tree };
}

/**
 * A frame that could not be read, and why; the observed frame without the Accessibility domain
 * fails the observation.
 */
function failedRead(scope: FrameReadScope, frame: FrameRecord, error: unknown): Omit<FrameRead, 'loaderId'> {
  const { tab, root, budget } = scope;
  if (isCdpError(error) && error.kind === 'protocol' && /Accessibility/i.test(error.message) && frame === root) {
    throw new ServerError('internal_error', `the CDP Accessibility domain is unavailable: ${error.message}`, { cause: error });
  }
  // Chromium has no such frame: a stale record (an old document's out-of-process iframe that
  // attached after its parent navigated away). It leaves the tab's frames, and the caller's
  // check that the frames stayed the same reads the page once more without it.
  if (
    frame !== root && isCdpError(error) && error.kind === 'protocol' && /frame with the given frameId is not found/i.test(error.message)
  ) {
    tab.frames.onFrameDetached(frame.id, 'not found');
  }
  return { frame, reason: failure(error, frame === root ? budget.totalMs : budget.perFrameMs) };
}

/**
 * The page facts of a frame read by prefix (prefix-facts.ts), counted into the reader's
 * factsFromPage; undefined when the read is whole or the page cannot give them all (then a
 * snapshot is taken).
 */
async function factsOfPrefix(
  options: { reader: TabReader; read: FrameRead; worlds: IsolatedWorlds; send: Send },
): Promise<DocumentFacts | undefined> {
  const { reader, read, worlds, send } = options;
  const { tree, readFromTop: documentBackendNodeId } = read;
  if (!tree || documentBackendNodeId === undefined) return undefined;
  const facts = await send((o) => readPrefixFacts({ frame: read.frame, worlds, tree, documentBackendNodeId, send: o }))
    .catch(() => undefined);
  if (facts) reader.count('factsFromPage');
  return facts;
}

/**
 * The element of its parent document that owns an out-of-process frame (such a frame is not in its
 * parent's snapshot). Asked once per parent document: a frame keeps its owner element, and a new
 * element makes a new frame.
 */
async function readFrameOwner(options: {
  tab: Tab;
  reader: TabReader;
  frame: FrameRecord;
  send: Send;
}): Promise<readonly [number, string] | undefined> {
  const { tab, reader, frame, send } = options;
  const parent = tab.frames.get(frame.parentId!);
  if (!parent) return undefined;
  const known = reader.frameOwners.get(frame);
  if (known?.parentLoaderId === parent.loaderId) return [known.backendNodeId, frame.id] as const;
  try {
    const { backendNodeId } = await send((o) => parent.session.sendWith(o, 'DOM.getFrameOwner', { frameId: frame.id }));
    reader.frameOwners.set(frame, { parentLoaderId: parent.loaderId, backendNodeId });
    return [backendNodeId, frame.id] as const;
  } catch {
    return undefined;
  }
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
  send: Send;
  axReadsAhead?: ReadonlyMap<number, Promise<AxPart | undefined>>;
}): Promise<AxDocument | undefined> {
  const { reader, frame, ax, roots, send, axReadsAhead } = options;
  const readPart = async (backendNodeId: number, retry: boolean): Promise<AxPatch | undefined> => {
    const readAhead = await axReadsAhead?.get(backendNodeId);
    if (readAhead) reader.count('axPartsReadAhead');
    const { subtree, relatives } = readAhead ?? (await send((o) => readAxPart(frame, backendNodeId, o)));
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
    const patched = patchAxDocument(ax, patches as AxPatch[]);
    if (!patched?.partial) return patched;
    // A patched name may now come from elements past what was read (a new aria-labelledby):
    // those are read whole, as a prefix read reads them, so that no typed value reaches a name.
    return await send((o) => countedPrefix(reader, { read: partReader(frame, o), wanted: 0, document: patched }));
  } catch (error) {
    if (isUnanswered(error)) throw error;
    return undefined; // e.g. a changed element without an accessibility node
  }
}

function treeOf(document: AxDocument, reader: TabReader): AxViewNode | undefined {
  const root = document.nodes.get(document.rootId);
  return root ? buildAxTreeFrom(document.nodes, root, reader.views, document.partial === true) : undefined;
}

type SendOptions = { timeoutMs: number; signal?: AbortSignal };

/** The frame's document and the elements a prefix read asks about first (page/ax-probes.ts). */
export interface Probes {
  documentBackendNodeId: number;
  probes: number[];
}

/**
 * The backendNodeId of the frame's document and the elements a prefix read of `wanted` refs asks
 * about first (page/ax-probes.ts), asked in our isolated world (no DOM.getDocument): one round
 * trip, named by deep serialization.
 */
export async function probesOf(
  options: { worlds: IsolatedWorlds; frame: FrameRecord; wanted: number; skip: number; send: SendOptions },
): Promise<Probes | undefined> {
  const { worlds, frame, wanted, skip, send } = options;
  const contextId = await worlds.contextFor(frame.session, frame.id, frame.loaderId);
  const target = { session: frame.session, executionContextId: contextId };
  const { result, exceptionDetails } = await callPageRaw(target, 'axProbes', [wanted, skip], NODE_LIST, send);
  const items = !exceptionDetails && result.deepSerializedValue?.type === 'array'
    ? (result.deepSerializedValue.value as Cdp.Runtime.DeepSerializedValue[])
    : [];
  const ids = items.map(backendIdOf);
  const [documentBackendNodeId, ...probes] = ids;
  if (typeof documentBackendNodeId !== 'number') return undefined;
  return { documentBackendNodeId, probes: probes.filter((id): id is number => typeof id === 'number') };
}

function partReader(frame: FrameRecord, options: SendOptions) {
  return async (backendNodeId: number) =>
    (await frame.session.sendWith(options, 'Accessibility.getPartialAXTree', { backendNodeId, fetchRelatives: true })).nodes;
}

/** A prefix read, its cost counted into the reader's axReadCalls and axNodesRead (a failed read cost too). */
async function countedPrefix(reader: TabReader, options: Omit<Parameters<typeof readPrefix>[0], 'cost'>): Promise<AxDocument | undefined> {
  const cost: PrefixCost = { calls: 0, nodes: 0 };
  try {
    return await readPrefix({ ...options, cost });
  } finally {
    reader.count('axReadCalls', cost.calls);
    reader.count('axNodesRead', cost.nodes);
  }
}

/** The frame's whole accessibility tree, counted into the reader's axReadCalls and axNodesRead. */
async function readWhole(reader: TabReader, frame: FrameRecord, send: SendOptions): Promise<Cdp.Accessibility.AXNode[]> {
  const { nodes } = await frame.session.sendWith(send, 'Accessibility.getFullAXTree', { frameId: frame.id });
  reader.count('axReadCalls');
  reader.count('axNodesRead', nodes.length);
  return nodes;
}

/** One renderer's snapshot: with the computed styles the facts need, or (light) none. */
function captureSnapshot(session: CdpSession, send: SendOptions, options: { light: boolean }) {
  return session.sendWith(send, 'DOMSnapshot.captureSnapshot', {
    computedStyles: options.light ? [] : SNAPSHOT_STYLES,
    includeDOMRects: false,
  });
}

/** A frame that did not answer, or went away: no other read of it would be answered either. */
function isUnanswered(error: unknown): boolean {
  return isCdpError(error) && (error.kind === 'timeout' || error.isTargetGone);
}

/** A `skip` past any probe: the page is asked only for the document. */
const NO_PROBES = Number.MAX_SAFE_INTEGER;

/** A page read read further: the new read, and whether it may be kept for the next observation. */
export interface FurtherRead {
  read: PageRead;
  keep: boolean;
}

/**
 * A frame's prefix read read further (twice as many refs by role as last time): for an answer
 * that needs more than was read (more refs asked for, a root_ref further down, a delegating root
 * whose controls lie further on). For a root_ref in that frame only its subtree is read on (its
 * path first when it was not read). A new read: `read` itself is left as it was. Undefined when
 * nothing is left to read.
 */
export async function readFurther(options: {
  reader: TabReader;
  /** The observed frame. */
  root: FrameRecord;
  /** The frame to read further (the observed one, or one below it read by prefix). */
  frameId: string;
  read: PageRead;
  maxElements: number;
  budget: ObserveBudget;
  /** Our isolated worlds, to ask the page about the elements to read first (page/ax-probes.ts). */
  worlds?: IsolatedWorlds;
  /** The root_ref's element, and how many times its subtree was read further for this answer. */
  subtree?: { frameId: string; backendNodeId: number; round: number };
  signal?: AbortSignal;
}): Promise<FurtherRead | undefined> {
  const { reader, root, read, budget } = options;
  const frameRead = read.frameReads.find((candidate) => candidate.frame.id === options.frameId);
  const prefix = frameRead?.prefix;
  if (!frameRead?.ax?.partial || !prefix) return undefined;
  const subtree = options.subtree?.frameId === options.frameId ? options.subtree : undefined;
  const wanted = subtree ? (options.maxElements + 1) * 2 ** (subtree.round + 1) : Math.max(prefix.wanted * 2, options.maxElements + 1);
  const send = { timeoutMs: budget.totalMs, ...(options.signal ? { signal: options.signal } : {}) };
  const frame = frameRead.frame;
  const before = frameRead.ax;
  let probed = prefix.probed;
  const ax = await (async () => {
    // Without the probes, the read goes level by level: slower, the same read. A subtree's read
    // takes none (they are the document's first paths).
    const asked = options.worlds && !subtree
      ? await probesOf({ worlds: options.worlds, frame, wanted, skip: prefix.probed, send }).catch((error: unknown) => {
        if (isUnanswered(error)) throw error;
        return undefined;
      })
      : undefined;
    probed += asked?.probes.length ?? 0;
    return await countedPrefix(reader, {
      read: partReader(frame, send),
      documentBackendNodeId: prefix.documentBackendNodeId,
      wanted,
      document: before,
      ...(asked ? { probes: asked.probes } : {}),
      ...(subtree ? { from: subtree.backendNodeId } : {}),
    });
  })().catch(async (error: unknown) => {
    if (isUnanswered(error)) throw error;
    // A part it cannot read: the document whole.
    return axDocument(await readWhole(reader, frame, send));
  });
  // The subtree holds nothing more to read, yet the answer needs more: read on from the top.
  if (subtree && ax?.partial && ax.nodes.size === before.nodes.size) return readFurther({ ...options, subtree: undefined });
  const tree = ax ? treeOf(ax, reader) : undefined;
  if (!ax || !tree) return undefined;
  const { prefix: _read, ...rest } = frameRead;
  const further: FrameRead = {
    ...rest,
    ax,
    tree,
    ...(ax.partial ? { prefix: subtree ? prefix : { ...prefix, wanted, probed } } : {}),
  };
  const frameReads = read.frameReads.map((candidate) => (candidate === frameRead ? further : candidate));
  // The observed document's facts taken from the page cover what it read: the rest now too.
  const facts = frame === root
    ? read.sessionSnapshots.find((sessionRead) => sessionRead.session === root.session && sessionRead.fromPage)
    : undefined;
  if (!facts) return { read: { ...read, frameReads }, keep: true };
  const taken = await factsFurther({ reader, root, frameRead: further, send, ...(options.worlds ? { worlds: options.worlds } : {}) });
  const sessionSnapshots = read.sessionSnapshots.map((candidate) =>
    candidate === facts ? { ...taken.facts, session: facts.session, metrics: facts.metrics } : candidate
  );
  return { read: { ...read, frameReads, sessionSnapshots }, keep: taken.keep };
}

/**
 * After a read further, the facts of the observed document for what it added: from the page again
 * (a walk through the new end costs what the read holds), or a snapshot of the whole renderer. A
 * snapshot that finds closed shadow roots says the read is not to be kept: the monitor was not
 * handed them, so a change there would go unseen.
 */
async function factsFurther(options: {
  reader: TabReader;
  root: FrameRecord;
  frameRead: FrameRead;
  send: SendOptions;
  worlds?: IsolatedWorlds;
}): Promise<{ facts: Pick<SessionRead, 'documents' | 'fromPage'>; keep: boolean }> {
  const { reader, root, frameRead, send, worlds } = options;
  const facts = worlds ? await factsOfPrefix({ reader, read: frameRead, worlds, send: (call) => call(send) }) : undefined;
  if (facts) return { facts: { documents: [facts], fromPage: true }, keep: true };
  reader.count('snapshotsFull');
  const documents = readSnapshot(await captureSnapshot(root.session, send, { light: false }));
  return { facts: { documents }, keep: documents.every((document) => document.closedShadowRoots.length === 0) };
}
