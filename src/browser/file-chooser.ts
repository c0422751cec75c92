// File choosers are intercepted (Page.setInterceptFileChooserDialog): a trusted click on a file
// input opens no native dialog but reports here, and stays pending until a client resolves it
// (file_chooser.resolve) or the document that opened it goes away.
import type { CdpSession } from '../cdp/session.ts';
import type { Disposable } from '../util/disposable.ts';
import { Emitter } from '../util/emitter.ts';

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
      session.on('Page.frameNavigated', (event) => {
        if (this.#pending?.frameId === event.frame.id) this.#pending = undefined; // its document is gone
      }),
    ];
  }

  /** Takes the pending chooser (it is no longer pending). */
  take(): PendingChooser | undefined {
    const chooser = this.#pending;
    this.#pending = undefined;
    return chooser;
  }
}
