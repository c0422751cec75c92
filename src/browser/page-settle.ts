// Waiting, in the page, for what an input set off to be done: used after every act input, either
// on its own or as the first half of the change monitor's read (one round trip for both).
import { pageFunction } from './page-function.ts';

/**
 * After input the page is taken as settled once one task turn has passed without a DOM mutation.
 * The input's handlers, and their microtasks, ran before the input was acknowledged; a zero-delay
 * timer they set runs before the settle's own (timers of equal delay run in order). After a
 * trusted input Chromium runs the next frame before any page task (the handlers' timers too), so
 * when the input changed what is rendered this turn ends just after that frame. Each settle is
 * also a round trip through the renderer, so what the handlers reported on that pipe (a requested
 * navigation, say) has arrived when it ends. A page that mutates meanwhile is busy: it is settled
 * once no mutation happened for this long…
 */
export const SETTLE_QUIET_MS = 4;
/** …or after this long at most (pages that never stop mutating). */
export const SETTLE_CAP_MS = 250;

/**
 * In page, in the world of the field about to get input: from now on, a settle with `afterInput`
 * first waits for that input to have been handled. It is armed before the input is sent, so the
 * settle can be sent along with the input rather than after its acknowledgement: one round trip
 * less, and the two may reach the renderer in either order. The wait ends after the page's own
 * `input` listeners (at the window, bubbling: the last stop), or a task after `beforeinput` when
 * there is no input event to wait for (the page cancelled the insertion, or stopped propagation).
 */
export function armInputWait(this: Node): void {
  type Armed = { seen: Promise<void>; disarm(): void };
  const scope = globalThis as unknown as { __pagewireInputWait?: Armed };
  scope.__pagewireInputWait?.disarm();
  // deno-lint-ignore no-this-alias -- in-page code: `this` is the field, kept for the closures below
  const field = this;
  const view = field.ownerDocument?.defaultView ?? window;
  // Only this field's input counts (an editing host counts for a node inside it), shadow
  // boundaries included: a listener at the window sees a closed root's host as the target.
  const concernsField = (event: Event) => {
    const target = event.composedPath()[0];
    for (let node: Node | null = field; node; node = node.parentNode ?? (node instanceof ShadowRoot ? node.host : null)) {
      if (node === target) return true;
    }
    return false;
  };
  let seen!: () => void;
  const promise = new Promise<void>((resolve) => (seen = resolve));
  const onInput = (event: Event) => {
    if (!concernsField(event)) return;
    disarm();
    seen();
  };
  const onBeforeInput = (event: Event) => {
    if (concernsField(event)) setTimeout(() => (disarm(), seen()), 0);
  };
  const disarm = () => {
    view.removeEventListener('input', onInput);
    view.removeEventListener('beforeinput', onBeforeInput, true);
    if (scope.__pagewireInputWait === armed) delete scope.__pagewireInputWait;
  };
  const armed: Armed = { seen: promise, disarm };
  view.addEventListener('input', onInput);
  view.addEventListener('beforeinput', onBeforeInput, true);
  scope.__pagewireInputWait = armed;
}

/** In page: resolves once the input armed in this world was handled (armInputWait), or after `capMs`. */
export async function armedInputHandled(capMs: number): Promise<void> {
  const armed = (globalThis as unknown as { __pagewireInputWait?: { seen: Promise<void>; disarm(): void } }).__pagewireInputWait;
  if (!armed) return; // none armed, or its input was handled already
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([armed.seen, new Promise<void>((resolve) => (timer = setTimeout(resolve, capMs)))]);
  clearTimeout(timer);
  armed.disarm();
}

/** In page: resolves once the page has settled (see SETTLE_QUIET_MS). */
export function settleInPage(quietMs: number, capMs: number): Promise<void> {
  return new Promise((resolve) => {
    let quiet: ReturnType<typeof setTimeout>;
    const done = () => {
      observer.disconnect();
      clearTimeout(quiet);
      clearTimeout(cap);
      resolve();
    };
    const observer = new MutationObserver(() => {
      clearTimeout(quiet);
      quiet = setTimeout(done, quietMs);
    });
    observer.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
    // One task turn; a mutation before it ends re-arms it with the quiet period (the observer
    // runs as a microtask of the task that mutated, before this timer's task).
    quiet = setTimeout(done, 0);
    const cap = setTimeout(done, capMs);
  });
}

/**
 * In page, `(quietMs, capMs, afterInput)`: settleInPage, counted from when the armed input was
 * handled when `afterInput` (the settle was sent along with that input).
 */
export const SETTLE = `async function (quietMs, capMs, afterInput) {
  if (afterInput) await (${pageFunction(armedInputHandled)}).call(this, capMs);
  await (${pageFunction(settleInPage)}).call(this, quietMs, capMs);
}`;
