// The actions of PROTOCOL.md §7 as the act layer receives them (already validated by the RPC
// schema, so field names are the wire's).
import type { Modifier, MouseButton } from './input.ts';

export type Action =
  | { action: 'click'; ref?: string; x?: number; y?: number; button?: MouseButton; click_count?: number; modifiers?: Modifier[] }
  | { action: 'hover'; ref: string }
  | { action: 'type'; ref: string; text: string; clear_first?: boolean; submit?: boolean }
  | { action: 'fill'; ref: string; text: string }
  | { action: 'check'; ref: string; checked: boolean }
  | { action: 'select'; ref: string; value?: string; values?: string[]; label?: string }
  | { action: 'press'; key: string; ref?: string }
  | { action: 'scroll'; delta_x?: number; delta_y?: number; ref?: string }
  | { action: 'drag'; ref: string; to_ref: string }
  | { action: 'upload'; ref: string; paths: string[] }
  | { action: 'navigate'; url: string }
  | { action: 'back' }
  | { action: 'forward' }
  | { action: 'reload' };

export type ActionName = Action['action'];

export type WaitState = 'visible' | 'hidden' | 'attached' | 'detached';

export type WaitFor =
  | { text: string; state?: WaitState }
  | { url: string; state?: WaitState }
  | { selector: string; state?: WaitState };

export interface Expectation {
  selector: string;
  text: string;
}

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
