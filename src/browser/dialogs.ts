// The JavaScript dialog (alert, confirm, prompt, beforeunload) a tab has open, if any. While one
// is open every renderer-bound call hangs (CDP-NOTES §7), so callers check here first and race
// their waits against `opened`.
import type { CdpSession } from '../cdp/session.ts';
import type { Disposable } from '../util/disposable.ts';
import { Emitter } from '../util/emitter.ts';

export type DialogType = 'alert' | 'confirm' | 'prompt' | 'beforeunload';

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
  opened: PendingDialog;
  closed: { dialog: PendingDialog | undefined; accepted: boolean; userInput: string };
}

export class DialogTracker {
  readonly events = new Emitter<DialogEvents>();
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

  /** Resolves when a dialog opens (at once if one is open); dispose the returned handle. */
  whenOpened(): { promise: Promise<PendingDialog>; dispose(): void } {
    if (this.#pending) return { promise: Promise.resolve(this.#pending), dispose() {} };
    let subscription: Disposable | undefined;
    const promise = new Promise<PendingDialog>((resolve) => {
      subscription = this.events.on('opened', resolve);
    });
    return { promise, dispose: () => subscription?.dispose() };
  }
}
