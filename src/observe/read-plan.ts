// Planning an observation's reads, as a pure function of plain data: from the tab's last read of
// the observed frame, the frames as they are now and what each frame's monitor says changed, which
// frames are reused, patched or read in full, and which renderers' snapshots are kept, taken light
// (without computed styles) or taken in full. No CDP here: frame-reads.ts carries the plan out, so
// the choices can be tested on their own and a wrong choice shows as a wrong plan, not a slow page.
import type { FrameRecord } from '../browser/frame-tree.ts';
import type { CdpSession } from '../cdp/session.ts';
import type { AxDocument } from './ax-document.ts';
import type { AxPart } from './ax-part.ts';
import type { FrameChanges, MonitorMark } from './change-monitor.ts';
import type { FrameRead, PageRead, SessionRead } from './frame-reads.ts';
import type { DocumentFacts, PointerSource } from './page-facts.ts';

/** What the planner needs of a frame: which document it shows, and which renderer hosts it. */
export type PlannedFrame = Pick<FrameRecord, 'id' | 'loaderId' | 'session'>;

/** Accessibility reads already under way, by backendNodeId (while a frame settled, or behind its monitor's question). */
export type AxReadsAhead = ReadonlyMap<number, Promise<AxPart | undefined>>;

export interface CachedFrame {
  loaderId: string;
  /** Where the frame's monitor stood when this read began. */
  mark: MonitorMark;
  read: FrameRead;
  /** The few elements that had changed for this read: the likeliest to change again, so read ahead next time. */
  readAheadIds: readonly number[];
}

export interface CachedRead {
  frames: Map<string, CachedFrame>;
  read: PageRead;
}

/** How to read a frame's tree: in full, from the last read, or the last read with parts re-read. */
export type FramePlan =
  | { kind: 'full' }
  | { kind: 'reuse'; read: FrameRead }
  | { kind: 'patch'; ax: AxDocument; roots: number[]; axReadsAhead?: AxReadsAhead; prefix?: FrameRead['prefix'] };

export interface ReadPlan {
  frames: Map<string, FramePlan>;
  /** Renderers whose documents did not change: their last snapshot still holds. */
  snapshots: Map<CdpSession, SessionRead>;
  /** Renderers whose documents changed in known places: snapshot without computed styles. */
  light: Map<CdpSession, PointerSource>;
}

/** Either the last read stands as it is, or what to read. */
export type PagePlan = { kind: 'cached'; read: PageRead } | { kind: 'read'; plan: ReadPlan };

export interface PlanInput {
  /** The tab's last read of the observed frame, if any. */
  cached: CachedRead | undefined;
  /** The observed frame and every frame below it, in the tree's order. */
  frames: readonly PlannedFrame[];
  /** Each frame's changes since its cached read (undefined: its monitor could not be asked). */
  changes: ReadonlyArray<FrameChanges | undefined>;
  /** Each frame's accessibility reads already under way. */
  axReadsAhead?: ReadonlyArray<AxReadsAhead | undefined>;
}

/** At most this many of a read's changed elements are read ahead on the next observation. */
export const MAX_READ_AHEAD = 4;

/** The last read of `frame` in `cached`, while the frame still shows that document. */
export function cachedFrameOf(cached: CachedRead | undefined, frame: Pick<PlannedFrame, 'id' | 'loaderId'>): CachedFrame | undefined {
  const entry = cached?.frames.get(frame.id);
  return entry && entry.loaderId === frame.loaderId ? entry : undefined;
}

export function planReads(input: PlanInput): PagePlan {
  const { cached, frames, changes } = input;
  const cachedFrame = (frame: PlannedFrame) => cachedFrameOf(cached, frame);
  const sameFrameSet = cached !== undefined && cached.frames.size === frames.length && frames.every((frame) => cached.frames.has(frame.id));
  const unchanged = (frame: PlannedFrame, i: number) => {
    const entry = cachedFrame(frame);
    const change = changes[i];
    return entry !== undefined && change !== undefined && !change.full && !change.geometry && change.generation === entry.mark.generation;
  };
  if (cached && sameFrameSet && frames.every(unchanged)) return { kind: 'cached', read: cached.read };

  const plan: ReadPlan = { frames: new Map(), snapshots: new Map(), light: new Map() };
  frames.forEach((frame, i) => {
    const change = changes[i];
    plan.frames.set(frame.id, change ? planFrame(cachedFrame(frame), frame, change, input.axReadsAhead?.[i]) : { kind: 'full' });
  });
  if (cached && sameFrameSet) {
    for (const snapshot of cached.read.sessionSnapshots) {
      const hosted = frames.map((frame, i) => [frame, i] as const).filter(([frame]) => frame.session === snapshot.session);
      if (hosted.length === 0 || snapshot.documents.length === 0) continue;
      // A renderer none of whose frames changed, or changed only in values, checks and focus,
      // keeps its snapshot (geometry, clickability)…
      const boxesHold = (frame: PlannedFrame, i: number) => {
        const change = changes[i];
        return unchanged(frame, i) || (change !== undefined && !change.full && !change.geometry && !change.layout);
      };
      if (hosted.every(([frame, i]) => boxesHold(frame, i))) {
        plan.snapshots.set(snapshot.session, scrolledTo(snapshot, new Map(hosted.map(([frame, i]) => [frame.id, changes[i]?.scroll]))));
        continue;
      }
      // …and one whose frames changed in known places is read again without computed styles.
      if (hosted.every(([frame]) => plan.frames.get(frame.id)?.kind !== 'full')) {
        const source = pointerSource(snapshot, hosted.map(([, i]) => changes[i]!));
        plan.light.set(snapshot.session, snapshot.fromPage ? { ...source, partial: true } : source);
      }
    }
  }
  return { kind: 'read', plan };
}

function planFrame(cached: CachedFrame | undefined, frame: PlannedFrame, changes: FrameChanges, axReadsAhead?: AxReadsAhead): FramePlan {
  if (!cached || cached.loaderId !== frame.loaderId || changes.full || !cached.read.tree) return { kind: 'full' };
  if (changes.roots.length === 0) return { kind: 'reuse', read: cached.read };
  const prefix = cached.read.prefix;
  return cached.read.ax
    ? { kind: 'patch', ax: cached.read.ax, roots: changes.roots, ...(axReadsAhead ? { axReadsAhead } : {}), ...(prefix ? { prefix } : {}) }
    : { kind: 'full' };
}

/**
 * What the tab keeps of a finished read for the next observation to plan from, or undefined when
 * it cannot be planned from (a frame whose monitor was not asked, or whose tree was not read).
 */
export function readToKeep(read: PageRead, changes: ReadonlyArray<FrameChanges | undefined>): CachedRead | undefined {
  if (!changes.every((change) => change !== undefined) || !read.frameReads.every((frameRead) => frameRead.tree)) return undefined;
  // A renderer whose layout was not read (its snapshot ran out of time): the next look reads it again.
  if (!read.sessionSnapshots.every((snapshot) => snapshot.documents.length > 0)) return undefined;
  const frames = new Map<string, CachedFrame>();
  read.frameReads.forEach((frameRead, i) => {
    const change = changes[i]!;
    frames.set(frameRead.frame.id, {
      loaderId: frameRead.loaderId,
      mark: { monitor: change.monitor, generation: change.generation },
      read: frameRead,
      readAheadIds: change.roots.length <= MAX_READ_AHEAD ? change.roots : [],
    });
  });
  return { frames, read };
}

/**
 * The kept read `kept` with its page read replaced by `read`, the same read read further: each
 * frame keeps its mark and what had changed, with its new frame read.
 */
export function keptFurther(kept: CachedRead, read: PageRead): CachedRead {
  const frames = new Map<string, CachedFrame>();
  for (const frameRead of read.frameReads) {
    const cached = kept.frames.get(frameRead.frame.id);
    if (cached) frames.set(frameRead.frame.id, { ...cached, read: frameRead });
  }
  return { frames, read };
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
