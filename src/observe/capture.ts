// One observation of a tab, in the observe layer's terms: read the frame (TabReader), give its
// elements refs, issue the new current state (StateStore) and diff it against a base. observe,
// wait, tabs.new and act's fresh state all come through here; the RPC layer only words the result
// for the wire (rpc/methods/observation.ts).
import type { FrameRecord } from '../browser/frame-tree.ts';
import type { IsolatedWorlds } from '../browser/isolated-worlds.ts';
import type { ReadyState } from '../browser/document-loads.ts';
import type { Tab } from '../browser/tab.ts';
import { ServerError } from '../errors.ts';
import { type KnownSecret, redactSecrets } from '../util/redact.ts';
import { DEFAULT_MAX_ELEMENTS } from '../wire/observation.ts';
import { type CoversAsked, coversOf, type CoverView } from './covers.ts';
import { diffElements, type ObservationDiff } from './diff.ts';
import { find, type FoundMatch } from './find.ts';
import type { Snapshot } from './observer.ts';
import type { Box } from './page-facts.ts';
import { readMarkdown } from './markdown.ts';
import type { RefRegistry } from './refs.ts';
import type { RefTarget } from './render.ts';
import type { ReadAhead } from './settle.ts';
import { hashText, type StateRecord, type StateStore } from './state-store.ts';
import type { TabReader } from './tab-reader.ts';

/** What owns a session's observations: its states, and per tab its refs and its reader (sessions/session.ts). */
export interface ObservingSession {
  readonly states: StateStore;
  refsFor(tab: Tab): RefRegistry;
  readerFor(tab: Tab): TabReader;
  /** What redaction hides now (typed passwords and secrets, configured secret values). */
  knownSecrets(): KnownSecret[];
}

/** A node to give a ref of the new state even when its tree has none (an act's blocker). */
export interface NamedNode {
  frameId: string;
  loaderId: string;
  backendNodeId: number;
  role: string;
  name: string;
}

export interface CaptureOptions {
  maxElements?: number;
  since?: string;
  rootRef?: string;
  /** The state whose ref `rootRef` is (an act's own, consumed by then); the tab's current one by default. */
  rootState?: string;
  signal?: AbortSignal;
  /** What was read ahead as an act's input settled (TabReader.settle): not asked for again. */
  readAhead?: ReadAhead;
  /**
   * Nodes to give refs of the new state even when its tree has none (an act's blocker): acted on
   * and observed with root_ref like any ref, while the frame they are in keeps its document.
   */
  named?: readonly NamedNode[];
  /** Also write the main content as Markdown (observe format "markdown"). */
  markdown?: boolean;
}

/**
 * An observation as it was when read: the frame's URL, title and ready state are taken at once, so
 * that wording it later (after an act's postcondition) shows the page as it was observed. Page text
 * (title, dialog message) is already redacted with the secrets known when it was read.
 */
export interface CapturedObservation {
  state: StateRecord;
  frameId: string;
  loaderId: string;
  url: string;
  readyState: ReadyState;
  title: string;
  snapshot: Snapshot;
  /** What covers the main frame's elements in view where a click would land. */
  covers: readonly CoverView[];
  /** Against `since`, when that state is of the same tab and still kept. */
  diff?: ObservationDiff;
  /** With `markdown`: the main content (empty while a dialog is pending). */
  markdown?: string;
  /** A find's matches (captureFind), in the order of the snapshot's elements. */
  matches?: FoundMatch[];
}

/** Observes `frame` of `tab` and issues the new current state of the tab. */
export async function captureObservation(
  session: ObservingSession,
  worlds: IsolatedWorlds,
  tab: Tab,
  frame: FrameRecord,
  options: CaptureOptions = {},
): Promise<CapturedObservation> {
  const refs = session.refsFor(tab);
  refs.prune((frameId, loaderId) => tab.frames.get(frameId)?.loaderId === loaderId);
  let subtree: { frameId: string; backendNodeId: number } | undefined;
  if (options.rootRef) {
    const named = options.rootState ? session.states.get(options.rootState) : session.states.current(tab.targetId);
    const target = named?.targetId === tab.targetId ? named.targets.get(options.rootRef) : undefined;
    if (!target) {
      throw new ServerError('invalid_params', `root_ref ${options.rootRef} is not in the tab's current state`, {
        details: { issues: [{ path: 'root_ref', message: 'not a ref of the current state' }] },
      });
    }
    subtree = { frameId: target.frameId, backendNodeId: target.backendNodeId };
  }
  const secrets = session.knownSecrets();
  const reader = session.readerFor(tab);
  const snapshot = await reader.observe({
    tab,
    root: frame,
    refs,
    maxElements: options.maxElements ?? DEFAULT_MAX_ELEMENTS,
    secrets,
    worlds,
    ...(subtree ? { subtree } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.readAhead ? { readAhead: options.readAhead } : {}),
  });
  // Read the base before issuing: the new state may push it out of the kept window.
  const base = options.since ? session.states.get(options.since) : undefined;
  const targets = [...snapshot.targets, ...namedTargets(refs, snapshot.targets, options.named ?? [])];
  const captured = issueState(session, tab, frame, { snapshot, targets, secrets });
  const covers = frame.parentId === undefined && !snapshot.dialog ? await coversIn(worlds, frame, snapshot, reader, options.signal) : [];
  const markdown = options.markdown
    ? await markdownOf(worlds, tab, { frame, loaderId: captured.loaderId }, captured.state, snapshot, secrets, subtree, options.signal)
    : undefined;
  return {
    ...captured,
    covers,
    ...(base && base.targetId === tab.targetId ? { diff: diffElements(base, captured.state) } : {}),
    ...(markdown !== undefined ? { markdown } : {}),
  };
}

export interface FindCaptureOptions {
  /** The words asked for (PROTOCOL.md §6 "find"). */
  find: string;
  role?: string;
  signal?: AbortSignal;
}

/**
 * Finds the elements of `frame` of `tab` (and the frames inside it) that match, and issues the new
 * current state of the tab with their refs: a find is an observation that shows only its matches.
 */
export async function captureFind(
  session: ObservingSession,
  worlds: IsolatedWorlds,
  tab: Tab,
  frame: FrameRecord,
  options: FindCaptureOptions,
): Promise<CapturedObservation> {
  const refs = session.refsFor(tab);
  refs.prune((frameId, loaderId) => tab.frames.get(frameId)?.loaderId === loaderId);
  const secrets = session.knownSecrets();
  const snapshot = await find({
    tab,
    root: frame,
    refs,
    worlds,
    find: options.find,
    secrets,
    ...(options.role !== undefined ? { role: options.role } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  const captured = issueState(session, tab, frame, { snapshot, targets: snapshot.targets, secrets });
  return { ...captured, matches: snapshot.matches };
}

/** Issues the tab's new current state for `snapshot` (its refs `targets`) and takes the frame as it is now. */
function issueState(
  session: ObservingSession,
  tab: Tab,
  frame: FrameRecord,
  read: { snapshot: Snapshot; targets: readonly RefTarget[]; secrets: readonly KnownSecret[] },
): CapturedObservation {
  const { snapshot, secrets } = read;
  const state = session.states.issue({
    targetId: tab.targetId,
    frameId: frame.id,
    frames: new Map(snapshot.frames.map((f) => [f.frameId, f])),
    targets: new Map(read.targets.map((t) => [t.ref, t])),
    elements: snapshot.elements,
    textHash: hashText(snapshot.text),
    dialogPending: snapshot.dialog !== undefined,
  });
  const observedRoot = snapshot.frames.find((f) => f.frameId === frame.id);
  const loaderId = observedRoot?.loaderId ?? frame.loaderId;
  return {
    state,
    frameId: frame.id,
    loaderId,
    url: frame.url,
    readyState: tab.loads.readyState(frame.id, loaderId),
    title: redactSecrets(snapshot.title || tab.title, secrets),
    snapshot: snapshot.dialog
      ? { ...snapshot, dialog: { ...snapshot.dialog, message: redactSecrets(snapshot.dialog.message, secrets) } }
      : snapshot,
    // What covers the elements is told by captureObservation; a find shows only its matches.
    covers: [],
  };
}

/** How long telling what covers the elements may take: it only adds to an observation already made. */
const COVERS_BUDGET_MS = 1_000;

/**
 * What covers the elements of the main frame, or nothing when that cannot be told (the document
 * went away meanwhile): the observation stands without it, and an act still tests its own point.
 * While the frame's layout holds (reader.coversMemo), the answer for the same elements is kept.
 */
async function coversIn(
  worlds: IsolatedWorlds,
  frame: FrameRecord,
  snapshot: Snapshot,
  reader: TabReader,
  signal?: AbortSignal,
): Promise<readonly CoverView[]> {
  const layout = snapshot.layouts.get(frame.id);
  const asked: CoversAsked[] = snapshot.targets.filter((t) => t.frameId === frame.id).map((t) => ({
    ref: t.ref,
    backendNodeId: t.backendNodeId,
    box: snapshot.boxes.get(t.ref),
  }));
  const kept = layout ? reader.coversMemo.get(layout) : undefined;
  if (kept && sameAsked(kept.asked, asked)) return kept.covers;
  try {
    const covers = await coversOf({
      worlds,
      frame,
      boxes: snapshot.boxes,
      targets: snapshot.targets,
      send: { timeoutMs: COVERS_BUDGET_MS, ...(signal ? { signal } : {}) },
    });
    if (layout) reader.coversMemo.set(layout, { asked, covers });
    return covers;
  } catch (error) {
    if (signal?.aborted) throw error;
    return [];
  }
}

/** The same elements, each on the same node with the same box (compared element by element: a page's thousands cost no string). */
function sameAsked(a: readonly CoversAsked[], b: readonly CoversAsked[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x.ref !== y.ref || x.backendNodeId !== y.backendNodeId || !sameBox(x.box, y.box)) return false;
  }
  return true;
}

function sameBox(a: Box | undefined, b: Box | undefined): boolean {
  return a === b || (a !== undefined && b !== undefined && a[0] === b[0] && a[1] === b[1] && a[2] === b[2] && a[3] === b[3]);
}

/** The Markdown of the observed document, or of the frame of `subtree` (root_ref) from that element. */
function markdownOf(
  worlds: IsolatedWorlds,
  tab: Tab,
  observed: { frame: FrameRecord; loaderId: string },
  state: StateRecord,
  snapshot: Snapshot,
  secrets: readonly KnownSecret[],
  subtree: { frameId: string; backendNodeId: number } | undefined,
  signal: AbortSignal | undefined,
): Promise<string> {
  if (snapshot.dialog) return Promise.resolve('');
  const subtreeFrame = subtree && subtree.frameId !== observed.frame.id ? tab.frames.get(subtree.frameId) : undefined;
  const { frame, loaderId } = subtreeFrame ? { frame: subtreeFrame, loaderId: subtreeFrame.loaderId } : observed;
  return readMarkdown({
    worlds,
    frame,
    loaderId,
    url: frame.url,
    targets: state.targets.values(),
    elements: new Map(snapshot.elements.map((e) => [e.ref, e])),
    secrets,
    ...(subtree ? { rootBackendNodeId: subtree.backendNodeId } : {}),
    ...(signal ? { signal } : {}),
  });
}

/** Targets for `named` nodes the snapshot gave no ref, with refs of the tab's registry. */
function namedTargets(refs: RefRegistry, taken: readonly RefTarget[], named: readonly NamedNode[]): RefTarget[] {
  return named
    .filter((node) => !taken.some((t) => t.frameId === node.frameId && t.backendNodeId === node.backendNodeId))
    .map((node) => ({
      ref: refs.refFor(node.frameId, node.loaderId, node.backendNodeId),
      frameId: node.frameId,
      backendNodeId: node.backendNodeId,
      role: node.role,
      name: node.name,
    }));
}
