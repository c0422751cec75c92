// The one error class the server throws, with a word of PROTOCOL.md §3 (the words and their
// JSON-RPC codes are part of the wire: src/rpc/wire/errors.ts).
import { ERROR_CODES, type ErrorType } from './rpc/wire/errors.ts';


export { ERROR_CODES, type ErrorType };

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
