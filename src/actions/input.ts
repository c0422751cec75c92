// Trusted input through CDP. Input that opens a dialog does not get its acknowledgement until the
// dialog is closed (CDP-NOTES §7), so every step races the tab's dialog: the caller learns that a
// dialog interrupted it instead of hanging.
import type { BrowserPlatform } from '../browser/platform.ts';
import type { Tab } from '../browser/tab.ts';
import { type CdpSession, SessionSlot } from '../cdp/session.ts';
import type { Deadline } from '../util/deadline.ts';
import { MODIFIER_BITS, primaryModifier } from './keys.ts';
import type { Point } from './pointer.ts';

export type InputOutcome = 'acknowledged' | 'dialog';

export type MouseButton = 'left' | 'right' | 'middle';
export type Modifier = 'Alt' | 'Control' | 'ControlOrMeta' | 'Meta' | 'Shift';

const BUTTON_MASK: Record<MouseButton, number> = { left: 1, right: 2, middle: 4 };

/** CDP's modifier bits of a click's modifiers; ControlOrMeta is the platform's shortcut modifier. */
export function modifierMask(modifiers: readonly Modifier[], platform: BrowserPlatform): number {
  let mask = 0;
  for (const modifier of modifiers) mask |= MODIFIER_BITS[modifier === 'ControlOrMeta' ? primaryModifier(platform) : modifier];
  return mask;
}

/** Sends the steps in order; stops early with 'dialog' when a dialog opens. */
export async function sendInput(tab: Tab, deadline: Deadline, steps: Array<() => Promise<unknown>>): Promise<InputOutcome> {
  for (const step of steps) {
    const outcome = await deadline.race(tab.dialogs.raceOpening(step()), 'input');
    if (outcome.dialog) return 'dialog';
  }
  return 'acknowledged';
}

/**
 * Per session: unbuffered pointer input is on (or could not be turned on, which only costs time).
 * Kept by the session, so a detached one takes it with it; the renderer keeps the setting across
 * its own navigations (its agents are restored with their state).
 */
const UNBUFFERED = new SessionSlot<Promise<void>>((session) =>
  // Sent together: the renderer runs them in order, so Overlay finds DOM enabled.
  Promise.all([session.send('DOM.enable'), session.send('Overlay.enable')]).then(
    () => {},
    () => {},
  )
);

/**
 * A renderer queues mouse moves (and wheels) until its next animation frame, so the
 * acknowledgement of one mouseMoved took up to a frame (~16 ms, median ~8) on an idle page.
 * Overlay.enable (which needs DOM.enable) asks for unbuffered input, as the debugger does: the
 * move is dispatched at once, and its acknowledgement still means it was handled (hover state
 * and mouseover handlers included), which the hit test after the move relies on. Nothing of it
 * is visible to the page but the timing; no DOM node is pushed to us, so DOM.enable adds no
 * mutation events. Idempotent, once per session; a failure leaves input buffered, as before.
 */
export function unbufferedInput(session: CdpSession): Promise<void> {
  return session.slot(UNBUFFERED);
}

export function mouseMove(point: Point, modifiers = 0): () => Promise<unknown> {
  return () =>
    unbufferedInput(point.session).then(() =>
      point.session.send('Input.dispatchMouseEvent', { type: 'mouseMoved', x: point.x, y: point.y, modifiers })
    );
}

export function clickSteps(
  point: Point,
  options: { button?: MouseButton; clickCount?: number; modifiers?: number } = {},
): Array<() => Promise<unknown>> {
  const button = options.button ?? 'left';
  const modifiers = options.modifiers ?? 0;
  const steps: Array<() => Promise<unknown>> = [mouseMove(point, modifiers)];
  const session: CdpSession = point.session;
  // A double click is two press/release pairs with clickCount 1 then 2 (CDP-NOTES §5); without
  // clickCount there would be no click event at all.
  for (let count = 1; count <= (options.clickCount ?? 1); count++) {
    const common = { x: point.x, y: point.y, button, modifiers, clickCount: count };
    steps.push(() => session.send('Input.dispatchMouseEvent', { type: 'mousePressed', buttons: BUTTON_MASK[button], ...common }));
    steps.push(() => session.send('Input.dispatchMouseEvent', { type: 'mouseReleased', buttons: 0, ...common }));
  }
  return steps;
}

export interface KeyEventParams {
  type: 'keyDown' | 'keyUp' | 'rawKeyDown' | 'char';
  [field: string]: unknown;
}

/** Keyboard input goes to the page's focused frame, whichever process hosts it. */
export function keySteps(tab: Tab, events: readonly KeyEventParams[]): Array<() => Promise<unknown>> {
  return events.map((event) => () => tab.session.sendRaw('Input.dispatchKeyEvent', event));
}
