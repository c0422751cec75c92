// What an SDK call throws. Every error carries `error_type`, a word a caller can branch on: the
// server's own (§3 of the contract) for JSON-RPC errors, and the words below for what happens
// on the client's side of the socket. An act outcome is never thrown (it is a result).

/** Client-side error words (never sent by the server). */
export type ClientErrorType =
  /** The socket could not be opened (refused, 401, 403, no server). */
  | 'connection_failed'
  /** The socket dropped while a call that must not be sent twice was on the wire: its outcome is unknown. */
  | 'connection_lost'
  /** The client was closed, or gave up reconnecting. */
  | 'connection_closed'
  /** No answer within the call's client-side budget. */
  | 'client_timeout'
  /** The answer was not JSON-RPC the client understands. */
  | 'bad_response';

export class PagewireError extends Error {
  readonly error_type: string;
  /** JSON-RPC error code for server errors; absent for client-side ones. */
  readonly code: number | undefined;
  readonly data: Record<string, unknown>;

  constructor(init: { error_type: string; message: string; code?: number; data?: Record<string, unknown>; cause?: unknown }) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = 'PagewireError';
    this.error_type = init.error_type;
    this.code = init.code;
    this.data = init.data ?? {};
  }
}

/** A JSON-RPC error answered by the server; `error_type` is its `data.error_type`. */
export class RpcError extends PagewireError {
  readonly method: string;

  constructor(method: string, error: { code: number; message: string; data?: Record<string, unknown> }) {
    const data = error.data ?? {};
    const type = typeof data['error_type'] === 'string' ? (data['error_type'] as string) : 'internal_error';
    super({ error_type: type, message: `${method}: ${error.message}`, code: error.code, data });
    this.name = 'RpcError';
    this.method = method;
  }
}

/** Something between the client and the server failed (see ClientErrorType). */
export class ConnectionError extends PagewireError {
  constructor(type: ClientErrorType, message: string, options: { data?: Record<string, unknown>; cause?: unknown } = {}) {
    super({ error_type: type, message, ...options });
    this.name = 'ConnectionError';
  }
}

export function isPagewireError(error: unknown, type?: string): error is PagewireError {
  return error instanceof PagewireError && (type === undefined || error.error_type === type);
}

/** The error an aborted call rejects with: the signal's reason, as fetch does. */
export function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('The operation was aborted.', 'AbortError');
}
