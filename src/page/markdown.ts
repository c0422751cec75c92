// A page's main content as Markdown (observe format "markdown", docs/markdown.md), written in the
// page from its DOM. The server passes the nodes that carry refs; the page never learns the refs
// or the names, only where each node stands: it writes a mark in their place, and the server puts
// the ref and the accessible name there (observe/markdown.ts). URLs go out the same way, for the
// server to redact. Values of form fields are never read: controls are marks, and the content of
// a text field or an editable element is never walked into.

/**
 * What pageMarkdown answers: Markdown holding marks the server replaces. A mark is a character of
 * MARKS, the index of its item (a ref node, or a URL of `urls`), the same character again.
 */
export interface MarkdownAnswer {
  text: string;
  urls: string[];
}

/** The mark characters (a function: only functions of the module reach the page). */
export function markdownMarks() {
  return {
    /** An element with a ref, written inline: `[name](@ref)`. */
    control: '\u0001',
    /** An element with a ref that holds blocks of content: only its ref, before them. */
    region: '\u0002',
    /** A link's URL (index into `urls`). */
    url: '\u0003',
    /** A line break inside a paragraph, kept through whitespace folding. */
    lineBreak: '\u0004',
  } as const;
}

/**
 * The Markdown of `root` (null: the document's main content), `refNodes` being the nodes of the
 * observed document that carry refs, in the state's order: a mark names one by its index.
 */
export function pageMarkdown(root: Node | null, ...refNodes: Node[]): MarkdownAnswer {
  const walk = new MarkdownWalk(refNodes);
  const body = document.body ?? document.documentElement;
  const main = mainContent(body);
  // A header or footer inside the main content or an article is the content's own, not the site's.
  const blocks = root ? walk.itself(root) : main === body ? walk.content(body, true) : walk.around(body, main);
  return { text: blocks.join('\n\n'), urls: walk.urls };
}

/** The first visible main (element or role), else the one article, else the body. */
export function mainContent(body: Element): Element {
  const shown = (list: Iterable<Element>) => [...list].filter((element) => element.checkVisibility());
  const main = shown(body.querySelectorAll('main, [role="main"]'))[0];
  if (main) return main;
  const articles = shown(body.querySelectorAll('article'));
  return articles.length === 1 ? articles[0]! : body;
}

/** One walk of the DOM into Markdown blocks: the ref nodes it was given, and the URLs it wrote. */
export class MarkdownWalk {
  readonly urls: string[] = [];
  readonly #refNodes: Node[];
  readonly #refOf = new Map<Node, number>();
  readonly #marks = markdownMarks();

  constructor(refNodes: Node[]) {
    this.#refNodes = refNodes;
    refNodes.forEach((node, index) => this.#refOf.set(node, index));
  }

  /**
   * The blocks of `outer` where only `main` is content: the boilerplate around it folded, one line
   * each, in document order; whatever else lies outside it left out.
   */
  around(outer: Element, main: Element): string[] {
    const blocks: string[] = [];
    for (const child of this.#children(outer)) {
      if (!(child instanceof Element) || !this.#shown(child)) continue;
      if (child === main) blocks.push(...this.content(main, false));
      else if (child.contains(main)) blocks.push(...this.around(child, main));
      else blocks.push(...this.#landmarks(child));
    }
    return blocks;
  }

  /** The outermost boilerplate regions in `element` (itself included), folded. */
  #landmarks(element: Element): string[] {
    const fold = this.#boilerplate(element, true);
    if (fold) return [this.#folded(element, fold)];
    return this.#children(element).flatMap((child) => (child instanceof Element && this.#shown(child) ? this.#landmarks(child) : []));
  }

  /** The blocks of `node` itself (root_ref): an inline element is a paragraph of its own. */
  itself(node: Node): string[] {
    if (!(node instanceof Element)) return this.content(node, false);
    if (!this.#shown(node)) return [];
    if (!this.#isInline(node)) return this.#block(node, false);
    const text = this.#inline(node).replace(/\s+/g, ' ').trim();
    return text ? [text] : [];
  }

  /** The blocks of `node`'s children. `top`: not inside an article, a section or a landmark. */
  content(node: Node, top: boolean): string[] {
    const blocks: string[] = [];
    let inline = '';
    const flush = () => {
      const text = inline.replace(/[ \t\n\r\f]+/g, ' ').trim().replaceAll(` ${this.#marks.lineBreak} `, this.#marks.lineBreak)
        .replaceAll(this.#marks.lineBreak, '\n');
      if (text) blocks.push(text);
      inline = '';
    };
    for (const child of this.#children(node)) {
      if (child.nodeType === Node.TEXT_NODE) {
        inline += this.#text(child.nodeValue ?? '');
        continue;
      }
      if (!(child instanceof Element) || !this.#shown(child)) continue;
      if (this.#isInline(child)) {
        inline += this.#inline(child);
        continue;
      }
      flush();
      blocks.push(...this.#block(child, top));
    }
    flush();
    return blocks;
  }

  /** The blocks of a block-level element. */
  #block(element: Element, top: boolean): string[] {
    const index = this.#refOf.get(element);
    if (index !== undefined) {
      if (!this.#holdsBlocks(element)) return [this.#mark(this.#marks.control, index)];
      const [first = '', ...rest] = this.content(element, top);
      return [`${this.#mark(this.#marks.region, index)} ${first}`.trimEnd(), ...rest];
    }
    const fold = this.#boilerplate(element, top);
    if (fold) return [this.#folded(element, fold)];
    const tag = element.localName;
    const heading = /^h([1-6])$/.exec(tag);
    if (heading) {
      const text = this.#line(element);
      return text ? [`${'#'.repeat(Number(heading[1]))} ${text}`] : [];
    }
    if (tag === 'pre') return [this.#code(element)];
    if (tag === 'ul' || tag === 'ol' || tag === 'menu') return this.#list(element, tag === 'ol');
    if (tag === 'table') return this.#table(element);
    if (tag === 'blockquote') return this.content(element, false).map((block) => block.replace(/^/gm, '> '));
    if (tag === 'hr') return ['---'];
    if (tag === 'dt') return [this.#line(element)].filter(Boolean);
    if (tag === 'dd') {
      const [first, ...rest] = this.content(element, false);
      return first === undefined ? [] : [`: ${first}`, ...rest];
    }
    if (this.#isControl(element)) return [];
    return this.content(element, top && !/^(article|section|aside|nav|main)$/.test(tag));
  }

  /** The inline Markdown of a phrasing element (whitespace folded later, with its paragraph's). */
  #inline(element: Element): string {
    const index = this.#refOf.get(element);
    const tag = element.localName;
    if (tag === 'a' && this.#isPermalink(element)) return '';
    if (index !== undefined) {
      const mark = this.#mark(this.#marks.control, index);
      return tag === 'a' || tag === 'span' || tag === 'code' ? mark : ` ${mark} `;
    }
    if (tag === 'br') return ` ${this.#marks.lineBreak} `;
    if (tag === 'label') {
      // A control with a ref says its label in its name: the label's text would say it twice.
      const control = (element as HTMLLabelElement).control;
      if (control && this.#refOf.has(control)) return element.contains(control) ? this.#inline(control) : '';
    }
    if (tag === 'img') {
      const alt = (element.getAttribute('alt') ?? '').trim();
      return alt ? `![${this.#escapeLabel(alt)}]` : '';
    }
    if (this.#isControl(element)) return '';
    const inner = this.#inlineContent(element);
    if (!inner.trim()) return /\s/.test(inner) ? ' ' : '';
    // The space at the content's edges separates it from its neighbours: it goes outside the markers.
    const edges = (text: string) => `${/^\s/.test(inner) ? ' ' : ''}${text}${/\s$/.test(inner) ? ' ' : ''}`;
    if (tag === 'a') {
      const href = element.getAttribute('href');
      if (!href || href.startsWith('javascript:')) return inner;
      this.urls.push((element as HTMLAnchorElement).href);
      return edges(`[${this.#escapeLabel(inner.replace(/\s+/g, ' ').trim())}](${this.#mark(this.#marks.url, this.urls.length - 1)})`);
    }
    if (tag === 'code' || tag === 'kbd' || tag === 'samp') {
      const code = inner.replace(/\s+/g, ' ').trim();
      const ticks = '`'.repeat(Math.max(1, ...(code.match(/`+/g) ?? []).map((run) => run.length + 1)));
      return edges(ticks.length > 1 ? `${ticks} ${code} ${ticks}` : `\`${code}\``);
    }
    // In a term (an API signature, most often), emphasis marks parameters: markers would only clutter it.
    const plain = element.closest('dt') !== null;
    if (!plain && (tag === 'strong' || tag === 'b')) return edges(`**${inner.trim()}**`);
    if (!plain && (tag === 'em' || tag === 'i')) return edges(`*${inner.trim()}*`);
    return inner;
  }

  /** The content of a phrasing element, whitespace as the page has it (folded with its paragraph's). */
  #inlineContent(element: Element): string {
    let inner = '';
    for (const child of this.#children(element)) {
      if (child.nodeType === Node.TEXT_NODE) inner += this.#text(child.nodeValue ?? '');
      else if (child instanceof Element && this.#shown(child)) {
        inner += this.#isInline(child) ? this.#inline(child) : ` ${this.#block(child, false).join(' ')} `;
      }
    }
    return inner;
  }

  /** A fenced code block: the source text of `pre`, its language from its classes or an ancestor's. */
  #code(pre: Element): string {
    let source = '';
    const collect = (node: Node) => {
      for (const child of node.childNodes) {
        if (child.nodeType === Node.TEXT_NODE) source += child.nodeValue ?? '';
        else if (child instanceof Element && child.getAttribute('aria-hidden') !== 'true') {
          if (child.localName === 'br') source += '\n';
          else collect(child);
        }
      }
    };
    collect(pre);
    source = this.#text(source).replace(/^\n+|\s+$/g, '');
    const fence = '`'.repeat(Math.max(3, ...(source.match(/`+/g) ?? []).map((run) => run.length + 1)));
    return `${fence}${this.#language(pre)}\n${source}\n${fence}`;
  }

  #language(pre: Element): string {
    const classes = [pre.querySelector('code'), pre, pre.parentElement, pre.parentElement?.parentElement]
      .flatMap((element) => (element ? [...element.classList] : []));
    for (const name of classes) {
      const found = /^(?:language|lang|highlight|sourceCode)-([\w+#-]+)$/.exec(name);
      if (found && found[1] !== 'default') return found[1]!;
    }
    // Sphinx names the language on a wrapper some levels up (`div.highlight-python3`).
    const wrapper = pre.closest('[class*="highlight-"]');
    for (const name of wrapper?.classList ?? []) {
      const found = /^highlight-([\w+#-]+)$/.exec(name);
      if (found && found[1] !== 'default') return found[1]!;
    }
    return '';
  }

  /** A list's items, a marker each; blocks of an item after its first line go under it, indented. */
  #list(list: Element, ordered: boolean): string[] {
    const lines: string[] = [];
    let number = Number(list.getAttribute('start') ?? 1) || 1;
    for (const item of this.#children(list)) {
      if (!(item instanceof Element) || !this.#shown(item)) continue;
      if (item.localName !== 'li') {
        lines.push(...this.#block(item, false));
        continue;
      }
      const marker = ordered ? `${number++}. ` : '- ';
      const indent = ' '.repeat(marker.length);
      const blocks = this.content(item, false);
      const text = blocks.join('\n').replace(/\n(?!$)/g, `\n${indent}`);
      lines.push(`${marker}${text}`.trimEnd());
    }
    return lines.length ? [lines.join('\n')] : [];
  }

  /** A Markdown table: the first row is its header; a code listing with a line-number gutter is its code. */
  #table(table: Element): string[] {
    const rows = [...(table as HTMLTableElement).rows].filter((row) => this.#shown(row) && row.closest('table') === table);
    const gutter = table.querySelector('td.linenos, td.gutter, td.rouge-gutter, td.blob-num');
    const code = gutter && [...table.querySelectorAll('pre')].find((pre) => !gutter.contains(pre));
    if (code) return [this.#code(code)];
    const cells = rows.map((row) =>
      [...row.cells].map((cell) => this.content(cell, false).join(' ').replace(/\s*\n\s*/g, ' ').replaceAll('|', '\\|').trim())
    );
    const width = Math.max(0, ...cells.map((row) => row.length));
    if (width === 0) return [];
    const line = (row: string[]) => `| ${Array.from({ length: width }, (_, i) => row[i] ?? '').join(' | ')} |`;
    const [head = [], ...body] = cells;
    const caption = (table as HTMLTableElement).caption;
    const title = caption && this.#shown(caption) ? [this.#line(caption)] : [];
    return [...title, [line(head), `| ${Array(width).fill('---').join(' | ')} |`, ...body.map(line)].join('\n')];
  }

  /** What kind of boilerplate `element` is (folded to one line), if it is. */
  #boilerplate(element: Element, top: boolean): string | undefined {
    const role = element.getAttribute('role');
    const tag = element.localName;
    if (tag === 'nav' || role === 'navigation') return 'navigation';
    if (role === 'banner' || role === 'contentinfo' || role === 'complementary' || role === 'search') {
      return { banner: 'header', contentinfo: 'footer', complementary: 'aside', search: 'search' }[role];
    }
    if (!top || role) return undefined;
    if (tag === 'header' || tag === 'footer' || tag === 'aside' || tag === 'search') return tag;
    return undefined;
  }

  /** The one line of a folded element: its kind, its label, the first of its refs or its text. */
  #folded(element: Element, kind: string): string {
    const label = element.getAttribute('aria-label')?.trim();
    const head = label ? `${kind} "${this.#text(label).replaceAll('"', "'")}"` : kind;
    const inside = this.#refNodes.map((node, index) => [node, index] as const).filter(([node]) => this.#holds(element, node));
    const links = element.querySelectorAll('a[href]').length;
    // Enough items to tell what the region is for; the rest are counted (elements lists them all).
    const shownItems = 6;
    if (inside.length > 0) {
      const items = inside.slice(0, shownItems).map(([, index]) => this.#mark(this.#marks.control, index)).join(' ');
      const more = inside.length > shownItems ? ` … ${inside.length - shownItems} more` : '';
      return `[${head}: ${links > 0 ? `${links} links — ` : ''}${items}${more}]`;
    }
    const text = this.#text(element.textContent ?? '').replace(/\s+/g, ' ').trim();
    const snippet = text.length > 80 ? `${text.slice(0, 80)}…` : text;
    return `[${head}${links > 0 ? `: ${links} links` : ''}${snippet ? `: ${snippet}` : ''}]`;
  }

  /** Whether `node` lies in `element`, shadow trees included. */
  #holds(element: Element, node: Node): boolean {
    for (let at: Node | null = node; at; at = at.parentNode ?? (at instanceof ShadowRoot ? at.host : null)) {
      if (at === element) return true;
    }
    return false;
  }

  /** A one-line inline rendering of `element`'s content. */
  #line(element: Element): string {
    return this.content(element, false).join(' ').replace(/\s*\n\s*/g, ' ').trim();
  }

  /** The children as they render: an open shadow root's, a slot's assigned nodes. */
  #children(node: Node): Node[] {
    if (node instanceof Element && node.shadowRoot) return [...node.shadowRoot.childNodes];
    if (node instanceof HTMLSlotElement) {
      const assigned = node.assignedNodes({ flatten: true });
      if (assigned.length > 0) return assigned;
    }
    return [...node.childNodes];
  }

  /** Shown: rendered (a `display: contents` element's children may be), not hidden from assistive technology. */
  #shown(element: Element): boolean {
    if (/^(script|style|noscript|template|head|iframe|frame|object|embed|canvas|video|audio|svg|math|dialog)$/.test(element.localName)) {
      return element.localName === 'dialog' && (element as HTMLDialogElement).open;
    }
    if (element.getAttribute('aria-hidden') === 'true') return false;
    return element.checkVisibility() || getComputedStyle(element).display === 'contents';
  }

  #isInline(element: Element): boolean {
    const tag = element.localName;
    // Phrasing elements by their tag; block ones too; anything else (custom elements) by its style.
    if (
      /^(a|abbr|b|bdi|bdo|br|cite|code|data|del|dfn|em|i|img|input|ins|kbd|label|mark|q|s|samp|select|small|span|strong|sub|sup|textarea|time|u|var|wbr|button)$/
        .test(tag)
    ) {
      return !(this.#refOf.has(element) && this.#holdsBlocks(element));
    }
    if (
      /^(address|article|aside|blockquote|details|dd|div|dl|dt|fieldset|figcaption|figure|footer|form|h[1-6]|header|hgroup|hr|li|main|menu|nav|ol|p|pre|search|section|summary|table|ul)$/
        .test(tag)
    ) return false;
    return getComputedStyle(element).display.startsWith('inline');
  }

  /** Form controls and editable elements: never walked into (their content is a value). */
  #isControl(element: Element): boolean {
    return /^(input|textarea|select|button|option|datalist|output|progress|meter)$/.test(element.localName) ||
      (element instanceof HTMLElement && element.isContentEditable);
  }

  /** Holds content that is read as blocks (a clickable card): its ref goes before them. */
  #holdsBlocks(element: Element): boolean {
    return element.querySelector('h1, h2, h3, h4, h5, h6, p, ul, ol, table, pre, blockquote') !== null;
  }

  /** A `#fragment` link whose text is one symbol (¶, #, §): a heading's permalink. */
  #isPermalink(element: Element): boolean {
    const href = element.getAttribute('href') ?? '';
    const text = (element.textContent ?? '').trim();
    return href.startsWith('#') && text.length <= 2 && !/[\p{L}\p{N}]/u.test(text);
  }

  #mark(kind: string, index: number): string {
    return `${kind}${index}${kind}`;
  }

  /** Page text with the mark characters taken out (a page cannot forge a mark). */
  #text(text: string): string {
    // deno-lint-ignore no-control-regex -- the marks are control characters: no page text holds them
    return text.replace(/[\u0001-\u0004]/g, '');
  }

  #escapeLabel(text: string): string {
    return text.replace(/[[\]]/g, (c) => `\\${c}`);
  }
}
