// Masking password inputs inside shadow roots for a screenshot (capture/masks.ts): the
// style attribute is kept on our world's wrapper of the element, which the page cannot see.

/** Keeps the style attribute on the wrapper, then masks inline. */
export function maskInPage(
  this: HTMLElement & Record<string, unknown>,
  declarations: ReadonlyArray<readonly [string, string]>,
  key: string,
): void {
  // A mask left by an earlier, interrupted screenshot keeps the original saved, not its own.
  if (!Object.prototype.hasOwnProperty.call(this, key)) this[key] = this.getAttribute('style');
  for (const [property, value] of declarations) this.style.setProperty(property, value, 'important');
}

/** Puts the saved style attribute back exactly; nothing if never masked. */
export function restoreInPage(this: HTMLElement & Record<string, unknown>, key: string): void {
  if (!Object.prototype.hasOwnProperty.call(this, key)) return;
  const saved = this[key] as string | null;
  delete this[key];
  // Blink writes CSSOM changes back to the attribute lazily: without this read, a removed
  // attribute came back as style="" the next time the page read it.
  this.getAttribute('style');
  if (saved === null) this.removeAttribute('style');
  else this.setAttribute('style', saved);
}
