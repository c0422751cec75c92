// The actions of PROTOCOL.md §7 as the act layer receives them: the act params schema's own
// types (already validated, so field names are the wire's).
import type { Action, ActionName, Expectation, WaitFor } from '../wire/index.ts';

export type { Action, ActionName, Expectation, WaitFor };

/** Every ref an action names (its node and, for drag, the drop target). */
export function refsOf(action: Action): string[] {
  const refs: string[] = [];
  if ('ref' in action && action.ref !== undefined) refs.push(action.ref);
  if (action.action === 'drag') refs.push(action.to_ref);
  return refs;
}

/** Actions that navigate by themselves (and so wait for the new document). */
export const NAVIGATING_ACTIONS: ReadonlySet<ActionName> = new Set(['navigate', 'back', 'forward', 'reload']);

/** Actions whose first step on their node is focusing it (perform.ts: focusChecked). */
export const FOCUSING_ACTIONS: ReadonlySet<ActionName> = new Set(['type', 'fill', 'select', 'press']);
