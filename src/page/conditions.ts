// The caller's postconditions, checked in the page: `expect` once, `wait_for` until it holds.

/** 'met' when exactly one element matches `selector` and its textContent is `text`. */
export function expectText(selector: string, text: string): 'met' | 'unmet' {
  const matches = document.querySelectorAll(selector);
  if (matches.length !== 1) return 'unmet';
  return matches[0]!.textContent === text ? 'met' : 'unmet';
}

/** Resolves true once the condition holds, false after `timeoutMs`. */
export function waitInPage(kind: string, argument: string, state: string, timeoutMs: number): Promise<boolean> {
  const visible = (element: Element) => {
    const style = getComputedStyle(element);
    const box = element.getBoundingClientRect();
    return style.visibility !== 'hidden' && style.display !== 'none' && box.width > 0 && box.height > 0;
  };
  const holds = (): boolean => {
    if (kind === 'text') {
      const present = (document.body?.innerText ?? '').includes(argument);
      return state === 'hidden' || state === 'detached' ? !present : present;
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
