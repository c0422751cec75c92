// Waiting, in the page, for what an input set off to be done: after every act input, on its own
// (settle) or as the first half of the change monitor's read (monitor.ts: settleThenTake).
import { type ArmedInput, worldState } from './world.ts';

/**
 * From now on, a settle with `afterInput` first waits for that input to have been handled.
 * `this` is the field about to get input, in its own world. It is armed before the input is sent,
 * so the settle can be sent along with the input rather than after its acknowledgement: one round
 * trip less, and the two may reach the renderer in either order. The wait ends after the page's
 * own `input` listeners (at the window, bubbling: the last stop), or a task after `beforeinput`
 * when there is no input event to wait for (the page cancelled the insertion, or stopped
 * propagation).
 */
export function armInputWait(this: Node): void {
  const state = worldState();
  state.inputWait?.disarm();
  // deno-lint-ignore no-this-alias -- `this` is the field, kept for the closures below
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
    if (state.inputWait === armed) delete state.inputWait;
  };
  const armed: ArmedInput = { seen: promise, disarm };
  view.addEventListener('input', onInput);
  view.addEventListener('beforeinput', onBeforeInput, true);
  state.inputWait = armed;
}

/** Resolves once the input armed in this world was handled (armInputWait), or after `capMs`. */
export async function armedInputHandled(capMs: number): Promise<void> {
  const armed = worldState().inputWait;
  if (!armed) return; // none armed, or its input was handled already
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([armed.seen, new Promise<void>((resolve) => (timer = setTimeout(resolve, capMs)))]);
  clearTimeout(timer);
  armed.disarm();
}

/**
 * Resolves once the page has settled: one task turn passed without a DOM mutation, or, on a page
 * that mutates meanwhile, `quietMs` without one; after `capMs` at most (see SETTLE_QUIET_MS).
 */
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

/** settleInPage, counted from when the armed input was handled when `afterInput` (sent along with it). */
export async function settle(quietMs: number, capMs: number, afterInput: boolean): Promise<void> {
  if (afterInput) await armedInputHandled(capMs);
  await settleInPage(quietMs, capMs);
}
