// Each action of PROTOCOL.md §7 as CDP input. Checks that guard the input (visible point, hit
// target, focus) throw ActionError; input cut short by a dialog reports 'dialog'.
import type { Cdp } from '../../protocol/generated/cdp.ts';
import type { FrameRecord } from '../browser/frame-tree.ts';
import type { BrowserPlatform } from '../browser/platform.ts';
import { navigateFrame } from '../browser/navigation.ts';
import type { Tab } from '../browser/tab.ts';
import { callPage, type Focused, PageObject, type Preparation } from '../browser/page-module.ts';
import { redactUrl } from '../util/redact.ts';
import { isServerError } from '../errors.ts';
import type { Deadline } from '../util/deadline.ts';
import type { RequestVerdict } from '../browser/request-guard.ts';
import type { SecretCheck } from '../util/secrets.ts';
import { clickSteps, type InputOutcome, type KeyEventParams, keySteps, modifierMask, mouseMove, sendInput } from './input.ts';
import type { FocusTarget } from './identity.ts';
import { charKeyEvents, keyEventsFor } from './keys.ts';
import { ActionError } from './outcome.ts';
import type { PathPolicy } from './paths.ts';
import { clickablePoint, type Point, pointAfterMove, type PointTarget } from './pointer.ts';
import type { Action } from './types.ts';
import type { ReadAhead } from '../observe/settle.ts';

export interface ActionEnv {
  tab: Tab;
  /** The browser's platform: what ControlOrMeta stands for, and its editing shortcuts. */
  platform: BrowserPlatform;
  /** The observed frame (navigate acts on it; x/y clicks are in its target's viewport). */
  frame: FrameRecord;
  deadline: Deadline;
  secrets: Set<string>;
  uploads: PathPolicy;
  /** The value of a configured secret if it may be typed into a document of `origin`. */
  secret(name: string, origin: string): SecretCheck;
  /** The domain policy's verdict on a URL the act would open. */
  checkUrl(url: string): RequestVerdict;
  /** The rule that refused this tab's latest blocked document request, if any (to name it). */
  blockedNavigationRule(): string | undefined;
  /** The frame a ref's node lives in. */
  frameOf(ref: string): FrameRecord;
  /** The validated node behind a ref (identity already checked). */
  target(ref: string): Promise<PointTarget>;
  /** The node behind a ref, its identity possibly left to the first in-page call (FocusTarget). */
  focusTarget(ref: string): Promise<FocusTarget>;
  /**
   * Called before the first step with a side effect (bring to front, scroll, focus, input). The
   * function it returns takes that back, for a step that proved it did nothing after all.
   */
  beginSideEffect(): Promise<() => void>;
  /**
   * Starts the settle that follows the input now, before the input is acknowledged, and returns
   * it under way. Only for an input armed with armInputWait in the field's world (the settle waits
   * for it there). `readAheadIds`: backendNodeIds of the frame's elements the input surely changed.
   */
  settleAlongWithInput?(acknowledged: Promise<unknown>, readAheadIds: readonly number[]): Promise<ReadAhead | undefined>;
}

export type PerformOutcome =
  /** `settling`: the settle that went out along with the input (settleAlongWithInput), if one did. */
  | { kind: 'input'; input: InputOutcome; settling?: Promise<ReadAhead | undefined> }
  | { kind: 'navigation'; errorText?: string; download?: boolean };

/** What Chromium says of a request the domain policy failed (Fetch.failRequest BlockedByClient). */
export const BLOCKED_BY_POLICY = /net::ERR_BLOCKED_BY_CLIENT/;

// ---- helpers ----

/** `work`, or 'dialog' as soon as a held dialog opens (navigation commands wait on beforeunload). */
async function unlessDialog<T>(env: ActionEnv, work: Promise<T>): Promise<T | 'dialog'> {
  const outcome = await env.tab.dialogs.raceOpening(work);
  return outcome.dialog ? 'dialog' : outcome.value;
}

/**
 * Focuses the node behind `ref` and confirms focus is on it (focus_mismatch otherwise), then
 * prepares it for typing: one in-page call, which first checks the node's identity (node_detached),
 * the node's only check when that was left to it.
 */
async function focusChecked(
  env: ActionEnv,
  ref: string,
  preparation: Preparation = 'none',
  armInput = false,
): Promise<{ target: PointTarget; focused: Focused }> {
  const { target, confirm } = await env.focusTarget(ref);
  const retract = await env.beginSideEffect();
  let result: Focused | 'detached';
  try {
    result = await callPage(target.handle, 'focusPrepared', [preparation, new PageObject(target.document.objectId), armInput]);
  } catch (error) {
    throw new ActionError('focus_mismatch', `the element cannot take focus: ${(error as Error).message}`, {
      sideEffect: true,
      cause: error,
    });
  }
  if (result === 'detached') {
    retract();
    throw new ActionError('node_detached', `the node of ${ref} was removed from the document`);
  }
  confirm?.();
  if (!result.focused) {
    throw new ActionError(
      'focus_mismatch',
      'focus is not on the element after focusing it (it cannot take focus, or a handler moved it elsewhere)',
      {
        sideEffect: true,
      },
    );
  }
  return { target, focused: result };
}

/** The node's point with the mouse already on it (hit confirmed after the move). */
async function hoveredPoint(env: ActionEnv, target: PointTarget, modifiers = 0): Promise<Point | 'dialog'> {
  await env.beginSideEffect();
  return pointAfterMove(target, (point) => sendInput(env.tab, env.deadline, [mouseMove(point, modifiers)]));
}

function input(env: ActionEnv, steps: Array<() => Promise<unknown>>): Promise<PerformOutcome> {
  return sendInput(env.tab, env.deadline, steps).then((outcome) => ({ kind: 'input', input: outcome }));
}

async function typeText(env: ActionEnv, text: string): Promise<InputOutcome> {
  const events: KeyEventParams[] = [];
  // By grapheme, so an emoji with modifiers or a \r\n pair is one keystroke, not several.
  const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  for (const { segment } of segmenter.segment(text)) events.push(...(charKeyEvents(segment) as KeyEventParams[]));
  return sendInput(env.tab, env.deadline, keySteps(env.tab, events));
}

/** Deletes what `focusChecked(…, 'select')` selected. */
async function clearField(env: ActionEnv, contents: string | undefined): Promise<InputOutcome> {
  if (contents === undefined || contents === 'other' || contents.startsWith('input:')) {
    throw new ActionError('action_failed', 'this element is not a text field', { sideEffect: true });
  }
  if (contents === 'readonly') throw new ActionError('action_failed', 'the field is read-only or disabled', { sideEffect: true });
  if (contents === 'empty') return 'acknowledged';
  return sendInput(env.tab, env.deadline, keySteps(env.tab, keyEventsFor('Delete', env.platform) as KeyEventParams[]));
}

/** Text typed into a password field is a secret from now on (redacted everywhere). */
function rememberPassword(env: ActionEnv, focused: Focused, text: string): void {
  if (text && focused.password) env.secrets.add(text);
}

/**
 * The text a type or fill enters: its own, or a configured secret's value when the field's
 * document may have it. Checked on the frame before anything happens, and again on the focused
 * node's own document (`confirmSecret`) before a key is sent.
 */
function textOf(env: ActionEnv, action: { ref: string; text?: string | undefined; secret?: string | undefined }): string {
  if (action.secret === undefined) return action.text ?? '';
  return secretValue(env, action.secret, env.frameOf(action.ref).origin, false);
}

function secretValue(env: ActionEnv, name: string, origin: string, sideEffect: boolean): string {
  const check = env.secret(name, origin);
  if (check.ok) return check.value;
  if (check.reason === 'unknown') throw new ActionError('invalid_params', `there is no secret ${name} on this server`);
  throw new ActionError(
    'forbidden',
    `secret ${name} may only be typed into ${check.origins.join(', ')}; this field's document is ${
      origin || 'of an unknown origin'
    }: nothing was typed`,
    { sideEffect },
  );
}

/** The value goes into the session's redaction the moment it is typed (a page may echo every prefix). */
function confirmSecret(env: ActionEnv, action: { secret?: string | undefined }, focused: Focused): void {
  if (action.secret === undefined) return;
  env.secrets.add(secretValue(env, action.secret, focused.origin, true));
}

// ---- the actions ----

export async function perform(env: ActionEnv, action: Action): Promise<PerformOutcome> {
  switch (action.action) {
    case 'click': {
      const modifiers = modifierMask(action.modifiers ?? [], env.platform);
      let point: Point;
      if (action.ref !== undefined) {
        const hovered = await hoveredPoint(env, await env.target(action.ref), modifiers);
        if (hovered === 'dialog') return { kind: 'input', input: 'dialog' };
        point = hovered;
      } else {
        await env.beginSideEffect();
        point = { session: env.frame.session, x: action.x!, y: action.y! };
      }
      const steps = clickSteps(point, { button: action.button ?? 'left', clickCount: action.click_count ?? 1, modifiers });
      return input(env, action.ref !== undefined ? steps.slice(1) : steps); // the move is done
    }
    case 'hover': {
      const hovered = await hoveredPoint(env, await env.target(action.ref));
      return { kind: 'input', input: hovered === 'dialog' ? 'dialog' : 'acknowledged' };
    }
    case 'type': {
      const text = textOf(env, action);
      const { focused } = await focusChecked(env, action.ref, action.clear_first ? 'select' : 'caret_end');
      confirmSecret(env, action, focused);
      rememberPassword(env, focused, text);
      if (action.clear_first) {
        const cleared = await clearField(env, focused.contents);
        if (cleared === 'dialog') return { kind: 'input', input: 'dialog' };
      }
      const typed = await typeText(env, text);
      if (typed === 'dialog' || !action.submit) return { kind: 'input', input: typed };
      return input(env, keySteps(env.tab, keyEventsFor('Enter', env.platform) as KeyEventParams[]));
    }
    case 'fill': {
      const text = textOf(env, action);
      const parallelSettle = env.settleAlongWithInput !== undefined;
      const { target, focused } = await focusChecked(env, action.ref, 'select', parallelSettle);
      confirmSecret(env, action, focused);
      rememberPassword(env, focused, text);
      const state = focused.contents ?? 'other';
      if (state.startsWith('input:')) {
        // date, time, color, range…: no text insertion; set the value the way a picker would.
        const ok = await callPage(target.handle, 'setValueAndNotify', [text]);
        const shown = action.secret !== undefined ? `secret ${action.secret}` : JSON.stringify(text);
        if (!ok) throw new ActionError('action_failed', `the ${state.slice(6)} input did not accept ${shown}`, { sideEffect: true });
        return { kind: 'input', input: 'acknowledged' };
      }
      if (state === 'other') {
        throw new ActionError('action_failed', 'fill needs a text field (input, textarea or contenteditable)', { sideEffect: true });
      }
      if (state === 'readonly') throw new ActionError('action_failed', 'the field is read-only or disabled', { sideEffect: true });
      if (text === '') {
        if (state === 'empty') return { kind: 'input', input: 'acknowledged' };
        return input(env, keySteps(env.tab, keyEventsFor('Delete', env.platform) as KeyEventParams[]));
      }
      let settling: Promise<ReadAhead | undefined> | undefined;
      const inserted = await sendInput(env.tab, env.deadline, [
        () => {
          const insertion = env.tab.session.send('Input.insertText', { text });
          // The settle waits in page for this insertion (armed above), so it can go out now.
          if (parallelSettle) settling = env.settleAlongWithInput!(insertion, [target.handle.backendNodeId]);
          return insertion;
        },
      ]);
      return { kind: 'input', input: inserted, ...(settling ? { settling } : {}) };
    }
    case 'check': {
      const target = await env.target(action.ref);
      const current = await callPage(target.handle, 'checkedState', []);
      if (current === 'unsupported') throw new ActionError('action_failed', 'check needs a checkbox, radio or switch');
      if (current === action.checked) return { kind: 'input', input: 'acknowledged' };
      const point = await hoveredPoint(env, target);
      if (point === 'dialog') return { kind: 'input', input: 'dialog' };
      const outcome = await input(env, clickSteps(point).slice(1));
      if (outcome.kind === 'input' && outcome.input === 'dialog') return outcome;
      const after = await callPage(target.handle, 'checkedState', []);
      if (after !== action.checked) {
        throw new ActionError(
          'action_failed',
          `the control is still ${after === true ? 'checked' : after === false ? 'unchecked' : String(after)} after the click`,
          {
            sideEffect: true,
          },
        );
      }
      return outcome;
    }
    case 'select': {
      const { target } = await focusChecked(env, action.ref);
      const [mode, wanted] = action.label !== undefined ? ['label', [action.label]] : ['value', action.values ?? [action.value!]];
      const result = await callPage(target.handle, 'chooseOptions', [mode, wanted]);
      if (result.error) throw new ActionError('action_failed', result.error, { sideEffect: true });
      return { kind: 'input', input: 'acknowledged' };
    }
    case 'press': {
      let events: KeyEventParams[];
      try {
        events = keyEventsFor(action.key, env.platform) as KeyEventParams[];
      } catch (error) {
        throw new ActionError('invalid_params', (error as Error).message);
      }
      if (action.ref !== undefined) await focusChecked(env, action.ref);
      else await env.beginSideEffect();
      return input(env, keySteps(env.tab, events));
    }
    case 'scroll': {
      let point: Point;
      if (action.ref !== undefined) {
        const target = await env.target(action.ref);
        await env.beginSideEffect();
        await target.handle.session.send('DOM.scrollIntoViewIfNeeded', { backendNodeId: target.handle.backendNodeId }).catch(() => {});
        if (!action.delta_x && !action.delta_y) return { kind: 'input', input: 'acknowledged' };
        const { quads } = await target.handle.session.send('DOM.getContentQuads', { backendNodeId: target.handle.backendNodeId });
        const quad = quads[0];
        if (!quad) throw new ActionError('not_visible', 'the element has no box to scroll inside', { sideEffect: true });
        point = { session: target.handle.session, x: (quad[0]! + quad[4]!) / 2, y: (quad[1]! + quad[5]!) / 2 };
      } else {
        await env.beginSideEffect();
        const { cssLayoutViewport } = await env.frame.session.send('Page.getLayoutMetrics');
        point = { session: env.frame.session, x: cssLayoutViewport.clientWidth / 2, y: cssLayoutViewport.clientHeight / 2 };
      }
      return input(env, [
        () =>
          point.session.send('Input.dispatchMouseEvent', {
            type: 'mouseWheel',
            x: point.x,
            y: point.y,
            deltaX: action.delta_x ?? 0,
            deltaY: action.delta_y ?? 0,
          }),
      ]);
    }
    case 'drag':
      return drag(env, action.ref, action.to_ref);
    case 'upload': {
      const target = await env.target(action.ref);
      const info = await callPage(target.handle, 'fileInputInfo', []);
      if (!info.isFileInput) throw new ActionError('action_failed', 'upload needs an <input type=file>');
      if (action.paths.length > 1 && !info.multiple) throw new ActionError('action_failed', 'this file input takes a single file');
      let files: string[];
      try {
        files = await env.uploads.resolve(action.paths);
      } catch (error) {
        if (isServerError(error)) throw new ActionError(error.type === 'forbidden' ? 'forbidden' : 'invalid_params', error.message);
        throw error;
      }
      await env.beginSideEffect();
      await target.handle.session.send('DOM.setFileInputFiles', { files, backendNodeId: target.handle.backendNodeId });
      return { kind: 'input', input: 'acknowledged' };
    }
    case 'navigate': {
      const verdict = env.checkUrl(action.url);
      if (!verdict.allowed) {
        throw new ActionError(
          'forbidden',
          `${redactUrl(action.url)} is refused by the domain policy (${verdict.rule}); nothing was opened`,
        );
      }
      await env.beginSideEffect();
      // A beforeunload dialog keeps Page.navigate pending until it is answered.
      const outcome = await unlessDialog(env, navigateFrame(env.frame.session, env.frame.id, action.url, env.deadline));
      if (outcome === 'dialog') return { kind: 'input', input: 'dialog' };
      if (outcome.kind === 'download') return { kind: 'navigation', download: true };
      const errorText = outcome.kind === 'committed' || outcome.kind === 'failed' || outcome.kind === 'crashed'
        ? outcome.errorText
        : undefined;
      if (errorText && BLOCKED_BY_POLICY.test(errorText)) {
        // A redirect to a refused host: the browser's interception stopped that hop.
        const rule = env.blockedNavigationRule();
        throw new ActionError(
          'forbidden',
          `the navigation was refused by the domain policy${rule ? ` (${rule})` : ''} on its way (a redirect)`,
          { sideEffect: true },
        );
      }
      if (outcome.kind === 'failed' || outcome.kind === 'crashed') return { kind: 'navigation', errorText: outcome.errorText };
      return errorText ? { kind: 'navigation', errorText } : { kind: 'navigation' };
    }
    case 'back':
    case 'forward':
      return history(env, action.action === 'back' ? -1 : 1);
    case 'reload': {
      await env.beginSideEffect();
      const reloaded = await unlessDialog(env, env.deadline.race(env.tab.session.send('Page.reload'), 'Page.reload'));
      return reloaded === 'dialog' ? { kind: 'input', input: 'dialog' } : { kind: 'navigation' };
    }
  }
}

async function history(env: ActionEnv, step: -1 | 1): Promise<PerformOutcome> {
  const { currentIndex, entries } = await env.tab.session.send('Page.getNavigationHistory');
  const entry = entries[currentIndex + step];
  if (!entry) throw new ActionError('action_failed', `there is no ${step < 0 ? 'previous' : 'next'} page in this tab's history`);
  await env.beginSideEffect();
  const moved = await unlessDialog(
    env,
    env.deadline.race(env.tab.session.send('Page.navigateToHistoryEntry', { entryId: entry.id }), 'Page.navigateToHistoryEntry'),
  );
  return moved === 'dialog' ? { kind: 'input', input: 'dialog' } : { kind: 'navigation' };
}

async function drag(env: ActionEnv, fromRef: string, toRef: string): Promise<PerformOutcome> {
  const source = await env.target(fromRef);
  const from = await hoveredPoint(env, source);
  if (from === 'dialog') return { kind: 'input', input: 'dialog' };
  const to = await clickablePoint(await env.target(toRef));
  // HTML5 drag and drop needs the drag intercepted and replayed as drag events; pointer-event
  // drags only need the mouse path. Both are driven from the source's target.
  const session = from.session;
  await session.send('Input.setInterceptDrags', { enabled: true });
  let dragData: Cdp.Input.DragData | undefined;
  const intercepted = session.on('Input.dragIntercepted', (event) => (dragData = event.data));
  try {
    const steps: Array<() => Promise<unknown>> = [
      () =>
        session.send('Input.dispatchMouseEvent', { type: 'mousePressed', x: from.x, y: from.y, button: 'left', buttons: 1, clickCount: 1 }),
    ];
    const moves = 5;
    for (let i = 1; i <= moves; i++) {
      const x = from.x + ((to.x - from.x) * i) / moves;
      const y = from.y + ((to.y - from.y) * i) / moves;
      steps.push(() => session.send('Input.dispatchMouseEvent', { type: 'mouseMoved', x, y, button: 'left', buttons: 1 }));
    }
    const moved = await sendInput(env.tab, env.deadline, steps);
    if (moved === 'dialog') return { kind: 'input', input: 'dialog' };
    const drop: Array<() => Promise<unknown>> = [];
    const data = dragData;
    if (data) {
      for (const type of ['dragEnter', 'dragOver', 'drop'] as const) {
        drop.push(() => session.send('Input.dispatchDragEvent', { type, x: to.x, y: to.y, data }));
      }
    }
    drop.push(() =>
      session.send('Input.dispatchMouseEvent', { type: 'mouseReleased', x: to.x, y: to.y, button: 'left', buttons: 0, clickCount: 1 })
    );
    return input(env, drop);
  } finally {
    intercepted.dispose();
    session.send('Input.setInterceptDrags', { enabled: false }).catch(() => {});
  }
}
