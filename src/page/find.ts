// observe's find (PROTOCOL.md §6 "find") in the page: the elements that may get a ref and whose
// name, own text or nearby text holds every word, found with one walk of the document (open shadow
// roots included) instead of a read of its whole accessibility tree. The server reads only these
// from the accessibility tree and decides their refs as an observation does (observe/find.ts).
import { worldState } from './world.ts';

/** What the page says of one element it found (the element itself follows the answer). */
export interface FoundRecord {
  /** The landmarks and headings it lies under, outermost first. */
  path: string[];
  /** Its nearby text, else its own text (whitespace collapsed). */
  text: string;
  /**
   * Why it may get a ref apart from its role: its own `cursor: pointer`, an `onclick`, drag and
   * drop. The server gives one to an element without an interactive role only for this.
   */
  clickable: boolean;
  visible: boolean;
  inViewport: boolean;
  /** It holds a form control: its name from contents must be computed without that control's value. */
  holdsField: boolean;
  /**
   * Its name when its labels (aria-labelledby, <label>) hold a form control: their text without any
   * value, which stands for the name the tree computes with it (PROTOCOL.md §11).
   */
  safeName?: string;
}

/** What findInPage answers before its nodes (as JSON). */
export interface FoundAnswer {
  found: FoundRecord[];
  /** More elements matched than `limit`. */
  more: boolean;
  /** The document's title. */
  title: string;
}

/**
 * The elements matching every one of `words` (lowercase), at most `limit`, in document order;
 * `roles`: the ARIA roles that give an element a ref by themselves. Answers [FoundAnswer as JSON,
 * the document, ...elements].
 */
export function findInPage(words: string[], limit: number, roles: string[]): [string, Document, ...Element[]] {
  // What may get a ref by itself (its role, a field), or by the page's facts (onclick, drag).
  const REF_LIKE = 'a[href],area[href],button,input:not([type=hidden]),select,textarea,summary,[tabindex],' +
    '[contenteditable=""],[contenteditable=true],[role],[onclick],[draggable=true],[ondrop],[ondragover]';
  // The controls inside which a span is the control (render.ts: a span inside a button is the button).
  const CONTROL = 'a[href],button,input,select,textarea,summary,[role=button],[role=link],[role=checkbox],[role=radio],[role=tab],' +
    '[role=menuitem],[role=option],[role=switch],[role=treeitem]';
  // What gets a ref by its role (`roles`: the ARIA ones among render.ts's interactive roles), or is a field;
  // the server checks the role the tree gives.
  const BY_ROLE = 'a[href],area[href],button,input:not([type=hidden]),select,textarea,summary,[contenteditable=""],' +
    `[contenteditable=true],${roles.map((role) => `[role=${role}]`).join(',')}`;
  const FIELD = 'input:not([type=hidden]),textarea,select,[contenteditable=""],[contenteditable=true]';
  const ITEM = 'li,tr,dt,dd,label,[role=listitem],[role=row]';
  const NESTED = new Set(['ul', 'ol', 'dl', 'table', 'textarea', 'select', 'script', 'style', 'template', 'noscript']);
  const INLINE = new Set([
    'a',
    'span',
    'code',
    'strong',
    'em',
    'b',
    'i',
    'u',
    's',
    'small',
    'abbr',
    'sup',
    'sub',
    'mark',
    'kbd',
    'var',
    'samp',
    'q',
    'cite',
    'time',
    'bdi',
    'wbr',
  ]);
  const HEADING = 'h1,h2,h3,h4,h5,h6,[role=heading]';
  const MAX_TEXT = 200;
  const collapse = (text: string) => text.replace(/\s+/g, ' ').trim();
  const clip = (text: string) => (text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT - 1)}…` : text);
  const quote = (text: string) => `"${clip(collapse(text)).replace(/"/g, '\\"')}"`;

  /** An element's text without what form controls hold (their values) and without nested lists when `lead`. */
  const textOf = (element: Element, lead: boolean): string => {
    if (element.matches('textarea,select,[contenteditable=""],[contenteditable=true]')) return '';
    const skip = lead ? NESTED : new Set(['textarea', 'select', 'script', 'style', 'template', 'noscript']);
    let out = '';
    const walk = (node: Node): void => {
      for (let child = node.firstChild; child; child = child.nextSibling) {
        if (child.nodeType === Node.TEXT_NODE) out += (child as Text).data;
        else if (child instanceof Element) {
          if (skip.has(child.localName) || (child as HTMLElement).isContentEditable) continue;
          if (child instanceof HTMLImageElement) out += ` ${child.alt} `;
          else walk(child);
          // Blocks and cells are separate words even where the markup runs them together.
          if (!INLINE.has(child.localName)) out += ' ';
        }
      }
    };
    walk(element);
    return collapse(out);
  };

  /** Its name's sources as an observation's name would have them (not computed: only searched). */
  const nameOf = (element: Element): string => {
    const parts: string[] = [];
    for (const attribute of ['aria-label', 'alt', 'title', 'placeholder']) {
      const value = element.getAttribute(attribute);
      if (value) parts.push(value);
    }
    const root = element.getRootNode() as Document | ShadowRoot;
    for (const id of (element.getAttribute('aria-labelledby') ?? '').split(/\s+/)) {
      const label = id ? root.getElementById?.(id) : null;
      if (label) parts.push(label.textContent ?? '');
    }
    for (const label of (element as Partial<HTMLInputElement>).labels ?? []) parts.push(textOf(label, false));
    return collapse(parts.join(' '));
  };

  const flatParent = (node: Node): Element | null => {
    const parent = node.parentNode;
    if (parent instanceof ShadowRoot) return parent.host;
    return parent instanceof Element ? parent : null;
  };

  /** Lead texts of the nearest items around it (an index entry and the entry it is nested in), outermost first. */
  // An item's lead text is asked for by each element in it: computed once.
  const leads = new Map<Element, string>();
  const leadOf = (item: Element): string => {
    let text = leads.get(item);
    if (text === undefined) leads.set(item, text = textOf(item, true));
    return text;
  };
  const nearbyOf = (element: Element): string[] => {
    const texts: string[] = [];
    for (let item = element.closest(ITEM); item && texts.length < 2; item = item.parentElement?.closest(ITEM) ?? null) {
      const text = leadOf(item);
      if (text) texts.unshift(text);
    }
    return texts;
  };
  /**
   * More than the texts searched, and cheap (the browser's textContent, no walk in script): an
   * element that fails here fails the search. The element's text, its item's, its outer item's lead.
   */
  const roughly = (element: Element): string => {
    const item = element.closest(ITEM);
    const outer = item?.parentElement?.closest(ITEM);
    return `${element.textContent ?? ''}\n${item && item !== element ? item.textContent : ''}\n${outer ? leadOf(outer) : ''}`;
  };

  const pointer = (element: Element) => getComputedStyle(element).cursor === 'pointer';
  const ownPointer = (element: Element): boolean => {
    if (!pointer(element)) return false;
    const parent = flatParent(element);
    return !(parent && parent.checkVisibility() && pointer(parent));
  };

  const LANDMARKS: Record<string, string> = {
    main: 'main',
    nav: 'navigation',
    aside: 'complementary',
    header: 'banner',
    footer: 'contentinfo',
    form: 'form',
    section: 'region',
    dialog: 'dialog',
  };
  const LANDMARK_ROLES = new Set(['main', 'navigation', 'complementary', 'banner', 'contentinfo', 'form', 'region', 'search', 'dialog']);
  /** The landmark an element is, as an observation's line would say it, or undefined. */
  const landmarkOf = (element: Element): string | undefined => {
    const role = element.getAttribute('role') ?? LANDMARKS[element.localName];
    if (!role || !LANDMARK_ROLES.has(role)) return undefined;
    const label = element.getAttribute('aria-label') ??
      (element.getAttribute('aria-labelledby') ? nameOf(element) : '');
    // Sections and forms are landmarks only with a name (and so they are in the tree).
    if ((role === 'region' || role === 'form') && !label && !element.hasAttribute('role')) return undefined;
    return label ? `${role} ${quote(label)}` : role;
  };
  const headingLevel = (element: Element): number => {
    const match = /^h([1-6])$/.exec(element.localName);
    if (match) return Number(match[1]);
    if (element.getAttribute('role') !== 'heading') return 0;
    return Number(element.getAttribute('aria-level')) || 2;
  };

  const found: FoundRecord[] = [];
  const nodes: Element[] = [];
  const taken = new Set<Element>();
  let more = false;
  const headings: string[] = [];
  const viewport = { width: innerWidth, height: innerHeight };

  const matches = (haystack: string) => words.every((word) => haystack.includes(word));
  /** Takes `element` when it matches; false once the answer is full. */
  const consider = (element: Element, clickableOnly: boolean): boolean => {
    if (taken.has(element)) return true;
    const name = nameOf(element);
    // Most elements fail here, cheaply.
    if (!matches(`${name}\n${roughly(element)}`.toLowerCase())) return true;
    const nearby = nearbyOf(element);
    const own = textOf(element, false);
    if (!matches(`${name}\n${own}\n${nearby.join('\n')}`.toLowerCase())) return true;
    if (!element.checkVisibility({ visibilityProperty: true })) return true;
    const insideControl = flatParent(element)?.closest(CONTROL) != null;
    const pointerHere = ownPointer(element);
    const facts = pointerHere || element.hasAttribute('onclick') || element.matches('[draggable=true],[ondrop],[ondragover]');
    // A listener on an element that holds controls is delegation for them (tree-format.md).
    const clickable = facts && !(insideControl && !element.matches('[draggable=true],[ondrop],[ondragover]')) &&
      (pointerHere || element.querySelector(REF_LIKE) === null);
    if (!clickable && (clickableOnly || !element.matches(BY_ROLE))) return true;
    taken.add(element);
    if (found.length >= limit) {
      more = true;
      return false;
    }
    const related = [
      ...(element.getAttribute('aria-labelledby') ?? '').split(/\s+/).filter(Boolean)
        .map((id) => (element.getRootNode() as Document | ShadowRoot).getElementById?.(id)),
      ...((element as Partial<HTMLInputElement>).labels ?? []),
    ].filter((label): label is HTMLElement => label instanceof HTMLElement);
    const leaks = related.some((label) =>
      label !== element && (label.matches(FIELD) || [...label.querySelectorAll(FIELD)].some((field) => field !== element))
    );
    const rect = element.getBoundingClientRect();
    const visible = rect.width > 0 && rect.height > 0;
    found.push({
      path: [...landmarksOf(element), ...headings.filter(Boolean).map(quote)],
      text: clip(nearby.length > 0 ? nearby.join(' › ') : own),
      clickable,
      visible,
      inViewport: visible && rect.right > 0 && rect.bottom > 0 && rect.left < viewport.width && rect.top < viewport.height,
      holdsField: element.querySelector(FIELD) !== null,
      ...(leaks ? { safeName: collapse(related.map((label) => (label === element ? '' : textOf(label, false))).join(' ')) } : {}),
    });
    nodes.push(element);
    return true;
  };

  /**
   * Elements clickable only by their pointer cursor have no marker to find them by: around each text
   * of `root` that holds the first word, the
   * nearest element with a pointer cursor, unless a control comes first.
   */
  /**
   * What in `root` may match, found from where the first word stands (texts, and attributes the
   * name is taken from) rather than by looking at every element: elements whose own text holds such
   * a text, every candidate inside an item whose lead text holds one, elements whose name
   * attributes hold the word, and what names itself from elsewhere (aria-labelledby, a label's
   * control). Each is then checked in full (consider). `pointerOnly`: elements clickable only by a
   * pointer cursor they set around such a text (no marker finds them otherwise).
   */
  const candidatesIn = (root: Document | ShadowRoot): { candidates: Set<Element>; pointerOnly: Set<Element> } => {
    const candidates = new Set<Element>();
    const pointerOnly = new Set<Element>();
    const first = words[0] ?? '';
    const quoted = first.replace(/["\\]/g, '\\$&');
    const named = ['aria-label', 'title', 'alt', 'placeholder'].map((attribute) => `[${attribute}*="${quoted}" i]`).join(',');
    const add = (element: Element) => {
      for (let up: Element | null = element; up; up = up.parentElement) if (up.matches(REF_LIKE)) candidates.add(up);
    };
    for (const element of root.querySelectorAll(`${named},[aria-labelledby],label`)) {
      add(element);
      const control = (element as Partial<HTMLLabelElement>).control;
      if (control) candidates.add(control);
    }
    for (const field of root.querySelectorAll('input,select,textarea')) candidates.add(field);
    // Tested without a lowercase copy of every text of the page.
    const holdsFirst = new RegExp(first.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'i');
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    while (walker.nextNode()) {
      if (!holdsFirst.test((walker.currentNode as Text).data)) continue;
      const parent = walker.currentNode.parentElement;
      if (!parent) continue;
      add(parent);
      // The item whose lead text this is (no nested list on the way up) lends it to every element inside.
      for (let up: Element | null = parent; up && !NESTED.has(up.localName); up = up.parentElement) {
        if (!up.matches(ITEM)) continue;
        for (const inside of up.querySelectorAll(REF_LIKE)) candidates.add(inside);
        break;
      }
      // Text inside a control is the control's, found as one.
      if (parent.closest(CONTROL)) continue;
      let element: Element | null = parent;
      for (let depth = 0; element && depth < 6 && !pointer(element); depth++) element = flatParent(element);
      if (!element || !pointer(element)) continue;
      // The element that sets the cursor itself, not one that inherits it.
      for (let up = flatParent(element); up && pointer(up); up = flatParent(up)) element = up;
      pointerOnly.add(element);
    }
    return { candidates, pointerOnly };
  };

  const landmarksOf = (element: Element): string[] => {
    const out: string[] = [];
    for (let up = flatParent(element); up; up = flatParent(up)) {
      const landmark = landmarkOf(up);
      if (landmark) out.unshift(landmark);
    }
    return out;
  };

  /** `elements` in document order (of one tree: each root is searched on its own). */
  const inOrder = (elements: Iterable<Element>): Element[] =>
    [...new Set(elements)].sort((a, b) => (a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING ? -1 : 1));

  /** Headings set as the document's were just before `element` (a shadow root's host: where its tree stands). */
  const headingsBefore = (element: Element, documentHeadings: readonly Element[]): void => {
    headings.length = 0;
    for (const heading of documentHeadings) {
      if (!(heading.compareDocumentPosition(element) & Node.DOCUMENT_POSITION_FOLLOWING)) break;
      setHeading(heading);
    }
  };
  const setHeading = (heading: Element): void => {
    const level = headingLevel(heading);
    if (level === 0) return;
    headings.length = level;
    headings[level - 1] = (heading as HTMLElement).innerText ?? heading.textContent ?? '';
  };

  /**
   * The document and its shadow roots: the monitor's list when it is there (it keeps every root it
   * reached, closed ones an observation handed it included), else found by looking at each element.
   */
  const roots = (): Array<Document | ShadowRoot> => {
    const monitor = worldState().monitor;
    if (monitor) {
      monitor.flush();
      return monitor.roots.map((ref) => ref.deref())
        .filter((root): root is Document | ShadowRoot => root !== undefined && (root instanceof Document || root.host.isConnected));
    }
    const found: Array<Document | ShadowRoot> = [document];
    for (let i = 0; i < found.length; i++) {
      for (const element of found[i]!.querySelectorAll('*')) if (element.shadowRoot) found.push(element.shadowRoot);
    }
    return found;
  };

  /**
   * Searches `root`: only what may match is looked at (candidatesIn), in document order with the
   * headings between; false once the answer is full.
   */
  const search = (root: Document | ShadowRoot, documentHeadings: readonly Element[]): boolean => {
    const { candidates, pointerOnly } = candidatesIn(root);
    const own = [...root.querySelectorAll(HEADING)];
    if (root instanceof ShadowRoot) {
      let host: Element = root.host;
      for (let up = host.getRootNode(); up instanceof ShadowRoot; up = host.getRootNode()) host = up.host;
      headingsBefore(host, documentHeadings);
    }
    const ownHeadings = new Set(own);
    for (const element of inOrder([...own, ...candidates, ...pointerOnly])) {
      if (ownHeadings.has(element)) setHeading(element);
      if (candidates.has(element)) {
        if (!consider(element, false)) return false;
      } else if (pointerOnly.has(element) && !consider(element, true)) return false;
    }
    return true;
  };
  const documentHeadings = inOrder(document.querySelectorAll(HEADING));
  for (const root of roots()) {
    headings.length = 0;
    if (!search(root, documentHeadings)) break;
  }
  // Empty heading slots (a level skipped) are left out of paths above: filter(Boolean).
  return [JSON.stringify({ found, more, title: document.title } satisfies FoundAnswer), document, ...nodes];
}
