// The words an act result is made of (PROTOCOL.md §7), shared by the act result and the `act`
// event (§9), which would otherwise import each other.

export const ACT_STATUSES = [
  'completed',
  'verified',
  'condition_not_met',
  'interrupted',
  'stale_observation',
  'stale_reference',
  'action_failed',
  'request_id_conflict',
  'outcome_unknown',
] as const;
/**
 * An act failed unless its status is `completed` or `verified`: the one rule for MCP's `isError`
 * and for `screenshot: "on_error"` (PROTOCOL.md §7, §14).
 */
export function actFailed(status: (typeof ACT_STATUSES)[number]): boolean {
  return status !== 'completed' && status !== 'verified';
}
export const EXECUTIONS = ['not_dispatched', 'dispatched_unknown', 'completed'] as const;
export const OBSERVATION_STATES = ['captured', 'unavailable'] as const;
export const POSTCONDITIONS = ['not_requested', 'unknown', 'unmet', 'met'] as const;
/** Why an act fell short: the words of §7, and those of §3 an action can meet. */
export const ACT_ERROR_TYPES = [
  'unknown_state',
  'stale_state',
  'target_changed',
  'frame_detached',
  'document_changed',
  'ref_not_found',
  'node_detached',
  'modal_blocked',
  'not_visible',
  'click_intercepted',
  'focus_mismatch',
  'timeout',
  'action_failed',
  'request_id_conflict',
  'operation_cancelled',
  'forbidden',
  'invalid_params',
  'target_not_found',
  'browser_unavailable',
] as const;
