// Every error word of PROTOCOL.md §3 with its JSON-RPC code, and the `data` of a JSON-RPC error.
// Clients branch on `data.error_type`; the number is for generic JSON-RPC tooling.
import { z } from 'zod';

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

export const ERROR_TYPES = Object.keys(ERROR_CODES) as [ErrorType, ...ErrorType[]];

/** One reason params were refused: a dotted path into params (empty for the whole) and why. */
export const paramIssue = z.object({ path: z.string(), message: z.string() });

/**
 * `error.data`: always the word; the other fields depend on the error and more may appear
 * (`session_id`, `target_id`, `subscription_id`, `cdp_code`…), so the object is open.
 */
export const errorData = z
  .looseObject({
    error_type: z.enum(ERROR_TYPES),
    error_text: z.string().optional().describe('internal_error: what went wrong'),
    issues: z.array(paramIssue).optional().describe('invalid_params: where and why'),
    limit: z.string().optional().describe('The limit that refused the call (`tabs_per_session`, `max_sessions`…)'),
    max: z.number().optional().describe("That limit's value"),
    reason: z.string().optional().describe('browser_unavailable: why, as a word'),
    fix: z.string().optional().describe('browser_unavailable: how to fix it'),
    modal: z.object({ type: z.string(), message: z.string() }).optional().describe('modal_blocked: the dialog in the way'),
  })
  .meta({ id: 'ErrorData' });

export const rpcError = z.object({ code: z.number().int(), message: z.string(), data: errorData });
