// The one place where an error becomes a JSON-RPC error object and where the wire numbers
// are looked up. Clients branch on `data.error_type`; the number is for generic tooling.
import { ERROR_CODES, type ErrorType, ServerError } from '../errors.ts';

export interface JsonRpcErrorData {
  readonly error_type: ErrorType;
  readonly [key: string]: unknown;
}

export interface JsonRpcErrorObject {
  readonly code: number;
  readonly message: string;
  readonly data: JsonRpcErrorData;
}

/** Long enough for a useful message, short enough that a pathological one cannot bloat a reply. */
const MAX_TEXT = 1000;

/**
 * Maps anything thrown by a handler. A `ServerError` keeps its word, message and details;
 * anything else is a bug and becomes `internal_error` with its message in `data.error_text`
 * (never a stack, never code 0).
 */
export function toJsonRpcError(error: unknown): JsonRpcErrorObject {
  if (error instanceof ServerError) {
    // error_type goes last so a detail can never overwrite the word clients branch on.
    return {
      code: codeOf(error.type),
      message: error.message || defaultMessage(error.type),
      data: { ...error.details, error_type: error.type },
    };
  }
  return {
    code: ERROR_CODES.internal_error,
    message: 'Internal error',
    data: { error_type: 'internal_error', error_text: truncate(describe(error)) },
  };
}

/** A protocol-level error built by the server itself (parse, envelope, lookup, params). */
export function protocolError(type: ErrorType, message: string, details: Record<string, unknown> = {}): JsonRpcErrorObject {
  return { code: codeOf(type), message, data: { ...details, error_type: type } };
}

export function codeOf(type: ErrorType): number {
  return ERROR_CODES[type];
}

/** True for errors the server did not anticipate: these are logged with their stack. */
export function isUnexpected(error: unknown): boolean {
  return !(error instanceof ServerError) || error.type === 'internal_error';
}

function defaultMessage(type: ErrorType): string {
  return type.replace(/_/g, ' ');
}

function describe(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  if (typeof error === 'string') return error;
  // Not JSON: a thrown object may carry the call's params, which must not be echoed.
  return `non-Error value thrown (${error === null ? 'null' : typeof error})`;
}

function truncate(text: string): string {
  return text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT)}…` : text;
}
