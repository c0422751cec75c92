// What a capture of a tab (a screenshot, a PDF) masks while it runs, and undoes after it: every
// password input and every element that shows a known secret, in every frame and shadow root
// (what to mask: password-inputs.ts and secret-masks.ts; how: masks.ts). One object per capture:
// it owes the undo steps of what it masked, and `remove` runs them whatever happened meanwhile.
import type { IsolatedWorlds } from '../browser/isolated-worlds.ts';
import type { Tab } from '../browser/tab.ts';
import type { SendOptions } from '../cdp/session.ts';
import type { KnownSecret } from '../util/redact.ts';
import type { CallGuard } from './dialog-guard.ts';
import { maskDocument, type MaskLook, type MaskRun } from './masks.ts';
import { findPasswordInputs } from './password-inputs.ts';

export class CaptureMasks {
  readonly #run: MaskRun;

  constructor(init: { tab: Tab; worlds: IsolatedWorlds; guard: CallGuard; step: SendOptions; look: MaskLook }) {
    this.#run = { ...init, restores: [] };
  }

  /** Masks what the tab shows now; what was masked before a failure is still undone by `remove`. */
  async apply(secrets: readonly KnownSecret[]): Promise<void> {
    const { tab, guard, step } = this.#run;
    const inputs = await findPasswordInputs(tab, guard, step, secrets);
    await Promise.all(inputs.map((doc) => maskDocument(this.#run, doc)));
  }

  /** Undoes every mask put on (best-effort: a document gone meanwhile has nothing to undo). */
  async remove(): Promise<void> {
    const restores = this.#run.restores.splice(0);
    const undone = Promise.allSettled(restores.map((restore) => restore()));
    // With a dialog open the renderer answers nothing: the restores are queued on the wire and
    // run once the dialog is handled, so they are not waited for here.
    if (!this.#run.tab.dialogs.pending) await undone;
  }
}
