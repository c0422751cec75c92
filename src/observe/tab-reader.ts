// What the observations of one tab keep between them (observer.ts): the last read of each
// observed root frame, the owners of out-of-process frames, the closed shadow roots each monitor
// was handed, the derived views and the render memo, and how the frames were read. Created with
// the tab's first observation and disposed when the tab closes (Session.readerFor), so nothing of
// a tab outlives it and two servers in one process never share a read or a count.
import type { Cdp } from '../../protocol/generated/cdp.ts';
import type { FrameRecord } from '../browser/frame-tree.ts';
import type { AxChild, AxViewNode } from './ax-tree.ts';
import type { CoversAsked, CoverView } from './covers.ts';
import type { DocumentFacts } from './page-facts.ts';
import type { PageRead } from './frame-reads.ts';
import { ELEMENTS_PER_PROBE, observe, type ObserveBudget, type ObserveOptions, PREFIX_MIN_ELEMENTS, type Snapshot } from './observer.ts';
import { type CachedRead, keptFurther } from './read-plan.ts';
import { type ReadAhead, settleAndTakeChanges, type SettleOptions } from './settle.ts';
import type { RefRegistry } from './refs.ts';
import type { StitchedNode } from './render.ts';
import { BoundedMap } from '../util/bounded-map.ts';

/** How frames were read: the share of patched and reused reads keeps large pages fast. */
export interface FrameReadCounts {
  frameReadsFull: number;
  frameReadsPatched: number;
  frameReadsReused: number;
  snapshotsFull: number;
  snapshotsLight: number;
  snapshotsKept: number;
  changesReadAhead: number;
  /** Accessibility reads made while an act's input settled (FrameReadAhead.axReadsAhead) and used. */
  axPartsReadAhead: number;
  /** Accessibility nodes the renderer answered with to full and prefix reads (what they cost it). */
  axNodesRead: number;
  /** Accessibility calls of full and prefix reads (each a visit to the renderer). */
  axReadCalls: number;
  /** First looks whose facts came from the page (prefix-facts.ts) instead of a snapshot. */
  factsFromPage: number;
}

/** Counters of frame reads; a server holds one summing its tabs', each TabReader its own. */
export class ReadCounts {
  readonly #counts: FrameReadCounts = {
    frameReadsFull: 0,
    frameReadsPatched: 0,
    frameReadsReused: 0,
    snapshotsFull: 0,
    snapshotsLight: 0,
    snapshotsKept: 0,
    changesReadAhead: 0,
    axPartsReadAhead: 0,
    axNodesRead: 0,
    axReadCalls: 0,
    factsFromPage: 0,
  };

  add(name: keyof FrameReadCounts, n = 1): void {
    this.#counts[name] += n;
  }

  snapshot(): FrameReadCounts {
    return { ...this.#counts };
  }
}

/** At most this many monitors' closed roots are remembered (monitors come and go with documents). */
const MAX_WATCHED_MONITORS = 256;

export class TabReader {
  /** This tab's reads since it opened. */
  readonly counts = new ReadCounts();
  readonly #totals: ReadCounts | undefined;
  #disposed = false;
  // The last read of each observed root frame (by id). While no frame's document changed (same
  // loaders, same monitor generations) it is returned as it is; after a change only the changed
  // parts are read again: re-reading a 1,500-control page costs hundreds of milliseconds.
  readonly #reads = new Map<string, CachedRead>();
  // The closed shadow roots each monitor (by its id) was handed already: handing one over again
  // changes nothing but costs two round trips on every read that takes a new snapshot.
  readonly #watchedClosedRoots = new BoundedMap<string, Set<number>>(MAX_WATCHED_MONITORS);
  /** The element owning each out-of-process frame, as its parent document had it (readPage). */
  readonly frameOwners = new WeakMap<FrameRecord, { parentLoaderId: string; backendNodeId: number }>();
  /** A view's stitched copy (a view belongs to one frame's tree), for subtrees without iframes. */
  readonly stitchedViews = new WeakMap<AxViewNode, StitchedNode>();
  /**
   * Each kept accessibility node's view (ax-tree.ts), reused by the builds of later patched
   * documents that share the node object; dropped with the nodes.
   */
  readonly views = new WeakMap<Cdp.Accessibility.AXNode, AxChild[]>();
  /** The same read asked the same way renders the same. */
  readonly renderMemo = new WeakMap<PageRead, { refs: RefRegistry; key: string; snapshot: Snapshot }>();
  /**
   * What covered the main frame's elements, by the facts their boxes were taken from (a snapshot's
   * `layouts`), for the elements and points it was asked about (`asked`). Those facts are kept only
   * while nothing moved, scrolled or changed layout (a value typed, a box ticked, focus moved leave
   * them), so a hit test at the same points would find the same nodes: asking the page again would
   * cost a round trip and a hit test per element in view for the same answer.
   */
  readonly coversMemo = new WeakMap<DocumentFacts, { asked: readonly CoversAsked[]; covers: readonly CoverView[] }>();

  /**
   * Set: read every document whole (getFullAXTree), never from the top only as far as an answer
   * needs (ax-prefix.ts), within this budget. For tests that compare a prefix read with a whole one
   * (a whole read of a large page on a loaded machine needs more than an observation's budget).
   */
  wholeReads: { budget: ObserveBudget } | undefined;

  /**
   * A first look of a document with at least this many elements reads its tree only as far as the
   * answer needs; a smaller one is read whole (cheaper). Tests lower it to try the prefix read on
   * small pages.
   */
  prefixFrom = PREFIX_MIN_ELEMENTS;

  /**
   * A first look read by prefix whose probes (page/ax-probes.ts) come to more than one for this
   * many of the document's elements reads the document whole instead: each probe is a call, and a
   * page of highlighted code, every token a leaf, asks more of them than a whole read costs
   * (docs/observation.md). Tests set it to 0 to keep the prefix read.
   */
  elementsPerProbe = ELEMENTS_PER_PROBE;

  /**
   * A first look read by prefix takes the facts of what it read from the page (prefix-facts.ts)
   * rather than a snapshot of the whole document. Tests turn it off to compare the two.
   */
  factsFromPage = true;

  /** `totals`: the server's counters, which this tab's reads add to as well. */
  constructor(options: { totals?: ReadCounts } = {}) {
    this.#totals = options.totals;
  }

  /** Observes the tab as it is now, reading again only what changed since this reader's last read. */
  observe(options: ObserveOptions): Promise<Snapshot> {
    return observe({ ...options, reader: this });
  }

  /**
   * Lets an acted frame settle and reads ahead meanwhile (settle.ts); hand the result to the next
   * `observe` as `readAhead`.
   */
  settle(options: Omit<SettleOptions, 'reader'>): Promise<ReadAhead> {
    return settleAndTakeChanges({ ...options, reader: this });
  }

  get disposed(): boolean {
    return this.#disposed;
  }

  count(name: keyof FrameReadCounts, n = 1): void {
    this.counts.add(name, n);
    this.#totals?.add(name, n);
  }

  lastRead(rootId: string): CachedRead | undefined {
    return this.#reads.get(rootId);
  }

  /** Keeps `read` as the last of `rootId`, or forgets it (undefined); nothing once disposed. */
  keepRead(rootId: string, read: CachedRead | undefined): void {
    if (read === undefined || this.#disposed) this.#reads.delete(rootId);
    else this.#reads.set(rootId, read);
  }

  /**
   * After `before`, the kept read of `rootId`, was read further into `after`: keeps that instead,
   * or forgets it (after undefined). Another read kept since is left alone.
   */
  replaceRead(rootId: string, before: PageRead, after: PageRead | undefined): void {
    const kept = this.#reads.get(rootId);
    if (kept?.read !== before) return;
    this.keepRead(rootId, after ? keptFurther(kept, after) : undefined);
  }

  /** Forgets the last reads: the next observation reads every frame in full. */
  forgetReads(): void {
    this.#reads.clear();
  }

  /** The closed shadow roots `monitor` was handed already. */
  watchedClosedRoots(monitor: string): ReadonlySet<number> | undefined {
    return this.#watchedClosedRoots.get(monitor);
  }

  markClosedRootsWatched(monitor: string, backendNodeIds: readonly number[]): void {
    if (this.#disposed) return;
    const watched = this.#watchedClosedRoots.get(monitor) ?? new Set<number>();
    for (const backendNodeId of backendNodeIds) watched.add(backendNodeId);
    this.#watchedClosedRoots.renew(monitor, watched);
  }

  /** What the reader holds, for tests and diagnostics. */
  sizes(): { reads: number; watchedMonitors: number } {
    return { reads: this.#reads.size, watchedMonitors: this.#watchedClosedRoots.size };
  }

  /** The tab closed: its reads and marks go (the counters stay, summed into the server's). */
  dispose(): void {
    this.#disposed = true;
    this.#reads.clear();
    this.#watchedClosedRoots.clear();
  }
}
