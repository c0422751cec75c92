// The caller's postconditions, checked in the page: `expect` once, `wait_for` until it holds (and
// watched from before an act's first input, for a condition that holds only for a moment).
import { worldState } from './world.ts';

/** 'met' when exactly one element matches `selector` and its textContent is `text`. */
export function expectText(selector: string, text: string): 'met' | 'unmet' {
  const matches = document.querySelectorAll(selector);
  if (matches.length !== 1) return 'unmet';
  return matches[0]!.textContent === text ? 'met' : 'unmet';
}

/**
 * Whether the condition holds now. Text is `visible` when the page shows it (the body's rendered
 * text, innerText) and `attached` when the document holds it, shown or not; `hidden` and
 * `detached` are their opposites. A selector is `attached` when an element matches, `visible`
 * when the first match has a box and is not hidden. Throws on a selector the page refuses.
 */
export function conditionHolds(kind: string, argument: string, state: string): boolean {
  const visible = (element: Element) => {
    const style = getComputedStyle(element);
    const box = element.getBoundingClientRect();
    return style.visibility !== 'hidden' && style.display !== 'none' && box.width > 0 && box.height > 0;
  };
  // Whitespace runs read as one space: the document's text is spaced as written, not as shown.
  const collapse = (text: string) => text.replace(/\s+/g, ' ');
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
  if (kind === 'text') {
    const shown = (document.body?.innerText ?? '').includes(argument);
    if (state === 'visible') return shown;
    if (state === 'hidden') return !shown;
    // Rendered text is in the document too, though innerText may space it differently.
    const present = shown || documentText().includes(collapse(argument));
    return state === 'attached' ? present : !present;
  }
  const element = document.querySelector(argument);
  if (state === 'attached') return element !== null;
  if (state === 'detached') return element === null;
  if (state === 'hidden') return element === null || !visible(element);
  return element !== null && visible(element);
}

/**
 * Calls `check` on every change of the document (and every 100 ms, for style-only changes, which
 * fire no mutation) until it answers true or the returned stop is called.
 */
export function onEveryChange(check: () => boolean): () => void {
  const stop = () => {
    observer.disconnect();
    clearInterval(poll);
  };
  const observer = new MutationObserver(() => check() && stop());
  observer.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
  const poll = setInterval(() => check() && stop(), 100);
  return stop;
}

/** Resolves true once the condition holds (conditionHolds), false after `timeoutMs`. */
export function waitInPage(kind: string, argument: string, state: string, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    if (conditionHolds(kind, argument, state)) return resolve(true);
    const stop = onEveryChange(() => {
      if (!conditionHolds(kind, argument, state)) return false;
      clearTimeout(timer);
      resolve(true);
      return true;
    });
    const timer = setTimeout(() => {
      stop();
      resolve(false);
    }, timeoutMs);
  });
}

/**
 * Arms a watch, just before an act's first input, that records whether the condition held at any
 * change of the document from now on: a condition the act makes true only for a moment (a "Saved"
 * flash) is over before the act settles and wait_for looks. The state at arming is not counted:
 * it is the page before the input. Replaces a watch left armed in this world. Throws on a selector
 * the page refuses.
 */
export function armCondition(kind: string, argument: string, state: string): void {
  conditionHolds(kind, argument, state);
  const world = worldState();
  world.conditionWatch?.stop();
  const watch = { held: false, stop: () => {} };
  watch.stop = onEveryChange(() => (watch.held = conditionHolds(kind, argument, state)));
  world.conditionWatch = watch;
}

/** Ends the armed watch: whether the condition held at some moment since it was armed. */
export function takeConditionWatch(): boolean {
  const world = worldState();
  const watch = world.conditionWatch;
  world.conditionWatch = undefined;
  watch?.stop();
  return watch?.held ?? false;
}
