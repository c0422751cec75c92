// Why an action fell short, as the error words of PROTOCOL.md §7, whether anything with a side
// effect had begun when it did, and the one place where how an act ended becomes the result's
// status, execution, observation, postcondition and error_type.

import type { NodeDescription } from '../browser/describe-node.ts';
import type { NamedNode } from '../observe/capture.ts';
import type { ActResult, ActStatus, Execution, Postcondition } from '../wire/index.ts';

export type ActErrorType =
  | 'unknown_state'
  | 'stale_state'
  | 'target_changed'
  | 'frame_detached'
  | 'document_changed'
  | 'ref_not_found'
  | 'node_detached'
  | 'modal_blocked'
  | 'not_visible'
  | 'click_intercepted'
  | 'focus_mismatch'
  | 'timeout'
  | 'navigation_failed'
  | 'forbidden'
  | 'invalid_params'
  | 'action_failed'
  | 'operation_cancelled'
  | 'target_not_found'
  | 'browser_unavailable'
  | 'request_id_conflict';

export const STALE_OBSERVATION: ReadonlySet<ActErrorType> = new Set([
  'unknown_state',
  'stale_state',
  'target_changed',
  'frame_detached',
  'document_changed',
]);
export const STALE_REFERENCE: ReadonlySet<ActErrorType> = new Set(['ref_not_found', 'node_detached']);

export interface HitDescription extends NodeDescription {
  /** The blocker's ref in the fresh observation (docs/tree-format.md, "Blockers"). */
  ref?: string;
  /** The ref of the control inside the blocker that dismisses it. */
  dismiss_ref?: string;
}

/** A node the fresh observation gives a ref even when its tree has none (a click's blocker). */
export interface NodeToName extends NamedNode {
  tag: string;
}

/** The blocker a click hit, and the control that dismisses it, as nodes to give refs. */
export interface Blocker {
  blocker: NodeToName;
  dismiss?: NodeToName;
}

/** An action that could not go on. `sideEffect`: something (scroll, focus, input) had begun. */
export class ActionError extends Error {
  readonly type: ActErrorType;
  readonly sideEffect: boolean;
  readonly hit: HitDescription | undefined;
  readonly blocker: Blocker | undefined;

  constructor(
    type: ActErrorType,
    message: string,
    options: { sideEffect?: boolean; hit?: HitDescription; blocker?: Blocker; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ActionError';
    this.type = type;
    this.sideEffect = options.sideEffect ?? false;
    this.hit = options.hit;
    this.blocker = options.blocker;
  }
}

export type { ActStatus, Execution, Postcondition };
/** Whether a fresh observation came with the result. */
export type Observation = ActResult['observation'];

/** The error words an outcome reports (a failed navigation is reported as action_failed). */
export type ReportedErrorType = Exclude<ActErrorType, 'navigation_failed'>;

/** How an act ended, as the act layer saw it. */
export interface ActEnding {
  /** Something with a side effect began: bringing the tab to front, scrolling, focusing, input. */
  readonly began: boolean;
  /**
   * Every step that began was acknowledged: its input, and the new document of a navigation it
   * started. False when a step was cut short (a timeout, a cancel, a lost tab) before that.
   */
  readonly acknowledged: boolean;
  /**
   * What stopped the batch before its end (§7 `interrupted`: a dialog, a popup, a navigation).
   * The input that opened a dialog is never acknowledged.
   */
  readonly interruption?: 'dialog' | 'popup' | 'navigation';
  /**
   * Why the act fell short. `check`: a check of a step (or the step's own failure, such as a
   * navigation error or a disabled option) refused it after dispatch had begun, not a timeout,
   * a cancel or a loss.
   */
  readonly failure?: { readonly type: ActErrorType; readonly check: boolean };
  /** expect or wait_for was given. */
  readonly requested: boolean;
  /** The postcondition, when it was evaluated: `met` or `unmet` as it was found. */
  readonly verdict?: 'met' | 'unmet';
  /** A fresh observation was captured. */
  readonly captured: boolean;
  /** Without a fresh observation: the word for why, when it has one (the tab or browser is gone). */
  readonly captureLost?: ActErrorType;
}

export interface ActSummary {
  status: ActStatus;
  execution: Execution;
  observation: Observation;
  postcondition: Postcondition;
  errorType?: ReportedErrorType;
}

/**
 * PROTOCOL.md §7 "Result". A postcondition that was not evaluated is `unknown` and never reads
 * as `condition_not_met` (which says it was evaluated and did not hold): whatever kept it from
 * being evaluated is the act's failure, with its word. `stale_observation` says nothing ran;
 * once something has, the same words come with `action_failed` (a node gone stale mid-batch
 * keeps `stale_reference`, as §7 says).
 */
export function summarize(ending: ActEnding): ActSummary {
  const { failure, interruption, requested, verdict } = ending;
  const summary: ActSummary = {
    status: statusOf(ending),
    execution: !ending.began
      ? 'not_dispatched'
      // Once every begun step was acknowledged, a timeout, a cancel or a lost tab (while the page
      // settles, in wait_for, expect or the capture) leaves it completed; a failed check does not.
      : !ending.acknowledged || interruption === 'dialog' || failure?.check
      ? 'dispatched_unknown'
      : 'completed',
    observation: ending.captured ? 'captured' : 'unavailable',
    postcondition: !requested ? 'not_requested' : !failure && !interruption && verdict ? verdict : 'unknown',
  };
  const unevaluated = requested && !failure && !interruption && !verdict;
  const why = failure?.type ?? (unevaluated ? 'action_failed' : ending.captured ? undefined : ending.captureLost);
  if (why !== undefined) summary.errorType = wireWord(why);
  return summary;
}

function statusOf({ failure, began, interruption, requested, verdict }: ActEnding): ActStatus {
  if (failure) {
    const type = failure.type;
    if (type === 'operation_cancelled') return 'outcome_unknown';
    if (type === 'request_id_conflict') return 'request_id_conflict';
    if (STALE_REFERENCE.has(type)) return 'stale_reference';
    if (STALE_OBSERVATION.has(type) && !began) return 'stale_observation';
    return 'action_failed';
  }
  if (interruption) return 'interrupted';
  if (!requested) return 'completed';
  if (verdict === 'met') return 'verified';
  if (verdict === 'unmet') return 'condition_not_met';
  // Asked for and never evaluated, yet no failure names why: a bug of the caller, never a verdict.
  return 'action_failed';
}

/** A navigation error has no word of its own on the wire (§7 lists it under action_failed). */
function wireWord(type: ActErrorType): ReportedErrorType {
  return type === 'navigation_failed' ? 'action_failed' : type;
}
