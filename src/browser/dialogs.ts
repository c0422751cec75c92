// The JavaScript dialog (alert, confirm, prompt, beforeunload) a tab has open, if any. While one
// is open every renderer-bound call hangs (CDP-NOTES §7), so callers check here first and race
// their waits against `opened`.
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
    ];
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

  /** Answers the held dialog; undefined when none is held. */
  async handle(accept: boolean, promptText?: string): Promise<PendingDialog | undefined> {
    const dialog = this.#pending;
    if (!dialog) return undefined;
    await dialog.session.send('Page.handleJavaScriptDialog', { accept, ...(promptText !== undefined ? { promptText } : {}) });
    return dialog;
  }
}
