// The change monitor of a frame's document, in our world: it records the DOM mutations (in the
// document and in every shadow root it can reach: open ones by walking, closed ones handed to it
// through CDP, watchRoot) and the events that change what an observation shows without a mutation
// (input values, focus, hover, scrolling…), each against a generation number. Asked "what changed
// since generation G?", it answers with the top-most changed elements — or says that only a full
// re-read is safe (a change it cannot place: a stylesheet, the title, aria-owns, too many places
// at once). observe/change-monitor.ts is the server's side.
import { armedInputHandled, settleInPage } from './settle.ts';
import { worldState } from './world.ts';

/** What the show/hide rules of a page can react to, besides the element that changed. */
export interface CssReach {
  hover: boolean;
  /** A form or focus state (`:checked`, `:invalid`, `:focus`…). */
  state: boolean;
  focusWithin: boolean;
  /** A sibling combinator (`+`, `~`). */
  sibling: boolean;
  has: boolean;
}

/** The head of a take's answer (observe/change-monitor.ts: FrameChanges says what each means). */
export interface MonitorSummary {
  monitor: string;
  generation: number;
  full: boolean;
  geometry: boolean;
  layout: boolean;
  scroll?: [number, number];
  /** How many of the answer's elements are changed roots; the rest are pointer elements. */
  roots: number;
  quiet?: boolean;
  /** With `full`: how many elements the document has (whether a whole read or a prefix read is cheaper). */
  elements?: number;
}

/** What a take answers: the summary as JSON, then the elements themselves. */
export type TakenChanges = [summary: string, ...elements: Element[]];

type Cause = 'mutation' | 'text' | 'state' | 'focus';

/** A node's parent in the flat tree as far as change marking goes: a shadow root's host. */
export function flatParent(node: Node): Node | null {
  const parent = node.parentNode;
  return parent instanceof ShadowRoot ? parent.host : parent;
}

/** A form control's state as far as an observation shows it (scripts can change it with no event). */
export function controlSignature(control: Element): string {
  const c = control as HTMLInputElement & HTMLSelectElement;
  return `${c.checked ? 1 : 0}${c.indeterminate ? 1 : 0}:${c.value?.length ?? 0}:${c.selectedIndex ?? ''}`;
}

/**
 * Most rules only restyle (colour, underline); those that show, hide or fill content change what
 * an observation reads, and some of them react to more than the changed element: a state
 * (`:checked + .panel`, `:hover > ul`), a sibling (`[aria-expanded=true] + .menu`), anything
 * (`:has()`).
 */
export function addCssReach(rules: CSSRuleList, reach: CssReach): void {
  const structural = /(^|[^-\w])(display|visibility|content)\s*:/;
  const state =
    /:(focus|focus-visible|checked|indeterminate|valid|invalid|user-valid|user-invalid|placeholder-shown|in-range|out-of-range|default|autofill|active|open|popover-open|enabled|disabled|read-only|read-write)\b/;
  for (const rule of rules) {
    if (rule instanceof CSSStyleRule && structural.test(rule.style.cssText)) {
      const selector = rule.selectorText;
      if (selector.includes(':hover')) reach.hover = true;
      if (state.test(selector)) reach.state = true;
      if (selector.includes(':focus-within')) reach.focusWithin = true;
      if (/[+~]/.test(selector)) reach.sibling = true;
      if (selector.includes(':has(')) reach.has = true;
    }
    const nested = (rule as CSSGroupingRule).cssRules;
    if (nested && nested.length > 0) addCssReach(nested, reach);
  }
}

export class ChangeMonitor {
  // Instance fields, not static ones: tsc rewrites a class's references to itself (the class
  // name inside its body) into a module-level alias, which does not exist in the page; the built
  // server's monitor then threw on construction and every observation read the page whole.
  // Not `select`: selecting a field's text (as a fill does first) changes nothing a read shows.
  readonly LOCAL_EVENTS = [
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
  readonly GEOMETRY_EVENTS = ['scroll'];
  readonly GLOBAL_EVENTS = ['resize', 'fullscreenchange', 'pageshow'];
  // Events whose target may have changed size or shape with no mutation (an image loaded, an
  // animation ran, a <details> toggled).
  readonly LAYOUT_EVENTS = ['load', 'error', 'transitionend', 'animationend', 'animationstart', 'toggle'];
  // A fragment navigation scrolls and moves :target from one element to another.
  readonly FRAGMENT_EVENTS = ['hashchange', 'popstate'];
  readonly MAX_DIRTY = 4096;
  // Measuring costs about 3 µs an element, which only small pages repay by skipping a snapshot.
  readonly MAX_BOXES = 1_500;

  /** A new one (a new document or a new world) starts from nothing. */
  readonly id = `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;
  generation = 0;
  /** Changes at or before this generation are no longer itemised. */
  floor = 0;
  /** The last generation with a change that cannot be placed. */
  global = 0;
  /** The last generation with a layout-only change. */
  geometry = 0;
  /** The last generation with a change that may move boxes (see FrameChanges.layout). */
  layout = 0;
  /**
   * The last generation with a change that may alter more than boxes: an element added or
   * removed, an attribute, a state rule. Text changed in place, scrolling or a fragment
   * navigation only move boxes, and measuring them tells whether they did.
   */
  layoutBeyondText = 0;
  /** Every element's box at generation `at`, for telling whether a text change moved any. */
  boxes: { at: number; rects: Float64Array } | undefined;
  /** Changed nodes, with the generation they last changed at. */
  readonly dirty = new Map<Node, number>();
  /** What form controls held when last looked at. */
  readonly controls = new WeakMap<Element, string>();
  readonly roots: Array<WeakRef<Document | ShadowRoot>> = [];
  /** Every shadow root watched, by host (closed ones are reachable no other way). */
  readonly shadowOf = new WeakMap<Element, ShadowRoot>();
  /** What the page's show/hide rules can react to (undefined: not known yet). */
  cssReach: CssReach | undefined;
  /** The element :target matched at the last fragment change. */
  target: WeakRef<Element> | undefined;
  readonly #watched = new WeakSet<Node>();
  readonly #observer = new MutationObserver((records) => this.record(records));

  constructor() {
    const initialTarget = document.querySelector(':target');
    this.target = initialTarget ? new WeakRef(initialTarget) : undefined;
    const onEvent = (event: Event) => this.#onEvent(event);
    for (
      const type of [...this.LOCAL_EVENTS, ...this.GEOMETRY_EVENTS, ...this.GLOBAL_EVENTS, ...this.FRAGMENT_EVENTS, 'mouseover', 'mouseout']
    ) {
      addEventListener(type, onEvent, { capture: true, passive: true });
    }
    document.fonts?.addEventListener('loadingdone', () => {
      this.geometry = ++this.generation;
    });
    this.watch(document);
    this.#scan(document);
    // Record what form controls hold now: scripts can change it with no event and no mutation.
    for (const ref of this.roots) {
      for (const control of ref.deref()?.querySelectorAll('input, select, textarea') ?? []) {
        this.controls.set(control, controlSignature(control));
      }
    }
    const rects = this.#boxesNow();
    this.boxes = rects ? { at: this.generation, rects } : undefined;
  }

  watch(root: Node): void {
    if (this.#watched.has(root)) return;
    this.#watched.add(root);
    if (root instanceof Document || root instanceof ShadowRoot) this.roots.push(new WeakRef(root));
    if (root instanceof ShadowRoot) this.shadowOf.set(root.host, root);
    this.cssReach = undefined;
    this.#observer.observe(root, { subtree: true, childList: true, attributes: true, characterData: true });
  }

  /** Takes the mutation records not yet delivered to the observer's callback. */
  flush(): void {
    this.record(this.#observer.takeRecords());
  }

  record(records: MutationRecord[]): void {
    if (records.length === 0) return;
    this.generation++;
    for (const record of records) {
      for (const added of record.addedNodes) if (added instanceof Element) this.#scan(added);
      // Elements added (and none removed) are read on their own: reading their parent could mean
      // the whole page (a toast appended to <body>).
      const onlyElementsAdded = record.type === 'childList' && record.removedNodes.length === 0 &&
        [...record.addedNodes].every((n) => n instanceof Element);
      // Text changed in place (no element came or went, no attribute changed): the elements and
      // their styles are the same, so only their boxes can tell whether anything moved.
      const textOnly = record.type === 'characterData' ||
        (record.type === 'childList' && [...record.addedNodes, ...record.removedNodes].every((n) => !(n instanceof Element)));
      if (onlyElementsAdded) { for (const added of record.addedNodes) this.#markFor(added, 'mutation'); }
      else this.#markFor(record.target, textOnly ? 'text' : 'mutation');
    }
  }

  /**
   * The changes since generation `since` (-1: everything). `settledFrom`: the generation once
   * the input was handled, when the take follows a settle (FrameChanges.quiet).
   */
  take(since: number, monitorId: string, limit: number, settledFrom: number): TakenChanges {
    const answer = (summary: MonitorSummary, elements: Element[] = []): TakenChanges => [
      JSON.stringify({ ...summary, quiet: settledFrom >= 0 && this.generation === settledFrom }),
      ...elements,
    ];
    // Records not yet delivered to the observer callback, and control state set by scripts.
    this.flush();
    let bumped = false;
    for (const ref of this.roots) {
      for (const control of ref.deref()?.querySelectorAll('input, select, textarea') ?? []) {
        const now = controlSignature(control);
        if (this.controls.get(control) === now) continue;
        const known = this.controls.has(control);
        this.controls.set(control, now);
        if (!known) continue;
        if (!bumped) this.generation++;
        bumped = true;
        this.#markFor(control, 'state');
      }
    }
    const summary = (full: boolean, roots: Element[] = [], pointers: Element[] = []): TakenChanges =>
      answer(
        {
          monitor: this.id,
          generation: this.generation,
          full,
          ...this.#motion(since),
          scroll: [scrollX, scrollY],
          roots: roots.length,
          ...(full ? { elements: document.getElementsByTagName('*').length } : {}),
        },
        [...roots, ...pointers],
      );
    if (monitorId !== this.id || since < this.floor || this.global > since) return summary(true);
    if (this.generation === since) {
      return answer({ monitor: this.id, generation: this.generation, full: false, geometry: false, layout: false, roots: 0 });
    }
    // aria-owns moves nodes across the tree: a partial read could put them in the wrong place.
    if (document.querySelector('[aria-owns]')) return summary(true);
    const roots = this.#changedRoots(since);
    if (roots.length > limit || roots.some((r) => r === document.documentElement || r === document.body)) return summary(true);
    return summary(false, roots, this.#pointersIn(roots));
  }

  /** The answer of a monitor just installed: everything counts as changed. */
  first(settledFrom: number): TakenChanges {
    const summary: MonitorSummary = {
      monitor: this.id,
      generation: this.generation,
      full: true,
      geometry: true,
      layout: true,
      roots: 0,
      elements: document.getElementsByTagName('*').length,
      quiet: settledFrom >= 0 && this.generation === settledFrom,
    };
    return [JSON.stringify(summary)];
  }

  /** The top-most changed elements since `since`, with the elements that name them. */
  #changedRoots(since: number): Element[] {
    const changed = new Set<Element>();
    for (const [node, generation] of this.dirty) {
      if (!node.isConnected) {
        this.dirty.delete(node); // its removal is recorded on the ancestor it was removed from
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
      for (let n = flatParent(element); n && !covered; n = flatParent(n)) covered = n instanceof Element && changed.has(n);
      if (!covered) roots.push(element);
    }
    return roots;
  }

  /**
   * Inside `roots` (shadow trees included), the elements that set `cursor: pointer` themselves:
   * what the renderer's snapshot would say, for a snapshot taken without computed styles.
   * Elements that are controls by themselves are skipped: only a pointer on a plain element makes
   * it clickable.
   */
  #pointersIn(roots: Element[]): Element[] {
    const pointers: Element[] = [];
    const cursor = (node: Node | null) => {
      if (!(node instanceof Element)) return '';
      const style = getComputedStyle(node);
      return style.display === 'none' || style.display === 'contents' ? '' : style.cursor; // only boxes have a style there
    };
    const visit = (element: Element) => {
      const control = element.matches('a[href], button, input, select, textarea, summary');
      if (!control && cursor(element) === 'pointer' && cursor(element.parentNode) !== 'pointer') pointers.push(element);
      const shadow = element.shadowRoot ?? this.shadowOf.get(element);
      if (shadow) { for (const child of shadow.children) visit(child); }
      for (const child of element.children) visit(child);
    };
    for (const root of roots) visit(root);
    return pointers;
  }

  /**
   * Whether boxes may have moved since `since`. When nothing but text changed since the last
   * read, measuring says: the same elements with the same styles and the same boxes have the same
   * layout facts, and the read keeps its snapshot (a status line updated in place, say). The
   * boxes measured are kept for the next take, as those of this generation.
   */
  #motion(since: number): { geometry: boolean; layout: boolean } {
    const kept = this.boxes?.at === since ? this.boxes : undefined;
    const moved = { geometry: this.geometry > since, layout: this.layout > since };
    if (!moved.geometry && !moved.layout) {
      // Nothing moved (the reader keeps its geometry too): the boxes still hold.
      this.boxes = kept ? { at: this.generation, rects: kept.rects } : undefined;
      return moved;
    }
    const now = this.#boxesNow();
    this.boxes = now ? { at: this.generation, rects: now } : undefined;
    const same = kept !== undefined && now !== undefined && kept.rects.length === now.length &&
      kept.rects.every((value, i) => value === now[i]);
    if (this.layoutBeyondText > since || !same) return moved;
    return { geometry: false, layout: false };
  }

  /** Every element's box (shadow trees included) as laid out now; undefined past MAX_BOXES elements. */
  #boxesNow(): Float64Array | undefined {
    const elements: Element[] = [];
    for (const ref of this.roots) {
      const root = ref.deref();
      if (root) { for (const element of root.querySelectorAll('*')) elements.push(element); }
      if (elements.length > this.MAX_BOXES) return undefined;
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
  }

  #scan(root: Element | Document | ShadowRoot): void {
    if ('shadowRoot' in root && root.shadowRoot) {
      this.watch(root.shadowRoot);
      this.#scan(root.shadowRoot);
    }
    for (const element of root.querySelectorAll('*')) {
      if (element.shadowRoot) {
        this.watch(element.shadowRoot);
        this.#scan(element.shadowRoot);
      }
    }
  }

  #markGlobal(): void {
    this.global = this.layout = this.layoutBeyondText = ++this.generation;
  }

  /** A changed node, as the element whose subtree must be read again. */
  #mark(changed: Node | null): void {
    let node = changed;
    if (!node) return;
    if (node instanceof ShadowRoot) node = node.host;
    else if (!(node instanceof Element)) node = flatParent(node);
    if (!(node instanceof Element)) return this.#markGlobal(); // the document itself
    const tag = node.localName;
    const styling = tag === 'style' || tag === 'link';
    if (styling || node.closest('head')) this.cssReach = undefined;
    const tree = node.getRootNode();
    // A shadow tree's own stylesheet reaches only that tree.
    if (styling && tree instanceof ShadowRoot) node = tree.host;
    else if (styling || tag === 'html' || tag === 'head' || tag === 'body' || tag === 'title' || node.closest('head')) {
      return this.#markGlobal();
    }
    if (this.dirty.size >= this.MAX_DIRTY) {
      this.dirty.clear();
      this.floor = this.generation;
    }
    this.dirty.set(node, this.generation);
  }

  /**
   * The element to read again for a change at `node`: its parent when a rule may reach its
   * siblings (or a state rule may: `:checked ~ .x`); everything when a `:has()` rule may.
   */
  #markFor(node: Node | null, cause: Cause): void {
    const reach = this.#reach();
    if (reach.has || (cause === 'focus' && reach.focusWithin)) return this.#markGlobal();
    const structural = cause === 'mutation' || cause === 'text';
    const widen = reach.sibling || (!structural && reach.state);
    const element = node instanceof Element ? node : node ? flatParent(node) : null;
    this.#mark(widen && element instanceof Element ? (flatParent(element) ?? element) : node);
    if (cause === 'text') this.layout = this.generation;
    // A state change moves nothing unless a show/hide rule reacts to it.
    else if (cause === 'mutation' || reach.state || reach.sibling || reach.focusWithin) {
      this.layout = this.layoutBeyondText = this.generation;
    }
  }

  /** A sheet that cannot be read (another origin's) may hold state and sibling rules. */
  #reach(): CssReach {
    if (this.cssReach) return this.cssReach;
    const reach: CssReach = { hover: false, state: false, focusWithin: false, sibling: false, has: false };
    for (const ref of this.roots) {
      const root = ref.deref();
      if (!root) continue;
      for (const sheet of [...root.styleSheets, ...root.adoptedStyleSheets]) {
        try {
          addCssReach(sheet.cssRules, reach);
        } catch {
          reach.hover = reach.state = reach.sibling = true;
        }
      }
    }
    this.cssReach = reach;
    return reach;
  }

  /** Hover moves between two elements: :hover changed on both branches below their common ancestor. */
  #hover(event: Event): void {
    if (!this.#reach().hover) return;
    const from = (event as MouseEvent).relatedTarget;
    const to = event.composedPath()[0] ?? event.target;
    if (!(from instanceof Node) || !(to instanceof Node)) return this.#markGlobal();
    const chain = new Set<Node>();
    for (let n: Node | null = from; n; n = flatParent(n)) chain.add(n);
    let common: Node | null = to;
    while (common && !chain.has(common)) common = flatParent(common);
    const branch = (n: Node): Node | null => {
      let child: Node | null = null;
      for (let cur: Node | null = n; cur && cur !== common; cur = flatParent(cur)) child = cur;
      return child;
    };
    this.layout = this.layoutBeyondText = ++this.generation;
    this.#mark(branch(from));
    this.#mark(branch(to));
  }

  #onEvent(event: Event): void {
    if (this.GEOMETRY_EVENTS.includes(event.type)) {
      // A text field scrolls its own text (typing past its width): that text lives in the field's
      // user-agent shadow tree, which no snapshot reads, so no box of the document moved.
      if (event.target instanceof HTMLInputElement || event.target instanceof HTMLTextAreaElement) return;
      this.geometry = ++this.generation;
    } else if (this.GLOBAL_EVENTS.includes(event.type)) {
      this.#markGlobal();
    } else if (this.FRAGMENT_EVENTS.includes(event.type)) {
      this.geometry = this.layout = ++this.generation;
      const target = document.querySelector(':target');
      this.#mark(this.target?.deref() ?? null);
      this.#mark(target);
      this.target = target ? new WeakRef(target) : undefined;
    } else if (event.type === 'mouseover') {
      this.#hover(event);
    } else if (event.type === 'mouseout') {
      if (!(event as MouseEvent).relatedTarget) this.#markGlobal(); // the pointer left the document
    } else {
      this.generation++;
      const target = event.composedPath()[0] ?? event.target;
      // Its value is known changed from now: the next take need not find that out again.
      if (target instanceof Element && this.controls.has(target)) this.controls.set(target, controlSignature(target));
      if (target instanceof Node) this.#markFor(target, event.type === 'focusin' || event.type === 'focusout' ? 'focus' : 'state');
      else this.#markGlobal(); // the window (load, error): anything may have changed
      if (event.type === 'load' || event.type === 'error') this.geometry = this.generation;
      if (this.LAYOUT_EVENTS.includes(event.type)) this.layout = this.layoutBeyondText = this.generation;
    }
  }
}

/**
 * The changes since generation `since` (-1: everything), installing the monitor first if this
 * document has none. The changed elements (and the pointer elements inside them) follow the
 * summary in the answer, which CDP's deep serialization turns into backendNodeIds: one round trip.
 */
export function takeChanges(since: number, monitorId: string, limit: number, settledFrom = -1): TakenChanges {
  const state = worldState();
  if (!state.monitor) {
    state.monitor = new ChangeMonitor();
    return state.monitor.first(settledFrom);
  }
  return state.monitor.take(since, monitorId, limit, settledFrom);
}

/**
 * settle (settle.ts), then takeChanges, in one call. The generation once the input was handled
 * is passed on to the take, which tells whether anything happened after it (FrameChanges.quiet);
 * mutation records are flushed first so that what the input's own handlers did counts before it.
 */
export async function settleThenTake(
  quietMs: number,
  capMs: number,
  afterInput: boolean,
  since: number,
  monitorId: string,
  limit: number,
): Promise<TakenChanges> {
  if (afterInput) await armedInputHandled(capMs);
  const monitor = worldState().monitor;
  monitor?.flush();
  const settledFrom = monitor ? monitor.generation : -1;
  await settleInPage(quietMs, capMs);
  return takeChanges(since, monitorId, limit, settledFrom);
}

/**
 * Hands a shadow root (a closed one, which page JS cannot reach) to this document's monitor:
 * `this` is the root or a node of its tree.
 */
export function watchRoot(this: Node): void {
  const root = this.getRootNode();
  worldState().monitor?.watch(root instanceof ShadowRoot ? root : this);
}
