// Masking what a capture must not show (PROTOCOL.md §11), and undoing it (CDP-NOTES §10, and the
// pixel checks in test/e2e/screenshot.test.ts):
// - light-DOM inputs get the inspector stylesheet of their document: the page cannot see it
//   (no mutation, no entry in document.styleSheets);
// - the stylesheet does not reach into shadow roots, so inputs there (and elements that show a
//   secret) get the same declarations inline, from our isolated world, and their style attribute
//   is put back right after. The page can observe that brief attribute change (a MutationObserver
//   inside the shadow root would see two records): masking is best-effort, as §11 says;
// - a screencast holds the stylesheets on while it runs (PasswordMaskHold).
import type { IsolatedWorlds } from '../browser/isolated-worlds.ts';
import { callPage, callPageRaw } from '../browser/page-module.ts';
import type { Tab } from '../browser/tab.ts';
import { isCdpError } from '../cdp/errors.ts';
import { type CdpSession, type SendOptions, SessionSlot } from '../cdp/session.ts';
import { BoundedMap } from '../util/bounded-map.ts';
import { type CallGuard, UNGUARDED } from './dialog-guard.ts';
import type { FoundPasswords } from './password-inputs.ts';

/**
 * What turns a password input into one opaque black box, checked by decoding screenshots: with
 * only `color`/`background`, the UA's inset border stays visible in two greys (84/168 on black);
 * `border-image` paints the border black whatever its style, without changing its width (so no
 * relayout, even for `border:none`); the inset shadow covers a background that beats ours
 * (inline `!important`, or the UA's own `!important` autofill colours); `-webkit-text-fill-color`
 * wins over `color` when a page sets it. The bullets are kept (no `-webkit-text-security:none`):
 * they are transparent anyway, and the value must never be drawn as plain text.
 */
export const MASK_DECLARATIONS: ReadonlyArray<readonly [property: string, value: string]> = [
  ['color', 'transparent'],
  ['-webkit-text-fill-color', 'transparent'],
  ['caret-color', 'transparent'],
  ['text-shadow', 'none'],
  ['background', '#000'],
  ['border-color', '#000'],
  ['border-image', 'linear-gradient(#000, #000) 1'],
  ['box-shadow', 'inset 0 0 0 100vmax #000'],
];

export const MASK_CSS = cssOf(MASK_DECLARATIONS);

/** How masked elements look in one kind of capture: the inline declarations and the password inputs' stylesheet. */
export interface MaskLook {
  declarations: ReadonlyArray<readonly [property: string, value: string]>;
  css: string;
}

function cssOf(declarations: MaskLook['declarations']): string {
  return `input[type=password i]{${declarations.map(([p, v]) => `${p}:${v}!important`).join(';')}}`;
}

/** Screenshots and screencasts: pixels only, so transparent text is enough. */
export const SCREEN_MASK: MaskLook = { declarations: MASK_DECLARATIONS, css: MASK_CSS };

/**
 * A PDF keeps the text it draws, even transparent (its content streams hold every glyph): the
 * text is drawn as discs instead, in any element (and in a password input whose page turned its
 * bullets off). Checked by extracting the text of printed PDFs (test/e2e/pdf.test.ts); the discs
 * can change the width of an inline element a little while the page prints.
 */
const PRINT_DECLARATIONS: MaskLook['declarations'] = [...MASK_DECLARATIONS, ['-webkit-text-security', 'disc']];
export const PRINT_MASK: MaskLook = { declarations: PRINT_DECLARATIONS, css: cssOf(PRINT_DECLARATIONS) };

/** One renderer call (snapshot, enable, resolve…). */
export const STEP_TIMEOUT_MS = 10_000;
/** Undoing a mask is not cancellable; a renderer that does not answer in this time never will soon. */
const RESTORE_TIMEOUT_MS = 3_000;
/** Where the isolated world keeps an input's style attribute while it is masked (invisible to the page's world). */
const SAVED_STYLE_KEY = '__pagewireSavedStyle';
/** Remote objects of one document's masked inputs, released together (one group per document). */
const OBJECT_GROUP = 'pagewire-screenshot-mask';
/** Inspector stylesheets remembered per session (documents come and go with navigations). */
const SHEETS_KEPT = 256;

/** One capture's masking: the tab, our worlds in it, how its calls run, and the undo steps it owes. */
export interface MaskRun {
  tab: Tab;
  worlds: IsolatedWorlds;
  guard: CallGuard;
  step: SendOptions;
  look: MaskLook;
  /** What undoes each mask put on, pushed before the mask goes out; run in the capture's `finally`. */
  restores: Array<() => Promise<unknown>>;
}

/**
 * Keeps every password input of the tab's light DOM masked while a screencast runs: the masking
 * stylesheet of each frame's document stays set (new documents get theirs through `apply`, called
 * again on each navigation), and screenshots taken meanwhile leave it set. Inputs inside shadow
 * roots are not masked in a screencast (their inline masks would have to stay on, visibly to the
 * page).
 */
export class PasswordMaskHold {
  readonly #tab: Tab;
  readonly #sessions = new Set<CdpSession>();
  #released = false;

  constructor(tab: Tab) {
    this.#tab = tab;
  }

  /** Masks the documents the tab has now. */
  async apply(): Promise<void> {
    const step: SendOptions = { timeoutMs: STEP_TIMEOUT_MS };
    await Promise.all(
      this.#tab.frames.list().map(async (frame) => {
        if (this.#released) return;
        if (!this.#sessions.has(frame.session)) {
          this.#sessions.add(frame.session);
          stateOf(frame.session).held++;
        }
        await setMaskSheet({
          session: frame.session,
          frameId: frame.id,
          key: documentKey(this.#tab, frame.id),
          guard: UNGUARDED,
          step,
          text: MASK_CSS,
        });
      }),
    );
  }

  /** Unmasks (best-effort: a document gone meanwhile has nothing to undo). */
  async release(): Promise<void> {
    if (this.#released) return;
    this.#released = true;
    const step: SendOptions = { timeoutMs: RESTORE_TIMEOUT_MS };
    for (const session of this.#sessions) stateOf(session).held--;
    await Promise.allSettled(
      this.#tab.frames.list().map((frame) =>
        stateOf(frame.session).held > 0 ? undefined : setMaskSheet({
          session: frame.session,
          frameId: frame.id,
          key: documentKey(this.#tab, frame.id),
          guard: UNGUARDED,
          step,
          text: '',
        })
      ),
    );
  }
}

// ---------------------------------------------------------------------------------------------
// Per session

/**
 * What belongs to one CDP session's agents: the CSS agent's enablement and the inspector
 * stylesheet of each document. Kept by the session (it goes with it), so repeated screenshots
 * reuse one sheet per document instead of adding one each time. Keys are frame id + loader id: a
 * new document gets a new sheet. (Our isolated world of each document is IsolatedWorlds'.)
 */
interface SessionState {
  cssEnabled?: Promise<void>;
  /** Screencasts holding the masks on: a screenshot's restore then leaves the sheet masked. */
  held: number;
  readonly sheets: BoundedMap<string, Promise<string>>;
}

const AGENTS = new SessionSlot<SessionState>(() => ({ held: 0, sheets: new BoundedMap(SHEETS_KEPT) }));

function stateOf(session: CdpSession): SessionState {
  return session.slot(AGENTS);
}

/** A cached promise that is dropped when it fails, so the next call tries afresh. */
function cached<T>(map: Map<string, Promise<T>>, key: string, make: () => Promise<T>): Promise<T> {
  let value = map.get(key);
  if (!value) {
    value = make();
    value.catch(() => {
      if (map.get(key) === value) map.delete(key);
    });
    map.set(key, value);
  }
  return value;
}

function documentKey(tab: Tab, frameId: string): string {
  return `${frameId}\u0000${tab.frames.get(frameId)?.loaderId ?? ''}`;
}

/** Masks one document's inputs for a capture; `run.restores` gets what undoes it, even if masking fails midway. */
export async function maskDocument(run: MaskRun, doc: FoundPasswords): Promise<void> {
  await Promise.all([
    doc.light.length > 0 ? maskWithStylesheet(run, doc) : undefined,
    doc.shadow.length > 0 ? maskInline(run, doc) : undefined,
  ]);
}

/**
 * Light DOM: the document's inspector stylesheet. A cached sheet id that the session no longer
 * knows (the CSS agent was disabled or the document replaced under the same loader) is dropped
 * and the sheet made again, once.
 */
async function maskWithStylesheet(run: MaskRun, doc: FoundPasswords): Promise<void> {
  const { session } = doc;
  const state = stateOf(session);
  const { guard, step } = run;
  const sheetId = await setMaskSheet({
    session,
    frameId: doc.frameId,
    key: documentKey(run.tab, doc.frameId),
    guard,
    step,
    text: run.look.css,
  });
  run.restores.push(() =>
    session.sendWith({ timeoutMs: RESTORE_TIMEOUT_MS }, 'CSS.setStyleSheetText', {
      styleSheetId: sheetId,
      text: state.held > 0 ? MASK_CSS : '',
    })
  );
}

/** Sets the text of a document's inspector stylesheet (made once per document), and returns its id. */
async function setMaskSheet(init: {
  session: CdpSession;
  frameId: string;
  key: string;
  guard: CallGuard;
  step: SendOptions;
  text: string;
}): Promise<string> {
  const { session, frameId, key, guard, step, text } = init;
  const state = stateOf(session);
  for (let attempt = 0;; attempt++) {
    // The CSS agent needs the DOM agent (without it: "DOM agent needs to be enabled first").
    // Both stay enabled for the session: CSS.enable walks the document's style sheets (13–18 ms
    // on the login fixture), too much to pay per screenshot. (Disabling would not lose the sheet:
    // re-enabled, createStyleSheet hands back the same one, text included; checked.)
    state.cssEnabled ??= session.sendWith(step, 'DOM.enable').then(() => session.sendWith(step, 'CSS.enable')).then(() => {});
    const enabling = state.cssEnabled;
    enabling.catch(() => {
      if (state.cssEnabled === enabling) delete state.cssEnabled;
    });
    await guard.run(enabling);
    // Without `force`, createStyleSheet returns the document's existing inspector sheet anyway;
    // the cache saves the round trip.
    const sheetId = await guard.run(
      cached(state.sheets, key, () => session.sendWith(step, 'CSS.createStyleSheet', { frameId }).then((r) => r.styleSheetId)),
    );
    try {
      await guard.run(session.sendWith(step, 'CSS.setStyleSheetText', { styleSheetId: sheetId, text }));
      return sheetId;
    } catch (error) {
      if (attempt > 0 || !(isCdpError(error) && error.kind === 'protocol')) throw error;
      state.sheets.delete(key);
      delete state.cssEnabled;
    }
  }
}

/**
 * Shadow DOM: the declarations set inline with `!important`, from an isolated world (page scripts
 * that patch CSSStyleDeclaration or setAttribute cannot interfere). The input's previous style
 * attribute is kept on the isolated world's wrapper, which the page cannot see, and written back
 * exactly (or removed if there was none). The restore is queued on the same session right after,
 * so it runs after the mask even if the mask's answer was lost; it does nothing if the mask never
 * ran. The page CAN observe the attribute changing and changing back (MutationObserver,
 * attributeChangedCallback): best-effort masking, PROTOCOL.md §11.
 */
async function maskInline(run: MaskRun, doc: FoundPasswords): Promise<void> {
  const { session } = doc;
  const { guard, step, worlds } = run;
  const loaderId = run.tab.frames.get(doc.frameId)?.loaderId ?? '';
  const objectGroup = `${OBJECT_GROUP}:${doc.frameId}`;
  for (let attempt = 0;; attempt++) {
    const contextId = await guard.run(worlds.contextFor(session, doc.frameId, loaderId));
    let objects: string[];
    try {
      objects = await Promise.all(
        doc.shadow.map(async (backendNodeId) => {
          const { object } = await guard.run(
            session.sendWith(step, 'DOM.resolveNode', { backendNodeId, executionContextId: contextId, objectGroup }),
          );
          if (!object.objectId) throw new Error(`password input ${backendNodeId} has no object`);
          return object.objectId;
        }),
      );
    } catch (error) {
      // A context that died without a new loader (document.open, a crash of the world): retry once.
      if (attempt > 0 || !(isCdpError(error) && error.kind === 'protocol')) throw error;
      worlds.forget(doc.frameId, loaderId);
      continue;
    }
    run.restores.push(async () => {
      const restoreOptions = { timeoutMs: RESTORE_TIMEOUT_MS };
      await Promise.allSettled(
        objects.map((objectId) =>
          callPage({ session, executionContextId: contextId, objectId }, 'restoreInPage', [SAVED_STYLE_KEY], restoreOptions)
        ),
      );
      await session.sendWith(restoreOptions, 'Runtime.releaseObjectGroup', { objectGroup });
    });
    await Promise.all(
      objects.map(async (objectId) => {
        const { exceptionDetails } = await guard.run(
          callPageRaw({ session, executionContextId: contextId, objectId }, 'maskInPage', [run.look.declarations, SAVED_STYLE_KEY], {
            returnByValue: true,
          }, step),
        );
        if (exceptionDetails) throw new Error(`masking a password input failed: ${exceptionDetails.text}`);
      }),
    );
    return;
  }
}
