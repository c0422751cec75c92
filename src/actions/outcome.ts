// Why an action fell short, as the error words of PROTOCOL.md §7, and whether anything with a
// side effect had begun when it did.

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
  | 'target_not_found';

export const STALE_OBSERVATION: ReadonlySet<ActErrorType> = new Set([
  'unknown_state',
  'stale_state',
  'target_changed',
  'frame_detached',
  'document_changed',
]);
export const STALE_REFERENCE: ReadonlySet<ActErrorType> = new Set(['ref_not_found', 'node_detached']);

export interface HitDescription {
  role: string;
  name: string;
  tag: string;
}

/** An action that could not go on. `sideEffect`: something (scroll, focus, input) had begun. */
export class ActionError extends Error {
  readonly type: ActErrorType;
  readonly sideEffect: boolean;
  readonly hit: HitDescription | undefined;

  constructor(type: ActErrorType, message: string, options: { sideEffect?: boolean; hit?: HitDescription; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ActionError';
    this.type = type;
    this.sideEffect = options.sideEffect ?? false;
    this.hit = options.hit;
  }
}
