// The check that keeps the wire schemas true: every reply and event the tests' client receives is
// held against its schema, strictly (a field the schema does not declare is a failure too).
import type { z } from 'zod';
import { ERROR_CODES, eventNotification, isMethodName, METHODS, rpcError } from '../../src/wire/index.ts';

/** What is wrong with `value` as `schema` describes it, or undefined when nothing is. */
function strictProblem(schema: z.ZodType, value: unknown): string | undefined {
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    return parsed.error.issues
      .slice(0, 5)
      .map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`)
      .join('; ');
  }
  // Parsing drops keys a (non-loose) object does not declare: any key of the value missing from
  // the parsed copy is undeclared.
  const extra = undeclared(value, parsed.data, '');
  return extra === undefined ? undefined : `${extra}: not declared in the schema`;
}

function undeclared(value: unknown, parsed: unknown, path: string): string | undefined {
  if (Array.isArray(value) && Array.isArray(parsed)) {
    for (let i = 0; i < value.length; i++) {
      const found = undeclared(value[i], parsed[i], `${path}${path ? '.' : ''}${i}`);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (!isObject(value) || !isObject(parsed)) return undefined;
  for (const [key, item] of Object.entries(value)) {
    const at = `${path}${path ? '.' : ''}${key}`;
    if (!Object.hasOwn(parsed, key)) return at;
    const found = undeclared(item, parsed[key], at);
    if (found !== undefined) return found;
  }
  return undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** A reply to `method` held against the method's result schema, or the JSON-RPC error shape. */
export function replyProblem(method: string, reply: Record<string, unknown>): string | undefined {
  if (Object.hasOwn(reply, 'error')) {
    const problem = strictProblem(rpcError, reply['error']);
    if (problem !== undefined) return `${method}: the error is not a wire error: ${problem}`;
    const error = rpcError.parse(reply['error']);
    const code = ERROR_CODES[error.data.error_type];
    return error.code === code ? undefined : `${method}: error ${error.data.error_type} came with code ${error.code}, not ${code}`;
  }
  if (!isMethodName(method)) return `${method}: a result for a method the wire does not have`;
  const problem = strictProblem(METHODS[method].result, reply['result']);
  return problem === undefined ? undefined : `${method}: the result does not match its schema: ${problem}`;
}

/** A notification held against the `event` notification schema (the only one the server sends). */
export function notificationProblem(method: string, params: unknown): string | undefined {
  if (method !== 'event') return `a notification "${method}" the wire does not have`;
  const problem = strictProblem(eventNotification, params);
  return problem === undefined ? undefined : `event: the notification does not match its schema: ${problem}`;
}
