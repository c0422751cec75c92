// A JavaScript dialog opening in the middle of a capture: every renderer call would hang until it
// is handled (CDP-NOTES §7), so each one is raced against the tab's dialogs and the capture fails
// with modal_blocked instead.
import type { PendingDialog } from '../browser/dialogs.ts';
import type { Tab } from '../browser/tab.ts';
import { ServerError } from '../errors.ts';

export function modalBlockedError(dialog: Pick<PendingDialog, 'type' | 'message'>): ServerError {
  return new ServerError('modal_blocked', `a ${dialog.type} dialog is open: handle it with dialog.handle first`, {
    details: { modal: { type: dialog.type, message: dialog.message } },
  });
}

/** What runs a capture's renderer calls: each one rejects with modal_blocked if a dialog opens first. */
export interface CallGuard {
  run<T>(promise: Promise<T>): Promise<T>;
}

/** Races each renderer call against a dialog opening in the tab. */
export class DialogGuard implements CallGuard {
  readonly #tab: Tab;

  constructor(tab: Tab) {
    this.#tab = tab;
  }

  async run<T>(promise: Promise<T>): Promise<T> {
    const outcome = await this.#tab.dialogs.raceOpening(promise);
    if (outcome.dialog) throw modalBlockedError(outcome.dialog);
    return outcome.value as T;
  }
}

/** For calls that must go out whatever is open (a screencast's masks, restores): no race. */
export const UNGUARDED: CallGuard = { run: (promise) => promise };
