// Every MCP tool result within a byte budget (PROTOCOL.md §14, "A budget for every result"): what
// share of it an observation may take as wire JSON, and how a call's own budget is read.
import { MCP_MAX_BYTES } from '../util/result-budget.ts';
import { MAX_BYTES_RANGE } from '../wire/index.ts';

export { MCP_MAX_BYTES };

/**
 * Room kept for what a result says besides its observation: an observation's text says more
 * words than its JSON in a few places (the loading and truncation lines, `more:`), and an act's
 * result has its status, events, hit and hint too.
 */
export const OBSERVATION_RESERVE = 2_048;
export const ACT_RESERVE = 4_096;

/**
 * The wire `max_bytes` for an observation in a result of `budget` bytes: the text block and the
 * structuredContent say the same lines twice, so each gets half of what the reserve leaves.
 */
export function observationBytes(budget: number, reserve: number): number {
  return Math.max(MAX_BYTES_RANGE.min, Math.floor((budget - reserve) / 2));
}

/**
 * The budget of a call: its own `max_bytes` argument when it gave one, else the host's. A value the
 * bounds refuse is answered as the wire would (an issue at `path`).
 */
export function callBudget(value: unknown, host: number): number | { invalid: string } {
  if (value === undefined) return host;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < MCP_MAX_BYTES.min || value > MCP_MAX_BYTES.max) {
    return { invalid: `an integer from ${MCP_MAX_BYTES.min} to ${MCP_MAX_BYTES.max}: the bytes of the whole tool result` };
  }
  return value;
}

/** The budget a call gave itself: browser_act's `observe.max_bytes`, the others' `max_bytes`. */
export function ownBudget(args: Record<string, unknown>): number | undefined {
  const observe = args['observe'];
  const value = typeof observe === 'object' && observe !== null ? (observe as Record<string, unknown>)['max_bytes'] : args['max_bytes'];
  return typeof value === 'number' ? value : undefined;
}
