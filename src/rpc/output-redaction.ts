// The last word on secrets for everything a method answers (PROTOCOL.md §11, §13): whatever a
// handler built, its result and its error are scrubbed of every form of every secret value the
// server knows (configured secrets, and what sessions typed into password fields or as secrets).
// It wraps the method table itself, so every door onto it (the WebSocket, MCP, the client SDK) gets
// the same answers. Page text is redacted earlier too, where it is read (with every beginning of a
// typed secret); this pass is about values that arrive whole by any other way.
import { ServerError } from '../errors.ts';
import { type KnownSecret, redactKnown, scrubStrings } from '../util/redact.ts';
import type { AnyMethodDef } from './define.ts';

/** `known()` is asked at each call (sessions type secrets as they go). */
export function redactMethodOutputs(methods: readonly AnyMethodDef[], known: () => readonly KnownSecret[]): AnyMethodDef[] {
  return methods.map((method) => ({
    ...method,
    handler: async (params, call) => {
      try {
        const result = await method.handler(params, call);
        const secrets = known();
        return secrets.length === 0 ? result : scrubStrings(result, (text) => redactKnown(text, secrets));
      } catch (error) {
        throw scrubError(error, known());
      }
    },
  }));
}

function scrubError(error: unknown, secrets: readonly KnownSecret[]): unknown {
  if (secrets.length === 0) return error;
  const scrub = (text: string) => redactKnown(text, secrets);
  if (error instanceof ServerError) {
    const message = scrub(error.message);
    const details = scrubStrings(error.details, scrub);
    if (message === error.message && details === error.details) return error;
    return new ServerError(error.type, message, { details, cause: error.cause });
  }
  if (error instanceof Error && scrub(error.message) !== error.message) {
    const copy = new Error(scrub(error.message));
    copy.name = error.name;
    return copy;
  }
  return error;
}
