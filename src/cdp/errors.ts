// Failures of CDP calls, typed so callers branch on `kind`/`code`, never on message text.

/** CDP's code for "Session with given id not found": the target is gone. */
export const CDP_SESSION_NOT_FOUND = -32001;

export type CdpErrorKind =
  | 'protocol' // the browser answered with an error
  | 'closed' // the connection or the session went away before an answer
  | 'timeout'; // no answer within the call's deadline

export class CdpError extends Error {
  readonly kind: CdpErrorKind;
  readonly method: string;
  readonly code: number | undefined;

  constructor(kind: CdpErrorKind, method: string, message: string, code?: number) {
    super(`${method}: ${message}`);
    this.name = 'CdpError';
    this.kind = kind;
    this.method = method;
    this.code = code;
  }

  /** The call's target (session) no longer exists. */
  get isTargetGone(): boolean {
    return this.kind === 'closed' || this.code === CDP_SESSION_NOT_FOUND;
  }
}

export function isCdpError(error: unknown): error is CdpError {
  return error instanceof CdpError;
}
