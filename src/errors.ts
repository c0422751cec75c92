// The one error class the server throws, with a word of PROTOCOL.md §3 (the words and their
// JSON-RPC codes are part of the wire: src/wire/errors.ts).
import { ERROR_CODES, type ErrorType } from './wire/errors.ts';

export { ERROR_CODES, type ErrorType };

/** When each word is used, for people: the README's error table is written from this (npm run docs). */
export const ERROR_MEANINGS: Record<ErrorType, string> = {
  parse_error: 'not JSON',
  invalid_request: 'not a JSON-RPC request, or a limit was reached (`data.limit`, `data.max`)',
  method_not_found: 'unknown method (or `cdp.send` without `--allow-raw-cdp`)',
  invalid_params: 'params fail the schema; `data.issues` lists where and why',
  forbidden: 'the session belongs to another principal, a path is outside the allowed root, or the domain policy refuses a URL',
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
