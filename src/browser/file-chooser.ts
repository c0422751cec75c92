// File choosers are intercepted (Page.setInterceptFileChooserDialog): a trusted click on a file
// input opens no native dialog but reports here, and stays pending until a client resolves it
// (file_chooser.resolve) or the document that opened it goes away. Chromium keeps nothing of it:
// the pending chooser is this tracker's alone, and only a resolution that succeeded ends it.
import type { CdpSession } from '../cdp/session.ts';
import type { Disposable } from '../util/disposable.ts';
import { Emitter } from '../util/emitter.ts';
import { SerialQueue } from '../util/serial-queue.ts';

export interface PendingChooser {
  frameId: string;
  mode: 'selectSingle' | 'selectMultiple';
  /** The <input type=file>; absent for showOpenFilePicker(), which cannot take files this way. */
  backendNodeId?: number;
  session: CdpSession;
}

export interface ChooserEvents extends Record<string, unknown> {
  opened: PendingChooser;
}

export class FileChooserTracker {
  readonly events = new Emitter<ChooserEvents>();
  #pending: PendingChooser | undefined;
  /** Resolutions run one at a time: a second one sees what the first left. */
  readonly #resolutions = new SerialQueue();

  get pending(): PendingChooser | undefined {
    return this.#pending;
  }

  watch(session: CdpSession): Disposable[] {
    return [
      session.on('Page.fileChooserOpened', (event) => {
        const chooser: PendingChooser = {
          frameId: event.frameId,
          mode: event.mode,
          session,
          ...(event.backendNodeId !== undefined ? { backendNodeId: event.backendNodeId } : {}),
        };
        this.#pending = chooser;
        this.events.emit('opened', chooser);
      }),
      // Its document is gone: navigated away, or its frame removed.
      session.on('Page.frameNavigated', (event) => this.#documentGone(event.frame.id)),
      session.on('Page.frameDetached', (event) => {
        if (event.reason === 'remove') this.#documentGone(event.frameId);
      }),
    ];
  }

  /**
   * Runs `settle` on the pending chooser, after any resolution already running. The chooser stops
   * being pending only once `settle` succeeded: when it throws (a refused path, a failed
   * DOM.setFileInputFiles) nothing was given to the page and the chooser stays for another try
   * (PROTOCOL.md §8: a failed call changes nothing). Undefined, without calling `settle`, when no
   * chooser is pending.
   */
  resolve<T>(settle: (chooser: PendingChooser) => Promise<T>): Promise<T | undefined> {
    return this.#resolutions.run(async () => {
      const chooser = this.#pending;
      if (!chooser) return undefined;
      const value = await settle(chooser);
      // Its document may have gone meanwhile; a newer chooser stays pending.
      if (this.#pending === chooser) this.#pending = undefined;
      return value;
    });
  }

  /** The document that held the chooser is gone (its renderer crashed): nothing is pending. */
  forget(): void {
    this.#pending = undefined;
  }

  #documentGone(frameId: string): void {
    if (this.#pending?.frameId === frameId) this.#pending = undefined;
  }
}
