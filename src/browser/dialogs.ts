// The JavaScript dialog (alert, confirm, prompt, beforeunload) a tab has open, if any. While one
// is open every renderer-bound call hangs (CDP-NOTES §7), so callers check here first and race
// their waits against `opened`. A held dialog is forgotten as soon as it is known to be gone,
// whether or not Chromium says it closed: no entry may outlive its dialog.
import { isCdpError } from '../cdp/errors.ts';
import type { CdpSession } from '../cdp/session.ts';
import type { Disposable } from '../util/disposable.ts';
import { Emitter } from '../util/emitter.ts';

export type DialogType = 'alert' | 'confirm' | 'prompt' | 'beforeunload';

/** What happens to a dialog when it opens: kept open for a client, or answered at once. */
export type DialogPolicy = 'hold' | 'accept' | 'dismiss';

export interface PendingDialog {
  type: DialogType;
  message: string;
  defaultPrompt?: string;
  url: string;
  frameId?: string;
  /** The session that reported it: the one to answer through. */
  session: CdpSession;
}

export interface DialogEvents extends Record<string, unknown> {
  /** A dialog opened; `handled` is set when the policy answered it at once. */
  opened: PendingDialog & { handled?: 'accepted' | 'dismissed' };
  closed: { dialog: PendingDialog | undefined; accepted: boolean; userInput: string };
}

export class DialogTracker {
  readonly events = new Emitter<DialogEvents>();
  /** The owning session's policy; `hold` until told otherwise. */
  policy: DialogPolicy = 'hold';
  #pending: PendingDialog | undefined;

  get pending(): PendingDialog | undefined {
    return this.#pending;
  }

  watch(session: CdpSession): Disposable[] {
    return [
      session.on('Page.javascriptDialogOpening', (event) => {
        const dialog: PendingDialog = {
          type: event.type,
          message: event.message,
          url: event.url,
          session,
          ...(event.defaultPrompt !== undefined && event.type === 'prompt' ? { defaultPrompt: event.defaultPrompt } : {}),
          ...(event.frameId ? { frameId: event.frameId } : {}),
        };
        if (this.policy !== 'hold') {
          // Answered here, before anyone waits on it: input that opened it then just completes.
          const accept = this.policy === 'accept';
          session.send('Page.handleJavaScriptDialog', { accept }).catch(() => {});
          this.events.emit('opened', { ...dialog, handled: accept ? 'accepted' : 'dismissed' });
          return;
        }
        this.#pending = dialog;
        this.events.emit('opened', dialog);
      }),
      session.on('Page.javascriptDialogClosed', (event) => {
        const dialog = this.#pending;
        this.#pending = undefined;
        this.events.emit('closed', { dialog, accepted: event.result, userInput: event.userInput });
      }),
      // Chromium closes a dialog whose document goes and says so first; but when the frame that
      // holds it is removed (an out-of-process iframe whose parent takes it out) it says nothing.
      session.on('Page.frameNavigated', (event) => this.#documentGone(event.frame.id)),
      session.on('Page.frameDetached', (event) => {
        if (event.reason === 'remove') this.#documentGone(event.frameId);
      }),
    ];
  }

  /** The held dialog's document is gone (its renderer crashed): nothing is held any more. */
  forget(): void {
    this.#pending = undefined;
  }

  #documentGone(frameId: string): void {
    if (this.#pending?.frameId === frameId) this.#pending = undefined;
  }

  /**
   * Resolves when a dialog opens and is held (at once if one is held); dialogs the policy answers
   * do not count, since they block nothing. Dispose the returned handle.
   */
  whenOpened(): { promise: Promise<PendingDialog>; dispose(): void } {
    if (this.#pending) return { promise: Promise.resolve(this.#pending), dispose() {} };
    let subscription: Disposable | undefined;
    const promise = new Promise<PendingDialog>((resolve) => {
      subscription = this.events.on('opened', (dialog) => {
        if (!dialog.handled) resolve(dialog);
      });
    });
    return { promise, dispose: () => subscription?.dispose() };
  }

  /**
   * `work`'s value, or the held dialog that opened before it settled (at once if one is held):
   * renderer-bound calls hang while a dialog is open, so every wait on one is raced here.
   */
  async raceOpening<T>(work: Promise<T>): Promise<{ value: T; dialog?: undefined } | { dialog: PendingDialog; value?: undefined }> {
    const opened = this.whenOpened();
    try {
      return await Promise.race([work.then((value) => ({ value })), opened.promise.then((dialog) => ({ dialog }))]);
    } finally {
      opened.dispose();
    }
  }

  /**
   * Answers the held dialog: the dialog answered, or undefined when none is held. That includes a
   * dialog gone before the answer reached the browser (a navigation or the page closed it a
   * moment before, its closed event still on the way): Chromium refuses the answer, and the
   * entry is forgotten then rather than when, or if, that event comes.
   */
  async handle(accept: boolean, promptText?: string): Promise<PendingDialog | undefined> {
    const dialog = this.#pending;
    if (!dialog) return undefined;
    try {
      await dialog.session.send('Page.handleJavaScriptDialog', { accept, ...(promptText !== undefined ? { promptText } : {}) });
    } catch (error) {
      // "No dialog is showing", or the session that reported it is gone; a timeout says nothing.
      if (!isCdpError(error) || error.kind === 'timeout') throw error;
      if (this.#pending === dialog) this.#pending = undefined;
      return undefined;
    }
    return dialog;
  }
}
