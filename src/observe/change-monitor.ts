// Knowing, cheaply, what may have changed in a frame's document since it was last read, so that an
// observation re-reads only that. A monitor in our isolated world records the DOM mutations (in the
// document and in every shadow root it can reach: open ones by walking, closed ones handed to it
// through CDP) and the events that change what an observation shows without a mutation (input
// values, focus, hover, scrolling…), each against a generation number. Asked "what changed since
// generation G?", it answers with the top-most changed elements — or says that only a full re-read
// is safe (a change it cannot place: a stylesheet, the title, aria-owns, too many places at once).
import type { IsolatedWorlds } from '../browser/isolated-worlds.ts';
import type { FrameRecord } from '../browser/frame-tree.ts';
import { callInWorld, pageFunction } from '../browser/page-function.ts';
import { armedInputHandled, settleInPage } from '../browser/page-settle.ts';
import type { Cdp } from '../../protocol/generated/cdp.ts';

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
}

/** Where the caller's last read of the frame stood. */
export interface MonitorMark {
  monitor: string;
  generation: number;
}

/** What the show/hide rules of a page can react to, besides the element that changed. */
interface CssReach {
  hover: boolean;
  /** A form or focus state (`:checked`, `:invalid`, `:focus`…). */
  state: boolean;
  focusWithin: boolean;
  /** A sibling combinator (`+`, `~`). */
  sibling: boolean;
  has: boolean;
}

interface Summary {
  monitor: string;
  generation: number;
  full: boolean;
  geometry: boolean;
  layout: boolean;
  scroll?: [number, number];
  /** How many of the answer's elements are changed roots; the rest are pointer elements. */
  roots: number;
  quiet?: boolean;
}

/** What `takeChanges` answers: the summary as JSON, then the elements themselves. */
type TakenChanges = [summary: string, ...elements: Element[]];

/**
 * In page: the changes since generation `since` (-1: everything), installing the monitor first if
 * this document has none. The changed elements (and the pointer elements inside them) follow the
 * summary in the answer, which CDP's deep serialization turns into backendNodeIds: one round trip.
 */
function takeChanges(since: number, monitorId: string, limit: number, settledFrom = -1): TakenChanges {
  interface Monitor {
    id: string;
    generation: number;
    /** Changes at or before this generation are no longer itemised. */
    floor: number;
    /** The last generation with a change that cannot be placed. */
    global: number;
    /** The last generation with a layout-only change. */
    geometry: number;
    /** The last generation with a change that may move boxes (see FrameChanges.layout). */
    layout: number;
    /**
     * The last generation with a change that may alter more than boxes: an element added or
     * removed, an attribute, a state rule. Text changed in place, scrolling or a fragment
     * navigation only move boxes, and measuring them tells whether they did.
     */
    layoutBeyondText: number;
    /** Every element's box at generation `at`, for telling whether a text change moved any. */
    boxes: { at: number; rects: Float64Array } | undefined;
    dirty: Map<Node, number>;
    controls: WeakMap<Element, string>;
    roots: Array<WeakRef<Document | ShadowRoot>>;
    /** Every shadow root watched, by host (closed ones are reachable no other way). */
    shadowOf: WeakMap<Element, ShadowRoot>;
    /** What the page's show/hide rules can react to (undefined: not known yet). */
    cssReach: CssReach | undefined;
    /** The element :target matched at the last fragment change. */
    target: WeakRef<Element> | undefined;
    watch(root: Node): void;
    /** Takes mutation records (from the observer, or not yet delivered to it). */
    record(records: MutationRecord[]): void;
    /** Records a change of a control's state that came with no event (set by a script). */
    stateChanged(control: Element): void;
    observer: MutationObserver;
  }
  const scope = globalThis as unknown as { __pagewireMonitor?: Monitor };
  // Not `select`: selecting a field's text (as a fill does first) changes nothing a read shows.
  const LOCAL_EVENTS = [
    'input',
    'change',
    'focusin',
    'focusout',
    'toggle',
    'transitionend',
    'animationend',
    'animationstart',
    'click',
    'pointerup',
    'keyup',
    'reset',
    'submit',
    'load',
    'error',
  ];
  const GEOMETRY_EVENTS = ['scroll'];
  const GLOBAL_EVENTS = ['resize', 'fullscreenchange', 'pageshow'];
  // Events whose target may have changed size or shape with no mutation (an image loaded, an
  // animation ran, a <details> toggled).
  const LAYOUT_EVENTS = ['load', 'error', 'transitionend', 'animationend', 'animationstart', 'toggle'];
  // A fragment navigation scrolls and moves :target from one element to another.
  const FRAGMENT_EVENTS = ['hashchange', 'popstate'];
  const MAX_DIRTY = 4096;

  const parentOf = (node: Node): Node | null => {
    const parent = node.parentNode;
    return parent instanceof ShadowRoot ? parent.host : parent;
  };
  const signature = (control: Element) => {
    const c = control as HTMLInputElement & HTMLSelectElement;
    return `${c.checked ? 1 : 0}${c.indeterminate ? 1 : 0}:${c.value?.length ?? 0}:${c.selectedIndex ?? ''}`;
  };

  const install = (): Monitor => {
    const m = {
      id: `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`,
      generation: 0,
      floor: 0,
      global: 0,
      geometry: 0,
      layout: 0,
      layoutBeyondText: 0,
      boxes: undefined,
      dirty: new Map<Node, number>(),
      controls: new WeakMap<Element, string>(),
      roots: [] as Array<WeakRef<Document | ShadowRoot>>,
      shadowOf: new WeakMap<Element, ShadowRoot>(),
      cssReach: undefined,
      target: undefined,
    } as Monitor;
    const watched = new WeakSet<Node>();
    const scan = (root: Element | Document | ShadowRoot) => {
      if ('shadowRoot' in root && root.shadowRoot) {
        m.watch(root.shadowRoot);
        scan(root.shadowRoot);
      }
      for (const element of root.querySelectorAll('*')) {
        if (element.shadowRoot) {
          m.watch(element.shadowRoot);
          scan(element.shadowRoot);
        }
      }
    };
    const markGlobal = () => {
      m.global = m.layout = m.layoutBeyondText = ++m.generation;
    };
    // A changed node, as the element whose subtree must be read again.
    const mark = (node: Node | null) => {
      if (!node) return;
      if (node instanceof ShadowRoot) node = node.host;
      else if (!(node instanceof Element)) node = parentOf(node);
      if (!(node instanceof Element)) return markGlobal(); // the document itself
      const tag = node.localName;
      const styling = tag === 'style' || tag === 'link';
      if (styling || node.closest('head')) m.cssReach = undefined;
      const tree = node.getRootNode();
      // A shadow tree's own stylesheet reaches only that tree.
      if (styling && tree instanceof ShadowRoot) node = tree.host;
      else if (styling || tag === 'html' || tag === 'head' || tag === 'body' || tag === 'title' || node.closest('head')) {
        return markGlobal();
      }
      if (m.dirty.size >= MAX_DIRTY) {
        m.dirty.clear();
        m.floor = m.generation;
      }
      m.dirty.set(node, m.generation);
    };
    m.record = (records: MutationRecord[]) => {
      if (records.length === 0) return;
      m.generation++;
      for (const record of records) {
        for (const added of record.addedNodes) if (added instanceof Element) scan(added);
        // Elements added (and none removed) are read on their own: reading their parent could mean
        // the whole page (a toast appended to <body>).
        const onlyElementsAdded = record.type === 'childList' && record.removedNodes.length === 0 &&
          [...record.addedNodes].every((n) => n instanceof Element);
        // Text changed in place (no element came or went, no attribute changed): the elements and
        // their styles are the same, so only their boxes can tell whether anything moved.
        const textOnly = record.type === 'characterData' ||
          (record.type === 'childList' && [...record.addedNodes, ...record.removedNodes].every((n) => !(n instanceof Element)));
        if (onlyElementsAdded) { for (const added of record.addedNodes) markFor(added, 'mutation'); }
        else markFor(record.target, textOnly ? 'text' : 'mutation');
      }
    };
    const observer = new MutationObserver((records) => m.record(records));
    m.observer = observer;
    m.watch = (root: Node) => {
      if (watched.has(root)) return;
      watched.add(root);
      if (root instanceof Document || root instanceof ShadowRoot) m.roots.push(new WeakRef(root));
      if (root instanceof ShadowRoot) m.shadowOf.set(root.host, root);
      m.cssReach = undefined;
      observer.observe(root, { subtree: true, childList: true, attributes: true, characterData: true });
    };
    // Most rules only restyle (colour, underline); those that show, hide or fill content change
    // what an observation reads, and some of them react to more than the changed element: a state
    // (`:checked + .panel`, `:hover > ul`), a sibling (`[aria-expanded=true] + .menu`), anything
    // (`:has()`). A sheet that cannot be read (another origin's) may hold state and sibling rules.
    const STRUCTURAL = /(^|[^-\w])(display|visibility|content)\s*:/;
    const STATE =
      /:(focus|focus-visible|checked|indeterminate|valid|invalid|user-valid|user-invalid|placeholder-shown|in-range|out-of-range|default|autofill|active|open|popover-open|enabled|disabled|read-only|read-write)\b/;
    const reachOf = (rules: CSSRuleList, reach: CssReach): void => {
      for (const rule of rules) {
        if (rule instanceof CSSStyleRule && STRUCTURAL.test(rule.style.cssText)) {
          const selector = rule.selectorText;
          if (selector.includes(':hover')) reach.hover = true;
          if (STATE.test(selector)) reach.state = true;
          if (selector.includes(':focus-within')) reach.focusWithin = true;
          if (/[+~]/.test(selector)) reach.sibling = true;
          if (selector.includes(':has(')) reach.has = true;
        }
        const nested = (rule as CSSGroupingRule).cssRules;
        if (nested && nested.length > 0) reachOf(nested, reach);
      }
    };
    const cssReach = (): CssReach => {
      if (m.cssReach) return m.cssReach;
      const reach: CssReach = { hover: false, state: false, focusWithin: false, sibling: false, has: false };
      for (const ref of m.roots) {
        const root = ref.deref();
        if (!root) continue;
        for (const sheet of [...root.styleSheets, ...root.adoptedStyleSheets]) {
          try {
            reachOf(sheet.cssRules, reach);
          } catch {
            reach.hover = reach.state = reach.sibling = true;
          }
        }
      }
      m.cssReach = reach;
      return reach;
    };
    // The element to read again for a change at `node`: its parent when a rule may reach its
    // siblings (or a state rule may: `:checked ~ .x`); everything when a `:has()` rule may.
    const markFor = (node: Node | null, cause: 'mutation' | 'text' | 'state' | 'focus') => {
      const reach = cssReach();
      if (reach.has || (cause === 'focus' && reach.focusWithin)) return markGlobal();
      const structural = cause === 'mutation' || cause === 'text';
      const widen = reach.sibling || (!structural && reach.state);
      const element = node instanceof Element ? node : node ? parentOf(node) : null;
      mark(widen && element instanceof Element ? (parentOf(element) ?? element) : node);
      if (cause === 'text') m.layout = m.generation;
      // A state change moves nothing unless a show/hide rule reacts to it.
      else if (cause === 'mutation' || reach.state || reach.sibling || reach.focusWithin) m.layout = m.layoutBeyondText = m.generation;
    };
    m.stateChanged = (control: Element) => markFor(control, 'state');
    // Hover moves between two elements: :hover changed on both branches below their common ancestor.
    const hover = (event: Event) => {
      if (!cssReach().hover) return;
      const from = (event as MouseEvent).relatedTarget;
      const to = event.composedPath()[0] ?? event.target;
      if (!(from instanceof Node) || !(to instanceof Node)) return markGlobal();
      const chain = new Set<Node>();
      for (let n: Node | null = from; n; n = parentOf(n)) chain.add(n);
      let common: Node | null = to;
      while (common && !chain.has(common)) common = parentOf(common);
      const branch = (n: Node): Node | null => {
        let child: Node | null = null;
        for (let cur: Node | null = n; cur && cur !== common; cur = parentOf(cur)) child = cur;
        return child;
      };
      m.layout = m.layoutBeyondText = ++m.generation;
      mark(branch(from));
      mark(branch(to));
    };
    const onEvent = (event: Event) => {
      if (GEOMETRY_EVENTS.includes(event.type)) {
        m.geometry = ++m.generation;
      } else if (GLOBAL_EVENTS.includes(event.type)) {
        markGlobal();
      } else if (FRAGMENT_EVENTS.includes(event.type)) {
        m.geometry = m.layout = ++m.generation;
        const target = document.querySelector(':target');
        mark(m.target?.deref() ?? null);
        mark(target);
        m.target = target ? new WeakRef(target) : undefined;
      } else if (event.type === 'mouseover') {
        hover(event);
      } else if (event.type === 'mouseout') {
        if (!(event as MouseEvent).relatedTarget) markGlobal(); // the pointer left the document
      } else {
        m.generation++;
        const target = event.composedPath()[0] ?? event.target;
        // Its value is known changed from now: the next take need not find that out again.
        if (target instanceof Element && m.controls.has(target)) m.controls.set(target, signature(target));
        if (target instanceof Node) markFor(target, event.type === 'focusin' || event.type === 'focusout' ? 'focus' : 'state');
        else markGlobal(); // the window (load, error): anything may have changed
        if (event.type === 'load' || event.type === 'error') m.geometry = m.generation;
        if (LAYOUT_EVENTS.includes(event.type)) m.layout = m.layoutBeyondText = m.generation;
      }
    };
    const initialTarget = document.querySelector(':target');
    m.target = initialTarget ? new WeakRef(initialTarget) : undefined;
    for (const type of [...LOCAL_EVENTS, ...GEOMETRY_EVENTS, ...GLOBAL_EVENTS, ...FRAGMENT_EVENTS, 'mouseover', 'mouseout']) {
      addEventListener(type, onEvent, { capture: true, passive: true });
    }
    document.fonts?.addEventListener('loadingdone', () => {
      m.geometry = ++m.generation;
    });
    m.watch(document);
    scan(document);
    // Record what form controls hold now: scripts can change it with no event and no mutation.
    for (const ref of m.roots) {
      for (const control of ref.deref()?.querySelectorAll('input, select, textarea') ?? []) m.controls.set(control, signature(control));
    }
    scope.__pagewireMonitor = m;
    return m;
  };

  // Every element's box (shadow trees included) as the renderer lays it out now; undefined past
  // MAX_BOXES elements: measuring costs about 3 µs an element (12 ms for the 4,500 elements of
  // the large table fixture), which only small pages repay by skipping a snapshot.
  const MAX_BOXES = 1_500;
  const boxesNow = (): Float64Array | undefined => {
    const elements: Element[] = [];
    for (const ref of m.roots) {
      const root = ref.deref();
      if (root) { for (const element of root.querySelectorAll('*')) elements.push(element); }
      if (elements.length > MAX_BOXES) return undefined;
    }
    // In the document's coordinates, as a snapshot has them: scrolling the document moves none.
    // An empty box (no layout box, display: none) has no place: its viewport origin would move.
    const rects = new Float64Array(elements.length * 4);
    elements.forEach((element, i) => {
      const rect = element.getBoundingClientRect();
      const empty = rect.width === 0 && rect.height === 0;
      rects.set(empty ? [-1, -1, 0, 0] : [rect.x + scrollX, rect.y + scrollY, rect.width, rect.height], i * 4);
    });
    return rects;
  };
  const sameBoxes = (a: Float64Array, b: Float64Array) => a.length === b.length && a.every((value, i) => value === b[i]);

  const existing = scope.__pagewireMonitor;
  const m = existing ?? install();
  const answer = (
    summary: Summary,
    elements: Element[] = [],
  ): TakenChanges => [JSON.stringify({ ...summary, quiet: settledFrom >= 0 && m.generation === settledFrom }), ...elements];
  if (!existing) {
    const rects = boxesNow();
    m.boxes = rects ? { at: m.generation, rects } : undefined;
    return answer({ monitor: m.id, generation: m.generation, full: true, geometry: true, layout: true, roots: 0 });
  }

  // Records not yet delivered to the observer callback, and control state set by scripts.
  m.record(m.observer.takeRecords());
  let bumped = false;
  for (const ref of m.roots) {
    for (const control of ref.deref()?.querySelectorAll('input, select, textarea') ?? []) {
      const now = signature(control);
      if (m.controls.get(control) === now) continue;
      const known = m.controls.has(control);
      m.controls.set(control, now);
      if (!known) continue;
      if (!bumped) m.generation++;
      bumped = true;
      m.stateChanged(control);
    }
  }

  // Whether boxes may have moved. When nothing but text changed since the last read, measuring
  // says: the same elements with the same styles and the same boxes have the same layout facts,
  // and the read keeps its snapshot (a status line updated in place, say). The boxes measured are
  // kept for the next take, as those of this generation.
  const motion = (): { geometry: boolean; layout: boolean } => {
    const kept = m.boxes?.at === since ? m.boxes : undefined;
    const moved = { geometry: m.geometry > since, layout: m.layout > since };
    if (!moved.geometry && !moved.layout) {
      // Nothing moved (the reader keeps its geometry too): the boxes still hold.
      m.boxes = kept ? { at: m.generation, rects: kept.rects } : undefined;
      return moved;
    }
    const now = boxesNow();
    m.boxes = now ? { at: m.generation, rects: now } : undefined;
    if (m.layoutBeyondText > since || !kept || !now || !sameBoxes(kept.rects, now)) return moved;
    return { geometry: false, layout: false };
  };
  const summary = (full: boolean, roots: Element[] = [], pointers: Element[] = []): TakenChanges =>
    answer(
      { monitor: m.id, generation: m.generation, full, ...motion(), scroll: [scrollX, scrollY], roots: roots.length },
      [...roots, ...pointers],
    );
  if (monitorId !== m.id || since < m.floor || m.global > since) return summary(true);
  if (m.generation === since) {
    return answer({ monitor: m.id, generation: m.generation, full: false, geometry: false, layout: false, roots: 0 });
  }
  // aria-owns moves nodes across the tree: a partial read could put them in the wrong place.
  if (document.querySelector('[aria-owns]')) return summary(true);

  const changed = new Set<Element>();
  for (const [node, generation] of m.dirty) {
    if (!node.isConnected) {
      m.dirty.delete(node); // its removal is recorded on the ancestor it was removed from
      continue;
    }
    if (generation > since && node instanceof Element) changed.add(node);
  }
  // Elements named by a changed element: <label> controls, aria-labelledby/-describedby referrers.
  for (const element of [...changed]) {
    const label = element.closest('label');
    if (label?.control) changed.add(label.control);
    const root = element.getRootNode() as Document | ShadowRoot;
    for (let n: Element | null = element; n; n = n.parentElement) {
      if (!n.id) continue;
      const id = CSS.escape(n.id);
      for (const referrer of root.querySelectorAll(`[aria-labelledby~="${id}"], [aria-describedby~="${id}"]`)) changed.add(referrer);
    }
    for (const inner of element.querySelectorAll('label')) if (inner.control) changed.add(inner.control);
  }
  // Only the top-most: a changed element inside another is read with it.
  const roots: Element[] = [];
  for (const element of changed) {
    let covered = false;
    for (let n = parentOf(element); n && !covered; n = parentOf(n)) covered = n instanceof Element && changed.has(n);
    if (!covered) roots.push(element);
  }
  if (roots.length > limit || roots.some((r) => r === document.documentElement || r === document.body)) return summary(true);
  // Inside them (shadow trees included), the elements that set `cursor: pointer` themselves: what
  // the renderer's snapshot would say, for a snapshot taken without computed styles. Elements that
  // are controls by themselves are skipped: only a pointer on a plain element makes it clickable.
  const pointers: Element[] = [];
  const cursor = (node: Node | null) => {
    if (!(node instanceof Element)) return '';
    const style = getComputedStyle(node);
    return style.display === 'none' || style.display === 'contents' ? '' : style.cursor; // only boxes have a style there
  };
  const visit = (element: Element) => {
    const control = element.matches('a[href], button, input, select, textarea, summary');
    if (!control && cursor(element) === 'pointer' && cursor(element.parentNode) !== 'pointer') pointers.push(element);
    const shadow = element.shadowRoot ?? m.shadowOf.get(element);
    if (shadow) { for (const child of shadow.children) visit(child); }
    for (const child of element.children) visit(child);
  };
  for (const root of roots) visit(root);
  return summary(false, roots, pointers);
}

function watchRoot(this: Node): void {
  (globalThis as unknown as { __pagewireMonitor?: { watch(root: Node): void } }).__pagewireMonitor?.watch(this);
}

/** What readChanges may wait for first, in the same call: the page settling after an input. */
export interface SettleFirst {
  quietMs: number;
  capMs: number;
  /** Wait first for the input armed in this world to be handled (page-settle.ts: armInputWait). */
  afterInput?: boolean;
}

const TAKE_CHANGES = pageFunction(takeChanges);
// The generation once the input was handled is passed on to the take, which tells whether
// anything happened after it (FrameChanges.quiet); mutation records are flushed first so that
// what the input's own handlers did counts before it.
const SETTLE_THEN_TAKE = `async function (quietMs, capMs, afterInput, ...args) {
  if (afterInput) await (${pageFunction(armedInputHandled)}).call(this, capMs);
  const monitor = globalThis.__pagewireMonitor;
  if (monitor) monitor.record(monitor.observer.takeRecords());
  const settledFrom = monitor ? monitor.generation : -1;
  await (${pageFunction(settleInPage)}).call(this, quietMs, capMs);
  return (${TAKE_CHANGES}).call(this, ...args, settledFrom);
}`;

/**
 * What changed in the frame's document since `since` (its monitor is installed on first use, and
 * then everything counts as changed). Undefined when the frame cannot be asked: the caller reads
 * everything. With `settle`, the page is first left to settle (see page-settle.ts), in the same
 * round trip.
 */
export async function readChanges(
  worlds: IsolatedWorlds,
  frame: FrameRecord,
  since: MonitorMark | undefined,
  timeoutMs: number,
  settle?: SettleFirst,
  /** Called as soon as the question is sent: what the caller sends then reaches the page after it. */
  sent?: () => void,
): Promise<FrameChanges | undefined> {
  try {
    const session = frame.session;
    const contextId = await worlds.contextFor(session, frame.id, frame.loaderId);
    const take = [{ value: since?.generation ?? -1 }, { value: since?.monitor ?? '' }, { value: MAX_CHANGED_ROOTS }];
    // No second attempt when the context lacks the function: what the caller sent behind the
    // question would then reach the page before the answer is taken.
    const answer = callInWorld(
      session,
      contextId,
      settle ? SETTLE_THEN_TAKE : TAKE_CHANGES,
      {
        arguments: settle ? [{ value: settle.quietMs }, { value: settle.capMs }, { value: settle.afterInput === true }, ...take] : take,
        awaitPromise: settle !== undefined,
        // Deep serialization names each element by its backendNodeId, so the answer needs no
        // object handles, no describeNode per element and nothing to release.
        serializationOptions: { serialization: 'deep', maxDepth: 1, additionalParameters: { maxNodeDepth: 0, includeShadowTree: 'none' } },
      },
      { timeoutMs: timeoutMs + (settle?.capMs ?? 0), retry: false },
    );
    sent?.();
    const { result, exceptionDetails } = await answer;
    if (exceptionDetails) return undefined;
    return parseTaken(result.deepSerializedValue);
  } catch {
    return undefined;
  }
}

/** The summary and the elements' backendNodeIds out of `takeChanges`' deep-serialized answer. */
function parseTaken(value: Cdp.Runtime.DeepSerializedValue | undefined): FrameChanges | undefined {
  const items = value?.type === 'array' && Array.isArray(value.value) ? (value.value as Cdp.Runtime.DeepSerializedValue[]) : undefined;
  const head = items?.[0];
  if (!items || head?.type !== 'string' || typeof head.value !== 'string') return undefined;
  const summary = JSON.parse(head.value) as Summary;
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

function changesOf(summary: Summary): FrameChanges {
  return {
    monitor: summary.monitor,
    generation: summary.generation,
    full: summary.full,
    geometry: summary.geometry,
    layout: summary.layout,
    ...(summary.scroll ? { scroll: summary.scroll } : {}),
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
        await callInWorld(frame.session, contextId, pageFunction(watchRoot), { objectId: object.objectId }, { timeoutMs });
        frame.session.send('Runtime.releaseObject', { objectId: object.objectId }).catch(() => {});
      }),
    );
    return true;
  } catch {
    return false;
  }
}
