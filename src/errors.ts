// Every error word of PROTOCOL.md §3 with its JSON-RPC code, and the one error class the
// server throws. Clients branch on `error_type`; the number is for generic JSON-RPC tooling.

export const ERROR_CODES = {
  parse_error: -32700,
  invalid_request: -32600,
  method_not_found: -32601,
  invalid_params: -32602,
  forbidden: -32001,
  session_not_found: -32004,
  target_not_found: -32005,
  frame_not_found: -32006,
  modal_blocked: -32007,
  last_tab: -32008,
  browser_unavailable: -32009,
  operation_cancelled: -32010,
  timeout: -32011,
  no_modal: -32012,
  internal_error: -32603,
} as const;

export type ErrorType = keyof typeof ERROR_CODES;

/** When each word is used, for people: the README's error table is written from this (npm run docs). */
export const ERROR_MEANINGS: Record<ErrorType, string> = {
  parse_error: 'not JSON',
  invalid_request: 'not a JSON-RPC request, or a limit was reached (`data.limit`, `data.max`)',
  method_not_found: 'unknown method (or `cdp.send` without `--allow-raw-cdp`)',
  invalid_params: 'params fail the schema; `data.issues` lists where and why',
  forbidden: 'the session belongs to another principal, or a path is outside the allowed root',
  session_not_found: 'unknown or closed session',
  target_not_found: 'unknown or closed `target_id`',
  frame_not_found: 'unknown or detached `frame_id`, or a frame of another target',
  modal_blocked: 'a dialog or file chooser is pending and the call cannot proceed (`data.modal`)',
  last_tab: 'closing the last tab of a session',
  browser_unavailable: 'the browser could not be launched or reached (`data.reason`, `data.fix`)',
  operation_cancelled: 'the call was interrupted by `cancel` or `session.close`',
  timeout: "the call's own budget ran out",
  no_modal: '`dialog.handle` or `file_chooser.resolve` with nothing pending',
  internal_error: 'a bug; `data.error_text` says what',
};

/** A failure with a wire word. `details` become the JSON-RPC error's `data` (next to `error_type`). */
export class ServerError extends Error {
  readonly type: ErrorType;
  readonly details: Record<string, unknown>;

  constructor(type: ErrorType, message: string, options: { details?: Record<string, unknown>; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ServerError';
    this.type = type;
    this.details = options.details ?? {};
  }
}

export function isServerError(error: unknown, type?: ErrorType): error is ServerError {
  return error instanceof ServerError && (type === undefined || error.type === type);
}
