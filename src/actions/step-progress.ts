// How far one step of an act got with its side effects (PROTOCOL.md §7 `execution`): whether the
// act has begun one by then, and whether the page acknowledged what the step sent. One is made
// for each step (ActRun.#dispatch); what it ends with is returned in the step's result, or carried
// by the failure the step throws (StepFailed), so nothing of it is kept in a field of the run.

/** Where an act's side effects stand after a step. */
export interface SideEffects {
  /** Something with a side effect began, in this step or an earlier one. */
  began: boolean;
  /** No step with a side effect is waiting for its input, or its navigation's new document. */
  acknowledged: boolean;
}

/** Before the first step: nothing began, nothing is awaited. */
export const NOTHING_BEGUN: SideEffects = { began: false, acknowledged: true };

export class StepProgress {
  readonly #beganBefore: boolean;
  #began = false;
  #awaiting = false;

  /** `before`: where the act stood as this step began. */
  constructor(before: SideEffects) {
    this.#beganBefore = before.began;
  }

  /**
   * The step is about to do something with a side effect: it awaits an acknowledgement from now
   * on. True when that is the act's first side effect (the caller may take it back: `retract`).
   */
  begin(): boolean {
    this.#awaiting = true;
    if (this.#beganBefore || this.#began) return false;
    this.#began = true;
    return true;
  }

  /** The act's first side effect proved to be nothing after all. */
  retract(): void {
    this.#began = false;
    this.#awaiting = false;
  }

  /** What the step sent was acknowledged (its input, or its navigation's new document). */
  acknowledge(): void {
    this.#awaiting = false;
  }

  /** The step's input started a navigation: the step is done once the new document is there. */
  awaitNavigation(): void {
    this.#awaiting = true;
  }

  get value(): SideEffects {
    return { began: this.#beganBefore || this.#began, acknowledged: !this.#awaiting };
  }
}

/** A step's failure, with where the act's side effects stood when it failed. */
export class StepFailed extends Error {
  readonly sideEffects: SideEffects;

  constructor(cause: unknown, sideEffects: SideEffects) {
    super('an act step failed', { cause });
    this.sideEffects = sideEffects;
  }
}
