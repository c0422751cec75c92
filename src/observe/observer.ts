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
import { buildAxTree, type AxViewNode } from './ax-tree.ts';
import { readSnapshot, SNAPSHOT_STYLES, type Box, type DocumentFacts } from './page-facts.ts';
import type { RefRegistry } from './refs.ts';
import { render, type Rendered, type StitchedNode } from './render.ts';
import type { ObservedFrame } from './state-store.ts';
import { readChangeCount, watchClosedRoots } from './change-monitor.ts';
import type { IsolatedWorlds } from '../browser/isolated-worlds.ts';

export interface ObserveBudget {
  perFrameMs: number;
  totalMs: number;
}

export const DEFAULT_BUDGET: ObserveBudget = { perFrameMs: 1_000, totalMs: 3_000 };

export interface ObserveInput {
  tab: Tab;
  root: FrameRecord;
  refs: RefRegistry;
  maxElements: number;
  secrets: readonly string[];
  /** Render only the subtree of this node (root_ref). */
  subtree?: { frameId: string; backendNodeId: number };
  budget?: ObserveBudget;
  signal?: AbortSignal;
  /** With our isolated worlds, unchanged frames are not read again (see change-monitor.ts). */
  worlds?: IsolatedWorlds;
}

export interface Snapshot extends Rendered {
  frames: ObservedFrame[];
  title: string;
  /** Set when a dialog was (or became) pending: nothing could be read. */
  dialog?: PendingDialog;
}

interface FrameRead {
  frame: FrameRecord;
  tree?: AxViewNode;
  reason?: string;
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

export async function observe(input: ObserveInput): Promise<Snapshot> {
  const { tab, root } = input;
  const budget = input.budget ?? DEFAULT_BUDGET;
  const pending = tab.dialogs.pending;
  if (pending) return dialogSnapshot(tab, root, pending);
  if (tab.crashed) return unreadableSnapshot(tab, root, 'the page crashed: navigate or reload the tab (act), or close it');
  const frames = framesUnder(tab, root);
  const read = await readPageCached(input, frames, budget);
  if ('dialog' in read) return dialogSnapshot(tab, root, read.dialog);
  const { frameReads, sessionSnapshots, ownerPairs } = read;

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
    const stitched: StitchedNode = { ...node, frameId, children: [] };
    const childFrameId =
      node.role === 'Iframe' && node.backendNodeId !== undefined
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
    inViewport: viewport,
    refFor: (frameId, backendNodeId) => input.refs.refFor(frameId, tab.frames.get(frameId)?.loaderId ?? '', backendNodeId),
  });
  return { ...rendered, frames: observedFrames, title: rootRead?.tree?.name ?? '' };
}

interface SessionRead {
  session: CdpSession;
  documents: DocumentFacts[];
  metrics: Cdp.Page.GetLayoutMetricsResult | undefined;
}

interface PageRead {
  frameReads: FrameRead[];
  sessionSnapshots: SessionRead[];
  ownerPairs: Array<readonly [number, string] | undefined>;
}

/** The raw reads of every frame and renderer an observation needs (or the dialog that stopped them). */
async function readPage(input: ObserveInput, frames: FrameRecord[], budget: ObserveBudget): Promise<PageRead | { dialog: PendingDialog }> {
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

  const reads = Promise.all(
    frames.map(async (frame): Promise<FrameRead> => {
      // Its first document has not committed: what is there is a placeholder, not the page.
      if (frame !== root && frame.loaderId === '' && frame.loading) {
        return { frame, reason: 'its document is still loading (no navigation has committed)' };
      }
      try {
        const { nodes } = await send(frame === root, (o) =>
          frame.session.sendWith(o, 'Accessibility.getFullAXTree', { frameId: frame.id }),
        );
        const tree = buildAxTree(nodes);
        return tree ? { frame, tree } : { frame, reason: 'the frame has no document' };
      } catch (error) {
        if (isCdpError(error) && error.kind === 'protocol' && /Accessibility/i.test(error.message) && frame === root) {
          throw new ServerError('internal_error', `the CDP Accessibility domain is unavailable: ${error.message}`, { cause: error });
        }
        return { frame, reason: failure(error, frame === root ? budget.totalMs : budget.perFrameMs) };
      }
    }),
  );
  const snapshots = Promise.all(
    [...sessions.keys()].map(async (session) => {
      try {
        const [snapshot, metrics] = await Promise.all([
          send(session === root.session, (o) =>
            session.sendWith(o, 'DOMSnapshot.captureSnapshot', { computedStyles: SNAPSHOT_STYLES, includeDOMRects: false }),
          ),
          send(session === root.session, (o) => session.sendWith(o, 'Page.getLayoutMetrics')),
        ]);
        return { session, documents: readSnapshot(snapshot), metrics };
      } catch {
        return { session, documents: [] as DocumentFacts[], metrics: undefined };
      }
    }),
  );
  // Out-of-process frames are not in their parent's snapshot: ask the parent who owns them.
  const owners = Promise.all(
    frames
      .filter((frame) => frame.crossProcess && frame.parentId !== undefined && frame !== root)
      .map(async (frame) => {
        const parent = tab.frames.get(frame.parentId!);
        if (!parent) return undefined;
        try {
          const { backendNodeId } = await send(false, (o) =>
            parent.session.sendWith(o, 'DOM.getFrameOwner', { frameId: frame.id }),
          );
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

interface CachedRead {
  /** frame id → loader id and change count when the read began. */
  versions: Map<string, string>;
  read: PageRead;
}

// The last read of each (tab, root frame), reused while no frame's document changed (same loaders,
// same change counts): re-reading an unchanged 1,500-control page costs hundreds of milliseconds.
const readCache = new WeakMap<Tab, Map<string, CachedRead>>();

async function readPageCached(input: ObserveInput, frames: FrameRecord[], budget: ObserveBudget): Promise<PageRead | { dialog: PendingDialog }> {
  const { tab, root } = input;
  const worlds = input.worlds;
  if (!worlds) return readPage(input, frames, budget);
  // Counts are read before the page is: a change during the read makes the next count differ.
  const counts = await Promise.all(frames.map((frame) => readChangeCount(worlds, frame, budget.perFrameMs)));
  const versions = new Map<string, string>();
  let cacheable = true;
  frames.forEach((frame, i) => {
    if (counts[i] === undefined) cacheable = false;
    versions.set(frame.id, `${frame.loaderId}:${counts[i]}`);
  });
  const perTab = readCache.get(tab) ?? new Map<string, CachedRead>();
  readCache.set(tab, perTab);
  const cached = perTab.get(root.id);
  if (cacheable && cached && sameVersions(cached.versions, versions)) return cached.read;
  const read = await readPage(input, frames, budget);
  if ('dialog' in read) return read;
  if (cacheable && read.frameReads.every((r) => r.tree) && (await watchClosedShadowRoots(worlds, tab, read, budget))) {
    perTab.set(root.id, { versions, read });
  } else {
    perTab.delete(root.id);
  }
  return read;
}

function sameVersions(a: Map<string, string>, b: Map<string, string>): boolean {
  if (a.size !== b.size) return false;
  for (const [key, value] of a) if (b.get(key) !== value) return false;
  return true;
}

/** True when every closed shadow root is now watched (else a change there could go unseen). */
async function watchClosedShadowRoots(worlds: IsolatedWorlds, tab: Tab, read: PageRead, budget: ObserveBudget): Promise<boolean> {
  const results = await Promise.all(
    read.sessionSnapshots.flatMap(({ documents }) =>
      documents
        .filter((document) => document.closedShadowRoots.length > 0)
        .map(async (document) => {
          const frame = tab.frames.get(document.frameId);
          return frame ? watchClosedRoots(worlds, frame, document.closedShadowRoots, budget.perFrameMs) : false;
        }),
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
): (frameId: string, box: Box) => boolean {
  const ownerBox = new Map<string, Box>(); // child frame id → its iframe element's box in the parent
  for (const document of facts.values()) {
    for (const [owner, child] of document.childFrames) {
      const box = document.nodes.get(owner)?.box;
      if (box) ownerBox.set(child, box);
    }
  }
  const meets = (a: Box, x: number, y: number, w: number, h: number) =>
    a[0] < x + w && a[0] + a[2] > x && a[1] < y + h && a[1] + a[3] > y;
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
  return inViewport;
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
    title: tab.title,
    frames: [{ frameId: root.id, loaderId: root.loaderId, documentBackendNodeId: undefined, url: root.url, status: 'unavailable', reason }],
  };
}

