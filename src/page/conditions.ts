// The caller's postconditions, checked in the page: `expect` once, `wait_for` until it holds.

/** 'met' when exactly one element matches `selector` and its textContent is `text`. */
export function expectText(selector: string, text: string): 'met' | 'unmet' {
  const matches = document.querySelectorAll(selector);
  if (matches.length !== 1) return 'unmet';
  return matches[0]!.textContent === text ? 'met' : 'unmet';
}

/**
 * Resolves true once the condition holds, false after `timeoutMs`. Text is `visible` when the
 * page shows it (the body's rendered text, innerText) and `attached` when the document holds it,
 * shown or not; `hidden` and `detached` are their opposites. A selector is `attached` when an
 * element matches, `visible` when the first match has a box and is not hidden.
 */
export function waitInPage(kind: string, argument: string, state: string, timeoutMs: number): Promise<boolean> {
  const visible = (element: Element) => {
    const style = getComputedStyle(element);
    const box = element.getBoundingClientRect();
    return style.visibility !== 'hidden' && style.display !== 'none' && box.width > 0 && box.height > 0;
  };
  // Whitespace runs read as one space: the document's text is spaced as written, not as shown.
  const collapse = (text: string) => text.replace(/\s+/g, ' ');
  const wanted = collapse(argument);
  /** The body's text nodes, shown or not; code, styles and a text field's contents are not page text. */
  const documentText = (): string => {
    const root = document.body ?? document.documentElement;
    if (!root) return '';
    const notPageText = ['script', 'style', 'noscript', 'template', 'textarea'];
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    let text = '';
    for (let node = walker.nextNode(); node !== null; node = walker.nextNode()) {
      if (!notPageText.includes(node.parentElement?.localName ?? '')) text += node.nodeValue ?? '';
    }
    return collapse(text);
  };
  const holds = (): boolean => {
    if (kind === 'text') {
      const shown = (document.body?.innerText ?? '').includes(argument);
      if (state === 'visible') return shown;
      if (state === 'hidden') return !shown;
      // Rendered text is in the document too, though innerText may space it differently.
      const present = shown || documentText().includes(wanted);
      return state === 'attached' ? present : !present;
    }
    const element = document.querySelector(argument);
    if (state === 'attached') return element !== null;
    if (state === 'detached') return element === null;
    if (state === 'hidden') return element === null || !visible(element);
    return element !== null && visible(element);
  };
  return new Promise((resolve) => {
    if (holds()) return resolve(true);
    const finish = (value: boolean) => {
      observer.disconnect();
      clearInterval(poll);
      clearTimeout(timer);
      resolve(value);
    };
    const observer = new MutationObserver(() => holds() && finish(true));
    observer.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
    const poll = setInterval(() => holds() && finish(true), 100); // style-only changes fire no mutation
    const timer = setTimeout(() => finish(false), timeoutMs);
  });
}
